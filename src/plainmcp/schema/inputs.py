"""Tool input schemas from signatures and type hints, and the validation of arguments against
them (strict JSON types, every bad field named)."""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PydanticSchemaGenerationError,
    PydanticUserError,
    ValidationError,
    create_model,
)
from pydantic.fields import FieldInfo

from plainmcp.schema.errors import ArgumentError, FieldError
from plainmcp.schema.generator import Generator
from plainmcp.schema.refs import inline_refs
from plainmcp.schema.validation import field_errors, json_bytes, jsonschema_check


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class InputSpec:
    """A tool's input schema and the validator that turns JSON arguments into keyword arguments."""

    schema: dict[str, Any]
    _model: type[BaseModel] | None = field(default=None, repr=False, compare=False)
    _names: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    _always: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _accepted: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _check: Callable[[Any], list[FieldError]] | None = field(
        default=None, repr=False, compare=False
    )

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validate against the advertised schema and construct Python values by parameter name.

        JSON types are strict ("5" is not an integer, true is not a number): the model reads
        the error and corrects itself, rather than having a guess made for it. Strings still
        become datetimes, UUIDs and enum members, and objects become models, as JSON requires.

        Parameters the client left out are left out here too, so the function's own default
        applies. Raises ArgumentError naming every bad, missing or unexpected field.
        """
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            raise ArgumentError(
                [FieldError("", f"Arguments should be an object, got {_short_repr(arguments)}")]
            )
        if self._model is None:
            errors = self._check(dict(arguments)) if self._check is not None else []
            if errors:
                raise ArgumentError(errors)
            return dict(arguments)
        # Unknown keys are found here rather than with extra="forbid": pydantic would pass that
        # config down to nested dataclasses and TypedDicts, unlike nested models.
        unexpected = [
            FieldError(str(key), "Unexpected argument")
            for key in arguments
            if key not in self._accepted
        ]
        try:
            validated = self._model.__pydantic_validator__.validate_json(
                json_bytes(arguments), strict=True
            )
        except ValidationError as exc:
            raise ArgumentError(field_errors(exc) + unexpected) from None
        if unexpected:
            raise ArgumentError(unexpected)
        given = validated.model_fields_set | self._always
        return {self._names[key]: getattr(validated, key) for key in self._names if key in given}


def input_spec(
    fn: Callable[..., Any],
    *,
    param_docs: Mapping[str, str] | None = None,
    hidden: Collection[str] = (),
) -> InputSpec:
    """Build the input schema and validator of `fn` from its signature and type hints.

    `hidden` parameters are injected by the caller and are neither described nor accepted.
    Descriptions come from `Field(description=...)`, then a plain string in `Annotated[...]`, then
    `param_docs`. A parameter defaulting to `pydantic.Field(...)` is supported too. Recursive types
    keep a minimal `$defs` (see `inline_refs`). Raises TypeError for `*args`/`**kwargs`,
    positional-only parameters and types pydantic cannot describe.
    """
    name = getattr(fn, "__qualname__", None) or repr(fn)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot read the signature of {name}: {exc}") from exc
    hints = _type_hints(fn, name, hidden)
    docs = dict(param_docs or {})
    fields: dict[str, Any] = {}
    names: dict[str, str] = {}
    always: set[str] = set()
    for index, param in enumerate(signature.parameters.values()):
        if param.name in hidden:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            star = "*" if param.kind is param.VAR_POSITIONAL else "**"
            raise TypeError(
                f"{name}: {star}{param.name} cannot be described by a JSON schema; "
                "tools take named parameters only"
            )
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(
                f"{name}: parameter {param.name!r} is positional-only; tools are called with "
                "keyword arguments"
            )
        annotation = hints.get(param.name, param.annotation)
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
            f"{getattr(fn, '__name__', 'tool')}_arguments",
            __config__=ConfigDict(extra="ignore"),
            **fields,
        )
        raw = model.model_json_schema(schema_generator=Generator)
    except (PydanticSchemaGenerationError, PydanticUserError) as exc:
        raise TypeError(f"{name}: cannot build an input schema: {exc}") from exc
    return InputSpec(
        schema=_input_root(inline_refs(raw)),
        _model=model,
        _names=names,
        _always=frozenset(always),
        _accepted=frozenset(names.values()),
    )


def _type_hints(fn: Callable[..., Any], name: str, skip: Collection[str]) -> dict[str, Any]:
    """Resolved hints of the parameters, one at a time when resolving all at once fails.

    One at a time, so that a hint nobody can resolve (a local class under
    `from __future__ import annotations`) only matters when the parameter is not hidden.
    """
    target: Any = inspect.unwrap(fn)
    if inspect.isclass(target):
        target = target.__init__
    elif not inspect.isroutine(target):
        target = type(target).__call__
    try:
        return typing.get_type_hints(target, include_extras=True)
    except NameError:
        pass
    except TypeError:
        return {}  # e.g. functools.partial: fall back to the signature's annotations
    globalns = getattr(target, "__globals__", {})
    hints: dict[str, Any] = {}
    for key, value in getattr(target, "__annotations__", {}).items():
        if key in skip or key == "return":
            continue
        holder = _AnnotationHolder({key: value})
        try:
            hints.update(typing.get_type_hints(holder, globalns, include_extras=True))
        except NameError as exc:
            raise TypeError(f"{name}: cannot resolve the type hint of {key!r}: {exc}") from exc
    return hints


class _AnnotationHolder:
    def __init__(self, annotations: dict[str, Any]) -> None:
        self.__annotations__ = annotations


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


def _input_root(schema: dict[str, Any]) -> dict[str, Any]:
    """Fixed key order and the keys every host expects on an input schema root."""
    root: dict[str, Any] = {"type": "object", "properties": schema.pop("properties", {})}
    schema.pop("type", None)
    if "required" in schema:
        root["required"] = schema.pop("required")
    root["additionalProperties"] = schema.pop("additionalProperties", False)
    defs = schema.pop("$defs", None)
    root.update(schema)
    if defs is not None:
        root["$defs"] = defs
    return root


def schema_input_spec(schema: Mapping[str, Any]) -> InputSpec:
    """An input spec for a hand-written schema, sent VERBATIM (the author chose every keyword,
    `$ref`s included); arguments are checked with `jsonschema` when it is installed and passed
    to the function as keyword arguments."""
    given = copy.deepcopy(dict(schema))
    if given.get("type") != "object":
        raise ValueError('an input schema needs "type": "object" at its root')
    return InputSpec(schema=given, _check=jsonschema_check(given, "input"))
