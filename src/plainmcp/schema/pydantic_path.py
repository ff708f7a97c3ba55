"""The pydantic path: schemas and validation for what plain.py does not cover (models,
dataclasses, TypedDicts, constraints, `Field(...)`), imported only when a tool needs it."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PydanticSchemaGenerationError,
    PydanticUserError,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticSerializationError

from plainmcp.schema.errors import ArgumentError, FieldError
from plainmcp.schema.generator import Generator
from plainmcp.schema.plain import Param
from plainmcp.schema.refs import inline_refs
from plainmcp.schema.validation import field_errors, json_bytes

Validate = Callable[[Mapping[str, Any]], dict[str, Any]]


def input_model(
    model_name: str, name: str, params: Sequence[Param], docs: Mapping[str, str]
) -> tuple[dict[str, Any], Validate]:
    """The input schema (refs inlined, root not yet ordered) and the validator of `params`."""
    fields: dict[str, Any] = {}
    names: dict[str, str] = {}
    always: set[str] = set()
    for index, param in enumerate(params):
        annotation = param.annotation
        if annotation is inspect.Parameter.empty:
            annotation = Any
        annotation, text, described = _split_description(annotation)
        default = param.default
        if isinstance(default, FieldInfo):
            annotation = Annotated[annotation, default]
            described = described or default.description is not None
            always.add(f"p{index}")
            default = inspect.Parameter.empty
        options: dict[str, Any] = {"alias": param.name}
        if not described:
            description = text if text is not None else docs.get(param.name)
            if description is not None:
                options["description"] = description
        if default is not inspect.Parameter.empty:
            options["default"] = default
        fields[f"p{index}"] = (annotation, Field(**options))
        names[f"p{index}"] = param.name
    try:
        model: type[BaseModel] = create_model(
            model_name, __config__=ConfigDict(extra="ignore"), **fields
        )
        raw = model.model_json_schema(schema_generator=Generator)
    except (PydanticSchemaGenerationError, PydanticUserError) as exc:
        raise TypeError(f"{name}: cannot build an input schema: {exc}") from exc
    accepted = frozenset(names.values())
    given_always = frozenset(always)
    validator = model.__pydantic_validator__

    def validate(arguments: Mapping[str, Any]) -> dict[str, Any]:
        # Unknown keys are found here rather than with extra="forbid": pydantic would pass that
        # config down to nested dataclasses and TypedDicts, unlike nested models.
        unexpected = [
            FieldError(str(key), "Unexpected argument") for key in arguments if key not in accepted
        ]
        try:
            validated = validator.validate_json(json_bytes(arguments), strict=True)
        except ValidationError as exc:
            raise ArgumentError(field_errors(exc) + unexpected) from None
        if unexpected:
            raise ArgumentError(unexpected)
        given = validated.model_fields_set | given_always
        return {names[key]: getattr(validated, key) for key in names if key in given}

    return inline_refs(raw), validate


def _split_description(annotation: Any) -> tuple[Any, str | None, bool]:
    """Take a plain-string description out of Annotated[X, "text"].

    Returns the annotation without string metadata, that text, and whether a Field(...) in the
    metadata already carries a description (which then wins).
    """
    if typing.get_origin(annotation) is not Annotated:
        return annotation, None, False
    base, *metadata = typing.get_args(annotation)
    strings = [m for m in metadata if isinstance(m, str)]
    rest = [m for m in metadata if not isinstance(m, str)]
    described = any(isinstance(m, FieldInfo) and m.description is not None for m in rest)
    rebuilt = Annotated.__class_getitem__((base, *rest)) if rest else base
    return rebuilt, strings[0] if strings else None, described


def output_adapter(
    annotation: Any,
) -> tuple[dict[str, Any], Callable[[bytes], list[FieldError]]]:
    """The output schema (refs inlined) of a return annotation and a strict check of JSON."""
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        raw = adapter.json_schema(mode="serialization", schema_generator=Generator)
    except (PydanticSchemaGenerationError, PydanticUserError) as exc:
        raise TypeError(
            f"cannot build an output schema for return type {annotation!r}: {exc}"
        ) from exc

    def check_json(data: bytes) -> list[FieldError]:
        try:
            adapter.validate_json(data, strict=True)
        except ValidationError as exc:
            return field_errors(exc)
        except PydanticSerializationError as exc:  # pragma: no cover - defensive
            return [FieldError("", str(exc))]
        return []

    return inline_refs(raw), check_json
