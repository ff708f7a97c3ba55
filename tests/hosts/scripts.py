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


def follow_continuation(first: ToolUse, name: Callable[[str], str] = str) -> Script:
    """Call `first`, then whatever tool each result's continuation sentence names, until a
    result has none. `name` turns the server's tool name into the host's (Claude Code's
    `mcp__SERVER__TOOL`)."""

    def script(results: Sequence[Sequence[Part]]) -> ToolUse | None:
        if not results:
            return first
        found = CONTINUATION.search(text_of(results[-1]))
        if found is None:
            return None
        return ToolUse(name(found.group(1)), json.loads(found.group(2)))

    return script
