"""What a scripted model decides, independent of the host that asks it.

A script sees the tool results the host has handed its model so far (each as a list of content
parts in the host's own shape, reduced to `Part`s by the host's harness) and returns the next
tool call, or None to end the turn. `follow_continuation` is the script of a model that reads the
continuation sentence plainmcp writes into a cut result (issue 13, item 3) and makes that call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

CONTINUATION = re.compile(r"call the tool ([A-Za-z0-9_.-]+) with arguments (\{[^\n]*?\})\.")
"""The one sentence every marker saying where the rest is contains (docs/results.md)."""


@dataclass(frozen=True)
class ToolUse:
    """One tool call the model asks for, by the name the host gave the tool."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Part:
    """One piece of a tool result as the model receives it: `kind` "text" with `text`, or
    "image" / "audio" / "binary" with `media_type` and `data` (bytes)."""

    kind: str
    text: str = ""
    media_type: str = ""
    data: bytes = b""


Script = Callable[[Sequence[Sequence[Part]]], ToolUse | None]
"""Results so far (one list of parts per earlier call, in order) -> the next call or None."""


def sequence(*calls: ToolUse) -> Script:
    """Make the calls one after another, one per turn, then end."""

    def script(results: Sequence[Sequence[Part]]) -> ToolUse | None:
        return calls[len(results)] if len(results) < len(calls) else None

    return script


def text_of(parts: Sequence[Part]) -> str:
    return "\n".join(p.text for p in parts if p.kind == "text")


def continued(parts: Sequence[Part]) -> ToolUse | None:
    """The call a result's continuation sentence names (by the server's tool name), or None."""
    found = CONTINUATION.search(text_of(parts))
    return None if found is None else ToolUse(found.group(1), json.loads(found.group(2)))


def follow_continuation(first: ToolUse, *more: ToolUse, name: Callable[[str], str] = str) -> Script:
    """Call `first`, then whatever tool each result's continuation sentence names, until a
    result has none; then the same from each of `more`. `name` turns the server's tool name
    into the host's (Claude Code's `mcp__SERVER__TOOL`)."""
    firsts = (first, *more)

    def script(results: Sequence[Sequence[Part]]) -> ToolUse | None:
        call, started = first, 1
        for parts in results:
            found = continued(parts)
            if found is not None:
                call = ToolUse(name(found.name), found.input)
            elif started < len(firsts):
                call, started = firsts[started], started + 1
            else:
                return None
        return call

    return script


def chains(results: Sequence[Sequence[Part]]) -> list[list[Sequence[Part]]]:
    """The results of a `follow_continuation` run, one list per first call (each ends with the
    first result that names no continuation)."""
    out: list[list[Sequence[Part]]] = [[]]
    for parts in results:
        out[-1].append(parts)
        if continued(parts) is None:
            out.append([])
    return out[:-1] if not out[-1] else out


TRUNCATED = "\n…[truncated: "
"""Where the marker of a cut text block begins (docs/results.md)."""


def rebuild_text(chain: Sequence[Sequence[Part]]) -> str:
    """The text a model rebuilds from a cut text and its parts: the first block up to its
    marker, then the first block of each part (docs/results.md, "Reading the rest")."""
    cut = chain[0][0].text
    return cut[: cut.rindex(TRUNCATED)] + "".join(parts[0].text for parts in chain[1:])


def rebuild_items(first: list[Any], chain: Sequence[Sequence[Part]]) -> list[Any]:
    """`first` (the rows of the cut result, as the host showed them) and the `items` of each
    part after it, in order; each part's first block is the JSON of {"items", "from", "total"}."""
    rows = list(first)
    for parts in chain[1:]:
        part = json.loads(parts[0].text)
        assert part["from"] == len(rows), (part["from"], len(rows))
        rows += part["items"]
    return rows
