"""Tool input schemas from signatures and type hints, and the validation of arguments against
them (strict JSON types, every bad field named)."""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from plainmcp.schema import plain
from plainmcp.schema.errors import ArgumentError, FieldError
from plainmcp.schema.plain import Param
from plainmcp.schema.validation import jsonschema_check

Validate = Callable[[Mapping[str, Any]], dict[str, Any]]


def _short_repr(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class InputSpec:
    """A tool's input schema and the validator that turns JSON arguments into keyword arguments."""

    schema: dict[str, Any]
    _validate: Validate | None = field(default=None, repr=False, compare=False)
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
        if self._validate is None:
            errors = self._check(dict(arguments)) if self._check is not None else []
            if errors:
                raise ArgumentError(errors)
            return dict(arguments)
        return self._validate(arguments)


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
    name, params = _params(fn, hidden)
    docs = dict(param_docs or {})
    built = plain.plain_fields(params, docs)
    if built is None:
        return _pydantic_spec(fn, name, params, docs)
    schema, plain_validate = built
    fallback: list[Validate] = []

    def validate(arguments: Mapping[str, Any]) -> dict[str, Any]:
        if type(arguments) is dict:
            try:
                return plain_validate(arguments)
            except plain.Unsure:
                pass
        if not fallback:  # a value only pydantic judges as pydantic does: ask it, once built
            fallback.append(_pydantic_spec(fn, name, params, docs).validate)
        return fallback[0](arguments)

    return InputSpec(schema=schema, _validate=validate)


def pydantic_input_spec(
    fn: Callable[..., Any],
    *,
    param_docs: Mapping[str, str] | None = None,
    hidden: Collection[str] = (),
) -> InputSpec:
    """`input_spec` through pydantic whatever the signature: what the plain path must equal."""
    name, params = _params(fn, hidden)
    return _pydantic_spec(fn, name, params, dict(param_docs or {}))


def _pydantic_spec(
    fn: Callable[..., Any], name: str, params: list[Param], docs: Mapping[str, str]
) -> InputSpec:
    from plainmcp.schema.pydantic_path import input_model

    model_name = f"{getattr(fn, '__name__', 'tool')}_arguments"
    raw, validate = input_model(model_name, name, params, docs)
    return InputSpec(schema=_input_root(raw), _validate=validate)


def _params(fn: Callable[..., Any], hidden: Collection[str]) -> tuple[str, list[Param]]:
    """The name to report `fn` by, and its described parameters (TypeError for the rest)."""
    name = getattr(fn, "__qualname__", None) or repr(fn)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cannot read the signature of {name}: {exc}") from exc
    hints = _type_hints(fn, name, hidden)
    params: list[Param] = []
    for param in signature.parameters.values():
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
        params.append(Param(param.name, annotation, param.default))
    return name, params


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
