"""Docstring parsing: a tool's description and per-parameter help, from the function's docstring.

Google, NumPy and reST/Sphinx styles are recognised, because real code mixes all three and a model
reads the parameter descriptions to decide what to send. Only the prose before the first section
becomes the description: Raises/Examples/Notes are for humans reading the source, not for the model.
Pure stdlib so that importing plainmcp stays fast.
"""

from __future__ import annotations

import inspect
import re
from typing import NamedTuple

__all__ = ["Docstring", "parse_docstring"]


class Docstring(NamedTuple):
    """What a docstring says about a callable (a NamedTuple, not a dataclass: made at every
    start in a sixth of the time)."""

    description: str
    params: dict[str, str]
    returns: str | None = None


# Google-style section names (matched case-insensitively, "Name:" alone on a line).
_PARAM_SECTIONS = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
        "other params",
    }
)
_RETURN_SECTIONS = frozenset({"returns", "return"})
_OTHER_SECTIONS = frozenset(
    {
        "raises",
        "raise",
        "exceptions",
        "except",
        "yields",
        "yield",
        "receives",
        "examples",
        "example",
        "notes",
        "note",
        "warns",
        "warning",
        "warnings",
        "see also",
        "references",
        "attributes",
        "methods",
        "todo",
        "tip",
        "hint",
        "important",
        "caution",
        "danger",
        "attention",
        "seealso",
    }
)
_KNOWN_SECTIONS = _PARAM_SECTIONS | _RETURN_SECTIONS | _OTHER_SECTIONS

_GOOGLE_HEADER = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*$")
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
# "name (type): text", "name: text", "*args: text"; the type may hold brackets and commas.
_GOOGLE_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_]\w*)\s*(?:\(([^)]*)\))?\s*:(?:\s+(.*))?$")
# "name : type", "name", "x, y : float"
_NUMPY_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::\s*(.*))?$")
# ":param name: text", ":param int name: text", ":returns: text", ":raises ValueError: text"
_REST_FIELD = re.compile(r"^:([A-Za-z]+)((?:\s+[^:]+)?)\s*:(?:\s+(.*))?$")
_REST_PARAM_KINDS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_REST_RETURN_KINDS = frozenset({"returns", "return"})
# A leading "type:" on a Google Returns body ("int: The sum."); one token, no spaces outside [].
_RETURN_TYPE_PREFIX = re.compile(
    r"^[A-Za-z_][\w.]*(?:\[[^\]]*\])?(?:\s*\|\s*[A-Za-z_][\w.]*(?:\[[^\]]*\])?)*\s*:\s+"
)


def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into description, parameter descriptions and the returns text."""
    if doc is None or not doc.strip():
        return Docstring("", {})
    lines = inspect.cleandoc(doc).splitlines()
    start = _first_section(lines)
    description = "\n".join(lines[:start]).strip()
    params: dict[str, str] = {}
    returns: str | None = None
    i = start
    while i < len(lines):
        line = lines[i]
        if _is_numpy_header(lines, i):
            name = line.strip().lower()
            body, i = _numpy_body(lines, i + 2)
            if name in _PARAM_SECTIONS:
                params.update(_numpy_params(body))
            elif name in _RETURN_SECTIONS and returns is None:
                returns = _numpy_returns(body)
            continue
        header = _google_header(line)
        if header is not None:
            body, i = _google_body(lines, i)
            if header in _PARAM_SECTIONS:
                params.update(_google_params(body))
            elif header in _RETURN_SECTIONS and returns is None:
                text = _join(body)
                returns = _RETURN_TYPE_PREFIX.sub("", text, count=1) or None
            continue
        match = _REST_FIELD.match(line.strip())
        if match is not None:
            body, i = _rest_body(lines, i)
            kind = match.group(1).lower()
            target = match.group(2).split()
            text = _join([match.group(3) or "", *body])
            if kind in _REST_PARAM_KINDS and target:
                params[target[-1].lstrip("*")] = text
            elif kind in _REST_RETURN_KINDS and returns is None:
                returns = text or None
            continue
        i += 1
    return Docstring(description=description, params=params, returns=returns)


def _first_section(lines: list[str]) -> int:
    for i, line in enumerate(lines):
        if (
            _is_numpy_header(lines, i)
            or _google_header(line) is not None
            or _REST_FIELD.match(line.strip())
        ):
            return i
    return len(lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(" ".join(part.split()) for part in parts if part.strip())


def _google_header(line: str) -> str | None:
    match = _GOOGLE_HEADER.match(line)
    if match is None:
        return None
    name = match.group(1).lower()
    return name if name in _KNOWN_SECTIONS else None


def _is_numpy_header(lines: list[str], i: int) -> bool:
    """A non-empty line underlined with dashes; any title counts, so unknown ones don't leak."""
    return (
        i + 1 < len(lines)
        and bool(lines[i].strip())
        and not lines[i].strip().startswith(":")
        and _NUMPY_UNDERLINE.match(lines[i + 1]) is not None
    )


def _is_boundary(lines: list[str], i: int) -> bool:
    line = lines[i]
    return _is_numpy_header(lines, i) or (
        _indent(line) == 0
        and (_google_header(line) is not None or _REST_FIELD.match(line) is not None)
    )


def _google_body(lines: list[str], header_at: int) -> tuple[list[str], int]:
    """Lines under a Google header: indented deeper than it, or (lenient) flush until a blank."""
    base = _indent(lines[header_at])
    body: list[str] = []
    i = header_at + 1
    indented = i < len(lines) and lines[i].strip() != "" and _indent(lines[i]) > base
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            if not indented:
                break
            body.append("")
            i += 1
            continue
        if indented and _indent(line) <= base:
            break
        if not indented and _is_boundary(lines, i):
            break
        body.append(line)
        i += 1
    while body and not body[-1]:
        body.pop()
    return _dedent(body), i


def _numpy_body(lines: list[str], i: int) -> tuple[list[str], int]:
    body: list[str] = []
    while i < len(lines) and not _is_numpy_header(lines, i):
        if not lines[i].strip() or _indent(lines[i]) > 0 or not _is_boundary(lines, i):
            body.append(lines[i])
            i += 1
        else:
            break
    while body and not body[-1].strip():
        body.pop()
    return _dedent(body), i


def _rest_body(lines: list[str], i: int) -> tuple[list[str], int]:
    """Continuation lines of a reST field: anything until the next field or section."""
    base = _indent(lines[i])
    body: list[str] = []
    i += 1
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if (
            stripped
            and _indent(line) <= base
            and (_REST_FIELD.match(stripped) or _is_boundary(lines, i))
        ):
            break
        body.append(line)
        i += 1
    return body, i


def _dedent(body: list[str]) -> list[str]:
    indents = [_indent(line) for line in body if line.strip()]
    cut = min(indents, default=0)
    return [line[cut:] if line.strip() else "" for line in body]


def _google_params(body: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current: str | None = None
    parts: list[str] = []
    for line in body:
        match = _GOOGLE_ENTRY.match(line) if line and _indent(line) == 0 else None
        if match is not None:
            if current is not None:
                params[current] = _join(parts)
            current = match.group(1).lstrip("*")
            parts = [match.group(3) or ""]
        elif current is not None:
            parts.append(line)
    if current is not None:
        params[current] = _join(parts)
    return params


def _numpy_params(body: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    names: list[str] = []
    parts: list[str] = []

    def flush() -> None:
        for name in names:
            params[name] = _join(parts)

    for line in body:
        match = _NUMPY_ENTRY.match(line) if line and _indent(line) == 0 else None
        if match is not None:
            flush()
            names = [n.strip().lstrip("*") for n in match.group(1).split(",")]
            parts = []
        elif names:
            parts.append(line)
    flush()
    return params


def _numpy_returns(body: list[str]) -> str | None:
    """NumPy returns: 'type' or 'name : type' lines with indented descriptions under them."""
    described = [line for line in body if line.strip() and _indent(line) > 0]
    if described:
        return _join(described)
    return _join(body) or None
