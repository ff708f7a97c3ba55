"""Cutting a structured value at element boundaries, so that what is sent stays valid data.

A value over the structured limit is usually a list, or an object whose bulk is one list (rows,
results, items). Cutting that list after its n-th element keeps every other field, keeps the
schema's shape and lets a client rebuild the whole value by appending the remaining elements
(the continuation serves them). Sans-I/O and pure; the guard validates the cut against the
tool's output schema, and sends today's preview when no cut is valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson


class ItemCut(NamedTuple):
    """A cut value (a NamedTuple, not a dataclass: made at every start in a sixth of the time)."""

    path: str
    """Where the list is: "" for the value itself, else the name of the property holding it."""
    sent: int
    total: int
    value: Any
    """The value with its list cut to the first `sent` elements."""
    raw: bytes
    """Its compact JSON, within the limit."""


def cut_items(raw: bytes, limit: int, schema: Mapping[str, Any] | None) -> ItemCut | None:
    """The longest cut of the value's list whose JSON fits `limit` (counted in bytes, which is
    never less than characters), or None when the value has no list to cut, the rest of it does
    not fit alone, or the schema's `minItems` asks for more elements than fit."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # e.g. integers orjson cannot read: no exact rebuild, so no cut
    if orjson.dumps(value) != raw:
        return None  # the rebuilt value would not be the same JSON
    if isinstance(value, list):
        path, items, item_schema = "", value, schema
    elif isinstance(value, dict):
        lists = [(k, v) for k, v in value.items() if isinstance(v, list) and v]
        if not lists:
            return None
        path, items = max(lists, key=lambda kv: len(orjson.dumps(kv[1])))
        properties = (schema or {}).get("properties")
        item_schema = properties.get(path) if isinstance(properties, Mapping) else None
    else:
        return None
    sizes = [len(orjson.dumps(item)) for item in items]
    # The value with an empty list: its JSON minus the elements and their commas.
    used = len(raw) - sum(sizes) - (len(sizes) - 1)
    sent = 0
    for size in sizes:
        step = size + (1 if sent else 0)
        if used + step > limit:
            break
        used += step
        sent += 1
    least = item_schema.get("minItems", 0) if isinstance(item_schema, Mapping) else 0
    if used > limit or sent == len(items) or sent < least:
        return None
    cut: Any = items[:sent] if path == "" else {**value, path: items[:sent]}
    return ItemCut(path, sent, len(items), cut, orjson.dumps(cut))
