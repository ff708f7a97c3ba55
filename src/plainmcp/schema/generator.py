"""pydantic's JSON Schema generator without the titles it derives from names ("A", "Item"), which
hosts would show as if they were help text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, JsonSchemaWarningKind
from pydantic_core import core_schema

from plainmcp.schema.refs import NOT_SCHEMAS


class Generator(GenerateJsonSchema):
    """pydantic's generator minus the titles it derives from names (user-given titles stay)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._enum_names: set[str] = set()

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        result = super().model_schema(schema)
        cls = schema["cls"]
        _drop_class_title(result, cls, cls.model_config)
        return result

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        result = super().dataclass_schema(schema)
        cls = schema["cls"]
        _drop_class_title(result, cls, getattr(cls, "__pydantic_config__", None))
        return result

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        result = super().typed_dict_schema(schema)
        cls = schema.get("cls")
        if cls is not None:
            _drop_class_title(result, cls, getattr(cls, "__pydantic_config__", None))
        return result

    def enum_schema(self, schema: core_schema.EnumSchema) -> JsonSchemaValue:
        # pydantic adds the class-name title after this method returns; generate() drops it.
        self._enum_names.add(schema["cls"].__name__)
        return super().enum_schema(schema)

    def generate(self, schema: Any, mode: Any = "validation") -> JsonSchemaValue:
        result = super().generate(schema, mode)
        _drop_enum_titles(result, self._enum_names)
        return result

    def emit_warning(self, kind: JsonSchemaWarningKind, detail: str) -> None:
        # A default that cannot be written as JSON is simply left out of the schema: that is
        # the documented behaviour, not something to warn every tool author about.
        if kind != "non-serializable-default":
            super().emit_warning(kind, detail)


def _drop_enum_titles(node: Any, names: set[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _drop_enum_titles(item, names)
    elif isinstance(node, dict):
        if "enum" in node and node.get("title") in names:
            del node["title"]
        for key, value in node.items():
            if key not in NOT_SCHEMAS:
                _drop_enum_titles(value, names)


def _drop_class_title(result: dict[str, Any], cls: type[Any], config: Any) -> None:
    explicit = isinstance(config, Mapping) and (
        config.get("title") is not None or config.get("model_title_generator") is not None
    )
    if not explicit and result.get("title") == cls.__name__:
        del result["title"]
