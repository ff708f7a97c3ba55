"""Structured values as Python objects, following the tool's output schema.

An object schema with `properties` gives a frozen dataclass generated from the schema (one class
per schema, so two results of one tool compare equal), its fields the properties' names as
attributes; arrays and maps hydrate their members. What the schema does not describe stays the
JSON value it was: an object with keys its schema does not name stays a dict (nothing is lost),
and so does any value when there is no schema. `plain()` turns a hydrated value back into JSON.
"""

from __future__ import annotations

import dataclasses
import functools
import keyword
import re
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["hydrate", "plain"]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def hydrate(value: Any, schema: Mapping[str, Any] | None, name: str = "") -> Any:
    """`value` (JSON) with each object its schema describes as a generated dataclass, named
    by the schema's title, else by `name` (the tool's; a member's: its property's)."""
    if not isinstance(schema, Mapping):
        return value
    branch = _branch(value, schema)
    if branch is not schema:
        return hydrate(value, branch, name)
    if isinstance(value, list):
        items = schema.get("items")
        return [hydrate(item, items, name) for item in value]
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    extra = schema.get("additionalProperties")
    members = {
        key: hydrate(item, properties.get(key, extra if isinstance(extra, Mapping) else None), key)
        for key, item in value.items()
    }
    described = properties and members.keys() <= properties.keys()
    cls = _class_for(schema, name) if described else None
    if cls is None:
        return members
    names: Mapping[str, str] = cls.__plainmcp_names__  # type: ignore[attr-defined]
    return cls(**{names[key]: item for key, item in members.items()})


def plain(value: Any) -> Any:
    """A hydrated value back as JSON: dataclasses as objects under their wire names."""
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    names = getattr(type(value), "__plainmcp_names__", None)
    if names is None:
        return value
    return {
        wire: plain(getattr(value, attr))
        for wire, attr in names.items()
        if wire in value.__plainmcp_present__
    }


def _branch(value: Any, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The anyOf/oneOf/allOf member `value` is an instance of (by its JSON type and keys)."""
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list):
            fitting = [o for o in options if isinstance(o, Mapping) and _fits(value, o)]
            if key == "allOf" and len(options) != 1:
                return schema  # an intersection: no one member describes the value
            if fitting:
                return fitting[0]
    return schema


def _fits(value: Any, schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _JSON_TYPES:
        types = _JSON_TYPES[kind]
        if isinstance(value, bool) and bool not in types:
            return False
        if not isinstance(value, types):
            return False
    if isinstance(value, dict):
        required = schema.get("required")
        if isinstance(required, list) and not set(required) <= value.keys():
            return False
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and schema.get("additionalProperties") is False:
            return value.keys() <= properties.keys()
    return True


def _class_for(schema: Mapping[str, Any], name: str) -> type | None:
    title = schema.get("title")
    cls_name = _class_name(title if isinstance(title, str) else name)
    return _cached_class(orjson.dumps(schema, default=str), cls_name)  # key order: fields'


def _class_name(name: str) -> str:
    """ "first-name" -> FirstName; "Point" stays Point."""
    words = re.split(r"[\W_]+", name)
    cls_name = "".join(w[:1].upper() + w[1:] for w in words)
    return cls_name if cls_name.isidentifier() else "Structured"


@functools.lru_cache(maxsize=1024)
def _cached_class(schema_json: bytes, cls_name: str) -> type | None:
    """One class per schema (None: its property names cannot all be attributes); bounded, as
    a server may send any number of schemas."""
    schema = orjson.loads(schema_json)
    wire_names = list(schema["properties"])
    names = {wire: _attribute(wire) for wire in wire_names}
    if len(set(names.values())) < len(names):
        return None  # "a-b" and "a_b" would share one attribute
    fields = [(attr, Any, dataclasses.field(default=None)) for attr in names.values()]
    cls = dataclasses.make_dataclass(
        cls_name,
        [*fields, ("__plainmcp_present__", frozenset[str], _present_field())],
        frozen=True,
        kw_only=True,
        namespace={"__plainmcp_names__": names, "__doc__": schema.get("description")},
    )
    cls.__module__ = __name__
    original_init = cls.__init__  # type: ignore[misc]

    def __init__(self: Any, **kwargs: Any) -> None:
        if "__plainmcp_present__" not in kwargs:  # dataclasses.replace passes it on
            present = frozenset(wire for wire, attr in names.items() if attr in kwargs)
            kwargs["__plainmcp_present__"] = present
        original_init(self, **kwargs)

    cls.__init__ = __init__  # type: ignore[misc]
    return cls


def _present_field() -> Any:
    """Which wire keys the value had (absent and null both read as None)."""
    return dataclasses.field(default=frozenset(), repr=False, compare=False)


def _attribute(name: str) -> str:
    """A property name as an attribute name: "first-name" -> first_name, "class" -> class_."""
    attr = re.sub(r"\W", "_", name)
    if not attr or attr[0].isdigit():
        attr = "_" + attr
    return attr + "_" if keyword.iskeyword(attr) else attr
