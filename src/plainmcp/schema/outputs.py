"""Tool output schemas from return annotations (or as written by hand), and the strict check of
structured values against them before they are sent."""

from __future__ import annotations

import copy
import enum
import inspect
import math
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from plainmcp.schema import plain
from plainmcp.schema.errors import FieldError, OutputMismatch
from plainmcp.schema.refs import inline_refs
from plainmcp.schema.validation import json_bytes, jsonschema_check
from plainmcp.wire import json as wire_json


@dataclass(frozen=True)
class OutputSpec:
    """A tool's output schema and a strict check of wire values (JSON-compatible) against it."""

    schema: dict[str, Any]
    _check: Callable[[Any], list[FieldError]] | None = field(
        default=None, repr=False, compare=False
    )
    _check_json: Callable[[bytes], list[FieldError]] | None = field(
        default=None, repr=False, compare=False
    )
    _surely_fits: Callable[[Any], bool] | None = field(default=None, repr=False, compare=False)
    """For schemas that only say "an object" or "an array of objects" (`dict[str, Any]`,
    `list[dict]`): a look at the Python value's types that, when True, proves the encoded value
    matches, so a large result skips re-parsing its JSON. False proves nothing."""

    def check(self, value: Any) -> None:
        """Raise OutputMismatch naming each mismatch; JSON types are strict ("5" is no int)."""
        if self._check is not None:
            errors = self._check(value)
            if errors:
                raise OutputMismatch(errors)

    def check_json(self, data: bytes, value: Any = None) -> None:
        """`check` for a value already encoded, without decoding it again when avoidable.
        `value` is what `data` encodes, when the caller has it."""
        if value is not None and self._surely_fits is not None and self._surely_fits(value):
            return
        if self._check_json is not None:
            errors = self._check_json(data)
            if errors:
                raise OutputMismatch(errors)
        elif self._check is not None:
            self.check(wire_json.loads(data))


_UNSTRUCTURED: tuple[Any, ...] = (
    Any,
    object,
    None,
    type(None),
    str,
    bytes,
    bytearray,
    list,
    dict,
    tuple,
    set,
    frozenset,
)


def output_spec(annotation: Any) -> OutputSpec | None:
    """The output spec of a return annotation, or None when it says nothing about the shape.

    None for: no annotation, Any, object, None, str, bytes, bytearray, paths, and bare
    list/dict/tuple/set/frozenset (`-> list` often means "caption plus image", not data).
    Everything else gets pydantic's serialization-mode schema; a type pydantic cannot describe
    raises TypeError.
    """
    if _is_unstructured(annotation):
        return None
    built = plain.output_node(annotation)
    if built is None:
        return pydantic_output_spec(annotation)
    schema, node_check = built
    fallback: list[Callable[[bytes], list[FieldError]]] = []

    def pydantic_check(data: bytes) -> list[FieldError]:
        if not fallback:  # a value only pydantic judges as pydantic does: ask it, once built
            from plainmcp.schema.pydantic_path import output_adapter

            fallback.append(output_adapter(annotation)[1])
        return fallback[0](data)

    def check_decoded(value: Any) -> list[FieldError]:
        errors: list[FieldError] = []
        node_check(value, (), errors)
        return errors

    def check_json(data: bytes) -> list[FieldError]:
        try:
            return check_decoded(wire_json.loads(data))
        except (plain.Unsure, ValueError):  # DecodeError, Unrepresentable: pydantic says
            return pydantic_check(data)

    check_encoded = _encoding_first(check_json)

    def check(value: Any) -> list[FieldError]:
        try:
            return check_decoded(value)
        except plain.Unsure:
            return check_encoded(value)

    return _spec(schema, check, check_json)


def pydantic_output_spec(annotation: Any) -> OutputSpec:
    """`output_spec` through pydantic for a structured annotation: what plain must equal."""
    from plainmcp.schema.pydantic_path import output_adapter

    schema, check_json = output_adapter(annotation)
    return _spec(schema, _encoding_first(check_json), check_json)


def _encoding_first(
    check_json: Callable[[bytes], list[FieldError]],
) -> Callable[[Any], list[FieldError]]:
    """A check of Python values that encodes them as the result is written (orjson: NaN as
    null; exact for wide integers), then checks the JSON."""

    def check(value: Any) -> list[FieldError]:
        try:
            data = json_bytes(value)
        except (TypeError, ValueError) as exc:
            return [FieldError("", f"Value is not JSON-serializable: {exc}")]
        return check_json(data)

    return check


def _spec(
    schema: dict[str, Any],
    check: Callable[[Any], list[FieldError]],
    check_json: Callable[[bytes], list[FieldError]],
) -> OutputSpec:
    return OutputSpec(
        schema=schema,
        _check=check,
        _check_json=check_json,
        _surely_fits=_shape_only_check(schema),
    )


def _shape_only_check(schema: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """A type check of Python values that settles `schema`, when the schema says nothing more
    than JSON types: `{}`, `{"type": "integer"}`, objects with any keys, arrays (else None).

    Each Python type here encodes to exactly that JSON type (a `dict` to an object, a `list` to
    an array, an `int` to an integer), so where the check says True, pydantic would too; other
    values (tuples, models, NaN) go to pydantic, which names what is wrong.
    """
    if not schema:
        return _anything
    kind = schema.get("type")
    keys = set(schema)
    if keys == {"type"} and kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "object" and keys <= {"type", "additionalProperties"}:
        extra = schema.get("additionalProperties", True)
        if extra is True or extra == {}:
            return lambda value: type(value) is dict
        members = _shape_only_check(extra) if isinstance(extra, dict) else None
        if members is None:
            return None
        return lambda value: type(value) is dict and all(map(members, value.values()))
    if kind == "array" and keys <= {"type", "items"}:
        items = _shape_only_check(schema.get("items", {}))
        if items is None:
            return None
        return lambda value: type(value) is list and all(map(items, value))
    return None


def _anything(value: Any) -> bool:
    return True


_SCALARS: dict[str, Callable[[Any], bool]] = {
    "integer": lambda value: type(value) is int,
    "boolean": lambda value: type(value) is bool,
    "string": lambda value: type(value) is str,
    "number": lambda value: type(value) is int or (type(value) is float and math.isfinite(value)),
}


def _is_unstructured(annotation: Any) -> bool:
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if annotation is inspect.Parameter.empty:
        return True
    if any(annotation is plain for plain in _UNSTRUCTURED):
        return True
    origin = typing.get_origin(annotation)
    if origin in (list, dict, tuple, set, frozenset) and not typing.get_args(annotation):
        return True  # typing.List, typing.Dict, ... without parameters
    pathlib = sys.modules.get("pathlib")  # no path type exists before pathlib is imported
    return (
        pathlib is not None
        and isinstance(annotation, type)
        and issubclass(annotation, pathlib.PurePath)
        and not issubclass(annotation, enum.Enum)
    )


def schema_output_spec(schema: Mapping[str, Any]) -> OutputSpec:
    """An output spec for a hand-written schema, kept as given apart from inlined refs.

    check() validates with `jsonschema` (the `validation` extra) when it is installed.
    """
    given = copy.deepcopy(dict(schema))
    return OutputSpec(schema=inline_refs(given), _check=jsonschema_check(given, "output"))
