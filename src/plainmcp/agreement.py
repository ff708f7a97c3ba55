"""The warning for a ToolResult whose text and structured value say different things.

Such a result is legitimate, but some hosts hand their model only `structuredContent` and others
only `content` (the `reads` cell of plainmcp.hosts.profiles), so there one of the two is lost.
plainmcp says so once per tool, naming those hosts.

The text *agrees* with the value when the result has a text block and every text block is a copy
of the value: its JSON text as plainmcp writes it, any JSON document equal to it, or its summary
(the "summary" text mode). Anything else disagrees: a sentence about the value, the value plus a
sentence, a pointer, or no text at all. Only a ToolResult with both content and a structured value
is looked at (tools.py), and only until its tool has been warned about.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plainmcp.hosts import profiles
from plainmcp.model.blocks import ContentBlock, Text
from plainmcp.model.encoding import as_text
from plainmcp.model.options import ResultOptions
from plainmcp.model.summary import summarize

if TYPE_CHECKING:
    from plainmcp.hosts.profiles import HostProfile
    from plainmcp.tools import Tool

log = logging.getLogger("plainmcp")

_settled: weakref.WeakSet[Tool] = weakref.WeakSet()
"""Tools already found to disagree (warned about, or no host would lose anything)."""


def exempt(tool: Tool) -> None:
    """`tool`'s text and value differ by design (the continuation: its text adds the next
    call, which the value cannot carry): never warn about it."""
    _settled.add(tool)


def check(tool: Tool, content: Sequence[ContentBlock], raw: bytes, options: ResultOptions) -> None:
    """Warn, once per tool, when `content` does not agree with the structured JSON `raw`."""
    if tool in _settled or agrees(content, raw, options):
        return
    _settled.add(tool)
    message = warning(tool.name, profiles.PROFILES)
    if message is not None:
        log.warning("%s", message)


def agrees(content: Sequence[ContentBlock], raw: bytes, options: ResultOptions) -> bool:
    """Every text block of `content` (at least one) is a copy of the value `raw` holds."""
    texts = [b.text for b in content if isinstance(b, Text)]
    if not texts:
        return False
    copies = _Copies(raw, options)
    return all(copies.holds(text) for text in texts)


class _Copies:
    """The texts that copy one value, each worked out only when a comparison needs it."""

    def __init__(self, raw: bytes, options: ResultOptions) -> None:
        self.raw = raw
        self.options = options
        self._json: str | None = None
        self._value: Any = _UNREAD
        self._summary: str | None = None

    def holds(self, text: str) -> bool:
        if self._json is None:
            self._json = as_text(self.raw, self.options.json_indent)
        if text == self._json:
            return True
        try:
            # The stdlib: orjson reads integers wider than 64 bits as floats.
            document = json.loads(text)
        except ValueError:
            document = _UNREAD
        if document is not _UNREAD:
            if self._value is _UNREAD:
                self._value = json.loads(self.raw)
            if same(document, self._value):
                return True
        if self._summary is None:
            self._summary = summarize(self.raw, self.options.json_indent)
        return text == self._summary


_UNREAD: Any = object()


def same(a: Any, b: Any) -> bool:
    """JSON equality: objects whatever their key order, and `true` is not `1`."""
    if type(a) is not type(b):
        # 1 and 1.0 are the same JSON number; a bool is no number.
        numbers = (int, float)
        return (
            isinstance(a, numbers)
            and isinstance(b, numbers)
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and a == b
        )
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def one_channel(table: Sequence[HostProfile]) -> tuple[list[str], list[str]]:
    """The titles of the hosts that show the model only structuredContent, and of those that
    show only content, as the table's `reads` cells say (unknown cells count as neither)."""
    structured = [p.title for p in table if p.reads.value == "structured"]
    content = [p.title for p in table if p.reads.value == "content"]
    return structured, content


def warning(tool: str, table: Sequence[HostProfile]) -> str | None:
    """What is logged for a tool whose text and value disagree; None when no host in `table`
    would lose either of them."""
    structured, content = one_channel(table)
    if not structured and not content:
        return None
    losses = []
    if structured:
        losses.append(f"{_join(structured)} the model only structuredContent, not the text")
    if content:
        losses.append(
            f"{_join(content)} {'it ' if structured else 'the model '}only the text, not the value"
        )
    return (
        f"tool {tool!r} returned a ToolResult whose text is not a copy of its structured value:"
        f" {'; '.join(losses)}. plainmcp sends those hosts both in the content; a client it"
        " does not know may still show only one. Put every fact in both, or return the value"
        " alone and let"
        " text_fallback write the text (docs/results.md, 'Results that reach the model')."
        " Logged once per tool."
    )


def _join(names: Sequence[str]) -> str:
    """The hosts as the subject of "show": `A shows`, `A and B show`."""
    if len(names) == 1:
        return f"{names[0]} shows"
    return f"{', '.join(names[:-1])} and {names[-1]} show"
