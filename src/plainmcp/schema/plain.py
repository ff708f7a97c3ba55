"""Schemas and checks for plain types, without pydantic: start-up without its import.

Covers int, float, str, bool, None, Any, `X | None`, unions of types with disjoint JSON types,
Literal, Enum, list[T], dict[str, T] and Annotated[T, "description"]. Every schema and every
error is pydantic's own, byte for byte (tests/schema/test_plain.py compares both over a corpus);
a type outside the subset gets None here and takes pydantic. A value the check cannot settle
the way pydantic would (NaN, a tuple, 1.0 for an int-valued Literal) raises Unsure, and the
caller asks pydantic for that value.
"""

from __future__ import annotations

import enum
import inspect
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, NamedTuple, Union

from plainmcp.schema.errors import ArgumentError, FieldError
from plainmcp.schema.validation import json_repr

Path = tuple[str | int, ...]
Check = Callable[[Any, Path, list[FieldError]], Any]


class Unsure(Exception):
    """This value is for pydantic to judge (it is not plain JSON, or pydantic's rule is odd)."""


_BAD: Any = object()
_NO_DEFAULT: Any = object()
_I64 = 2**63
_EMPTY: Any = inspect.Parameter.empty


class Node(NamedTuple):
    """One type: its schema (before pydantic's key sort), its check, and how unions name it.

    Node and Param are NamedTuples, not dataclasses: made at every start in a sixth of the
    time."""

    schema: dict[str, Any]
    check: Check
    kinds: frozenset[type]
    """The JSON value types it can accept; union members must not share any."""
    tag: str | None = None
    """pydantic's name for it in a union's error paths; None keeps it out of unions."""
    is_ref: bool = False
    """An Enum class: pydantic writes it as a `$ref`, so a field's keywords come after it."""


def _fail(errors: list[FieldError], path: Path, message: str, value: Any) -> Any:
    if not _is_json(value):
        raise Unsure
    errors.append(FieldError(".".join(map(str, path)), f"{message}, got {json_repr(value)}"))
    return _BAD


def _is_json(value: Any) -> bool:
    """Is this what JSON decodes to, with nothing pydantic would see differently (NaN, tuples)?"""
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    if kind in (str, int, bool) or value is None:
        return True
    if kind is list:
        return all(map(_is_json, value))
    if kind is dict:
        return all(type(k) is str for k in value) and all(map(_is_json, value.values()))
    return False


def _scalar(kind: type, json_type: str, message: str) -> Node:
    def check(value: Any, path: Path, errors: list[FieldError]) -> Any:
        if type(value) is kind:
            return value
        return _fail(errors, path, message, value)

    return Node({"type": json_type}, check, frozenset({kind}), kind.__name__)


def _check_float(value: Any, path: Path, errors: list[FieldError]) -> Any:
    kind = type(value)
    if kind is float:
        if math.isfinite(value):
            return value
        raise Unsure
    if kind is int:
        if -_I64 <= value < _I64:
            return float(value)
        raise Unsure  # how pydantic rounds a wide integer is its own affair
    return _fail(errors, path, "Input should be a valid number", value)


def _check_any(value: Any, path: Path, errors: list[FieldError]) -> Any:
    if _is_json(value):
        return value
    raise Unsure


def _check_none(value: Any, path: Path, errors: list[FieldError]) -> Any:
    if value is None:
        return None
    return _fail(errors, path, "Input should be null", value)


_INT = _scalar(int, "integer", "Input should be a valid integer")
_STR = _scalar(str, "string", "Input should be a valid string")
_BOOL = _scalar(bool, "boolean", "Input should be a valid boolean")
_FLOAT = Node({"type": "number"}, _check_float, frozenset({int, float}), "float")
_ANY = Node({}, _check_any, frozenset({str, int, float, bool, list, dict, type(None)}), "any")
_NONE = Node({"type": "null"}, _check_none, frozenset({type(None)}))
_SIMPLE: dict[Any, Node] = {int: _INT, float: _FLOAT, str: _STR, bool: _BOOL, Any: _ANY}


def node(annotation: Any) -> Node | None:
    """The plain node of a type, or None when pydantic must handle it."""
    simple = _SIMPLE.get(annotation) if isinstance(annotation, typing.Hashable) else None
    if simple is not None:
        return simple
    if annotation is None or annotation is type(None):
        return _NONE
    if annotation is list:
        return _list(_ANY)
    if annotation is dict:
        return _dict(_ANY)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _enum(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is list and len(args) == 1:
        item = node(args[0])
        return None if item is None else _list(item)
    if origin is dict and len(args) == 2 and args[0] is str:
        value = node(args[1])
        return None if value is None else _dict(value)
    if origin is Literal:
        return _literal(args)
    if origin is Union or origin is types.UnionType:
        return _union(args)
    return None


def _list(item: Node) -> Node:
    tag = None if item.tag is None else f"list[{item.tag}]"

    def check(value: Any, path: Path, errors: list[FieldError]) -> Any:
        if type(value) is not list:
            return _fail(errors, path, "Input should be a valid array", value)
        out = [item.check(member, (*path, i), errors) for i, member in enumerate(value)]
        return _BAD if _BAD in out else out

    return Node({"items": item.schema, "type": "array"}, check, frozenset({list}), tag)


def _dict(value_node: Node) -> Node:
    tag = None if value_node.tag is None else f"dict[str,{value_node.tag}]"
    members: Any = True if value_node is _ANY else value_node.schema

    def check(value: Any, path: Path, errors: list[FieldError]) -> Any:
        if type(value) is not dict:
            return _fail(errors, path, "Input should be an object", value)
        out = {}
        bad = False
        for key, member in value.items():
            if type(key) is not str:
                raise Unsure
            result = value_node.check(member, (*path, key), errors)
            bad = bad or result is _BAD
            out[key] = result
        return _BAD if bad else out

    schema = {"additionalProperties": members, "type": "object"}
    return Node(schema, check, frozenset({dict}), tag)


def _expected(values: Sequence[Any]) -> str:
    reprs = [repr(v) for v in values]
    if len(reprs) == 1:
        return f"Input should be {reprs[0]}"
    return f"Input should be {', '.join(reprs[:-1])} or {reprs[-1]}"


def _choice_check(
    choices: Mapping[tuple[type, Any], Any], values: Sequence[Any], message: str
) -> Check:
    """Exact matches by JSON type and value; a number equal to a choice of another type (1.0,
    True for 1) is pydantic's to judge."""
    numbers = [v for v in values if type(v) in (int, bool)]

    def check(value: Any, path: Path, errors: list[FieldError]) -> Any:
        kind = type(value)
        plain_kind = kind in (str, int, bool) or value is None
        found = choices.get((kind, value), _BAD) if plain_kind else _BAD
        if found is not _BAD:
            return found
        if kind in (int, float, bool) and any(value == n for n in numbers):
            raise Unsure
        if kind is int and numbers and not -_I64 <= value < _I64:
            raise Unsure  # pydantic reads it as a wide integer first
        return _fail(errors, path, message, value)

    return check


def _literal(args: tuple[Any, ...]) -> Node | None:
    if not args or any(type(v) not in (str, int, bool) and v is not None for v in args):
        return None
    choices = {(type(v), v): v for v in args}
    if len(choices) != len(args):
        return None
    schema: dict[str, Any] = {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    kinds = {type(v) for v in args}
    named = {str: "string", int: "integer", bool: "boolean", type(None): "null"}
    if len(kinds) == 1:
        schema["type"] = named[kinds.pop()]
    check = _choice_check(choices, args, _expected(args))
    return Node(schema, check, frozenset({type(v) for v in args}))


def _enum(cls: type[enum.Enum]) -> Node | None:
    members = list(cls)
    values = [m.value for m in members]
    if (
        not members
        or issubclass(cls, enum.Flag)
        or cls.__doc__  # pydantic describes the enum with it
        or cls.__name__ in ("default", "properties")  # pydantic leaves those $defs unsorted
        or len(cls.__members__) != len(members)  # aliases
        or any(type(v) not in (str, int) for v in values)
        or len({(type(v), v) for v in values}) != len(values)
    ):
        return None
    schema: dict[str, Any] = {"enum": values}
    if issubclass(cls, str) or all(type(v) is str for v in values):
        schema["type"] = "string"
    elif issubclass(cls, int) or all(type(v) is int for v in values):
        schema["type"] = "integer"
    choices = {(type(m.value), m.value): m for m in members}
    check = _choice_check(choices, values, _expected(values))
    return Node(schema, check, frozenset({type(v) for v in values}), is_ref=True)


def _union(args: tuple[Any, ...]) -> Node | None:
    nullable = type(None) in args
    members = [a for a in args if a is not type(None)]
    nodes = [node(a) for a in members]
    if not nodes or any(n is None for n in nodes):
        return None
    plain = [n for n in nodes if n is not None]
    inner = plain[0] if len(plain) == 1 else _disjoint_union(plain)
    if inner is None:
        return None
    if not nullable:
        return inner
    if _ANY in plain or _NONE in plain:
        return None
    return _nullable(inner)


def _disjoint_union(members: list[Node]) -> Node | None:
    seen: set[type] = set()
    for member in members:
        if member.tag is None or member is _ANY or seen & member.kinds:
            return None
        seen |= member.kinds
    tags = [(m.check, m.tag or "") for m in members]

    def check(value: Any, path: Path, errors: list[FieldError]) -> Any:
        found: list[FieldError] = []
        for member_check, tag in tags:
            mine: list[FieldError] = []
            result = member_check(value, (*path, tag), mine)
            if result is not _BAD:
                return result
            found += mine
        errors += found
        return _BAD

    schema = {"anyOf": [m.schema for m in members]}
    return Node(schema, check, frozenset(seen))


def _nullable(inner: Node) -> Node:
    inner_check = inner.check

    def check(value: Any, path: Path, errors: list[FieldError]) -> Any:
        return None if value is None else inner_check(value, path, errors)

    anyof = inner.schema["anyOf"] if list(inner.schema) == ["anyOf"] else [inner.schema]
    schema = {"anyOf": [*anyof, {"type": "null"}]}
    return Node(schema, check, inner.kinds | {type(None)})


def sort_keys(value: Any, parent: str | None = None) -> Any:
    """pydantic's key order: sorted, except directly under "properties" and "default"."""
    if isinstance(value, dict):
        keys = value if parent in ("properties", "default") else sorted(value)
        return {key: sort_keys(value[key], key) for key in keys}
    if isinstance(value, list):
        return [sort_keys(item, parent) for item in value]
    return value


def json_default(value: Any) -> Any:
    """A default as pydantic writes it into a schema, or _NO_DEFAULT when unsure."""
    if isinstance(value, enum.Enum):
        value = value.value
        return value if type(value) in (str, int) else _NO_DEFAULT
    return value if _is_json(value) else _NO_DEFAULT


def output_node(annotation: Any) -> tuple[dict[str, Any], Check] | None:
    """The output schema of a return annotation and its check, when plain."""
    while typing.get_origin(annotation) is Annotated:
        base, *metadata = typing.get_args(annotation)
        if not all(isinstance(m, str) for m in metadata):
            return None
        annotation = base
    found = node(annotation)
    if found is None:
        return None
    return sort_keys(found.schema), found.check


class Param(NamedTuple):
    """One parameter as the signature gives it (annotation resolved, `empty` for none)."""

    name: str
    annotation: Any
    default: Any


def field(param: Param, docs: Mapping[str, str]) -> tuple[dict[str, Any], Check] | None:
    """One argument's schema and check, when plain."""
    if param.name in ("default", "properties"):  # pydantic leaves their keys unsorted
        return None
    annotation, description = param.annotation, None
    if annotation is _EMPTY:
        annotation = Any
    if typing.get_origin(annotation) is Annotated:
        base, *metadata = typing.get_args(annotation)
        if not all(isinstance(m, str) for m in metadata):
            return None
        annotation, description = base, metadata[0]
    found = node(annotation)
    if found is None:
        return None
    if description is None:
        description = docs.get(param.name)
    extra: dict[str, Any] = {}
    if param.default is not _EMPTY:
        default = json_default(param.default)
        if default is _NO_DEFAULT:
            return None
        extra["default"] = default
    if description is not None:
        extra["description"] = description
    if found.is_ref:
        schema = {**sort_keys(found.schema, "$defs"), **sort_keys(extra, param.name)}
    else:
        schema = sort_keys({**found.schema, **extra}, param.name)
    return schema, found.check


def plain_fields(
    params: Sequence[Param], docs: Mapping[str, str]
) -> tuple[dict[str, Any], Callable[[dict[str, Any]], dict[str, Any]]] | None:
    """The input schema and validator of plain parameters; None when one is not plain.

    The validator raises Unsure for a value pydantic must judge, and returns the keyword
    arguments or raises the ArgumentError pydantic would.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    checks: list[tuple[str, Path, Check, bool]] = []
    for param in params:
        built = field(param, docs)
        if built is None:
            return None
        schema, check = built
        properties[param.name] = schema
        needed = param.default is _EMPTY
        if needed:
            required.append(param.name)
        checks.append((param.name, (param.name,), check, needed))
    root: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        root["required"] = required
    root["additionalProperties"] = False
    return root, _validator(checks)


def _validator(
    checks: list[tuple[str, Path, Check, bool]],
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    accepted = frozenset(name for name, *_ in checks)
    compiled = tuple(checks)

    def validate(arguments: dict[str, Any]) -> dict[str, Any]:
        errors: list[FieldError] = []
        out: dict[str, Any] = {}
        for name, path, check, needed in compiled:
            if name in arguments:
                out[name] = check(arguments[name], path, errors)
            elif needed:
                errors.append(FieldError(name, "Field required"))
        if len(out) != len(arguments):
            for key in arguments:
                if key not in accepted:
                    if not _is_json(arguments[key]) or type(key) is not str:
                        raise Unsure
                    errors.append(FieldError(str(key), "Unexpected argument"))
        if errors:
            raise ArgumentError(errors)
        return out

    return validate
