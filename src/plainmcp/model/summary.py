"""The "summary" text mode: a short structural digest of a structured value, for hosts that read
only `content`, at a fraction of the tokens of its JSON.

One line per place in the value, breadth first, each starting with the place's path (`$` is the
value, `$.rows[0].id` a place in it): a scalar or a small container is written as compact JSON, a
larger container as what it is (`an object with 3 keys`, `an array of 10,000 objects`) followed
later by its first keys or items. The digest is deterministic and never longer than `LIMIT`
characters (nor than the value's JSON text, which is sent instead when it is shorter).
docs/results.md ("Results that reach the model") shows it; tests/test_summary.py pins it.

Sans-I/O and pure.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterator
from typing import Any

from plainmcp.model.encoding import as_text

LIMIT = 2000
"""Characters of a whole digest, header and closing line included."""
LINE = 200
"""Characters of one line; a longer one is cut, ending in `…`."""
INLINE = 100
"""A container whose compact JSON takes at most this many characters is written whole."""
STRING = 80
"""Characters of a longer string that are shown, followed by its length."""
KEYS = 10
"""Keys of an object that are shown (or named, where the object is not opened)."""
ITEMS = 3
"""Items of an array that are shown."""
DEPTH = 3
"""Containers this deep (the value is 0) are described, not opened."""
KEY = 40
"""Characters of a key in a path or a list of keys."""

CLOSING = "… (more in structuredContent)"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KINDS = {
    dict: ("object", "objects"),
    list: ("array", "arrays"),
    str: ("string", "strings"),
    bool: ("boolean", "booleans"),
    int: ("number", "numbers"),
    float: ("number", "numbers"),
    type(None): ("null", "nulls"),
}


def summarize(raw: bytes, indent: int | None = None) -> str:
    """The digest of the JSON `raw`, or its JSON text (as the "json" mode writes it, with
    `indent`) when that is not longer."""
    # The stdlib, not orjson: orjson reads integers wider than 64 bits as floats.
    value = json.loads(raw)
    chars = len(raw.decode())
    lines = [
        f"Summary of the structured result ({chars:,} characters of JSON in structuredContent):"
    ]
    used = len(lines[0])
    room = LIMIT - len(CLOSING) - 1
    for line in _lines(value):
        if used + 1 + len(line) > room:
            lines.append(CLOSING)
            break
        lines.append(line)
        used += 1 + len(line)
    digest = "\n".join(lines)
    # A text of n bytes has at least n/4 characters: only a short JSON text is worth writing.
    if len(raw) <= 4 * len(digest):
        whole = as_text(raw, indent)
        if len(whole) <= len(digest):
            return whole
    return digest


def _lines(value: Any) -> Iterator[str]:
    """Every line of the digest, in order, each at most LINE characters."""
    queue: deque[tuple[str, Any, int] | str] = deque([("$", value, 0)])
    while queue:
        item = queue.popleft()
        if isinstance(item, str):
            yield _fit(item)
            continue
        path, value, depth = item
        small = _compact(value, INLINE)
        if small is not None:
            yield _fit(f"{path}: {small}")
        elif isinstance(value, dict):
            yield _fit(f"{path}: {_object(value)}")
            if depth < DEPTH:
                keys = list(value)
                for key in keys[:KEYS]:
                    queue.append((path + _step(key), value[key], depth + 1))
                if len(keys) > KEYS:
                    rest = len(keys) - KEYS
                    queue.append(
                        f"{path}: … and {rest:,} more {_plural(rest, 'key', 'keys')}: "
                        + _names(keys[KEYS:])
                    )
        elif isinstance(value, list):
            kinds = _kinds(value)
            first = value[:ITEMS]
            if not any(isinstance(each, dict | list) for each in first):
                # Scalars read best on the array's own line.
                shown = ", ".join(_shown(each) for each in first)
                more = ", …" if len(value) > ITEMS else ""
                yield _fit(f"{path}: {_array(value, kinds)}: {shown}{more}")
                continue
            yield _fit(f"{path}: {_array(value, kinds)}")
            if depth < DEPTH:
                for index, each in enumerate(first):
                    queue.append((f"{path}[{index}]", each, depth + 1))
                if len(value) > ITEMS:
                    rest = len(value) - ITEMS
                    one, many = _KINDS[kinds[0][0]] if len(kinds) == 1 else ("item", "items")
                    queue.append(f"{path}: … and {rest:,} more {_plural(rest, one, many)}")
        else:
            yield _fit(f"{path}: {_shown(value)}")


def _shown(value: Any) -> str:
    """A scalar as the digest writes it: JSON, a long string cut to STRING characters."""
    if isinstance(value, str):
        small = _compact(value, INLINE)
        return small if small is not None else _long_string(value)
    return json.dumps(value)


def _fit(line: str) -> str:
    return line if len(line) <= LINE else line[: LINE - 1] + "…"


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def _object(value: dict[str, Any]) -> str:
    count = len(value)
    return f"an object with {count:,} {_plural(count, 'key', 'keys')}: {_names(list(value))}"


def _kinds(items: list[Any]) -> list[tuple[type, int]]:
    """The JSON kinds of `items` with their counts, in the order they first appear."""
    counts: dict[str, tuple[type, int]] = {}
    for each in items:
        cls = type(each)
        name = _KINDS[cls][0]
        seen = counts.get(name)
        counts[name] = (cls, 1) if seen is None else (seen[0], seen[1] + 1)
    return list(counts.values())


def _array(items: list[Any], kinds: list[tuple[type, int]]) -> str:
    count = len(items)
    if len(kinds) == 1:
        return f"an array of {count:,} {_plural(count, *_KINDS[kinds[0][0]])}"
    parts = ", ".join(f"{n:,} {_plural(n, *_KINDS[cls])}" for cls, n in kinds)
    return f"an array of {count:,} items ({parts})"


def _key(key: str) -> str:
    """A key as a path or a list names it: bare when it is a name, else as a JSON string."""
    if _NAME.fullmatch(key) and len(key) <= KEY:
        return key
    shown = key if len(key) <= KEY else key[:KEY] + "…"
    return json.dumps(shown, ensure_ascii=False)


def _step(key: str) -> str:
    named = _key(key)
    return f"[{named}]" if named.startswith('"') else f".{named}"


def _names(keys: list[str]) -> str:
    shown = ", ".join(_key(k) for k in keys[:KEYS])
    return shown + ", …" if len(keys) > KEYS else shown


def _long_string(text: str) -> str:
    return f"{json.dumps(text[:STRING] + '…', ensure_ascii=False)} ({len(text):,} characters)"


def _compact(value: Any, room: int) -> str | None:
    """Compact JSON of `value` when it takes at most `room` characters, else None; the work
    stops as soon as the room is used up, however large the value."""
    parts: list[str] = []
    if _write(value, room, parts) < 0:
        return None
    return "".join(parts)


def _write(value: Any, room: int, out: list[str]) -> int:
    """Append `value`'s compact JSON to `out`; the room left (0 counts as full, -1 as over)."""
    if isinstance(value, dict):
        room -= 1
        out.append("{")
        for index, (key, each) in enumerate(value.items()):
            if index:
                room -= 1
                out.append(",")
            room = _scalar(key, room, out)
            if room < 0:
                return -1
            room -= 1
            out.append(":")
            room = _write(each, room, out)
            if room < 0:
                return -1
        room -= 1
        out.append("}")
        return room if room >= 0 else -1
    if isinstance(value, list):
        room -= 1
        out.append("[")
        for index, each in enumerate(value):
            if index:
                room -= 1
                out.append(",")
            room = _write(each, room, out)
            if room < 0:
                return -1
        room -= 1
        out.append("]")
        return room if room >= 0 else -1
    return _scalar(value, room, out)


def _scalar(value: Any, room: int, out: list[str]) -> int:
    if isinstance(value, str) and len(value) > room:  # a JSON string is longer than its text
        return -1
    text = json.dumps(value, ensure_ascii=False)
    out.append(text)
    room -= len(text)
    return room if room >= 0 else -1
