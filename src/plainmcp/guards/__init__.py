"""Payload guards: keep one tool result within what a host can take, and lose nothing.

MCP puts no bound on a result, so one call can flood the model's context or break a host's framing.
`guard` applies the Server's PayloadLimits to a CallResult: text is cut at a clean boundary with a
marker that says how much was cut and where the rest is; binaries over the limit are not inlined.
What is cut or left out goes to a BlobStore and is linked (a `resource_link` to
`plainmcp://blob/<key>`), which `resources/read` serves until its TTL runs out.

The steps are apart: blocks.py (content blocks within the limits), structured.py (a structured
value cut or previewed), offload.py (what is stored and how markers say where). Sans-I/O apart
from the store calls. docs/results.md ("Payload guards") shows every text written
here; tests/test_guards.py checks them.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING

from plainmcp.guards.blocks import MIN_CUT, RESERVE, within_limits
from plainmcp.guards.follow import PARTIAL
from plainmcp.guards.offload import ASK_LESS, Offload, duration
from plainmcp.guards.structured import SHARED_RESERVE, items_cut, preview, shared_limit, valid_cut
from plainmcp.model.blocks import ContentBlock, Text
from plainmcp.model.options import PayloadLimits
from plainmcp.model.truncate import PLAIN, Counting, size
from plainmcp.store import BlobStore

if TYPE_CHECKING:
    from collections.abc import Sequence

    from plainmcp.guards.follow import Follow
    from plainmcp.model.results import CallResult
    from plainmcp.schema import OutputSpec

__all__ = ["ASK_LESS", "MIN_CUT", "RESERVE", "SHARED_RESERVE", "duration", "fits", "guard"]

_NO_LIMIT = sys.maxsize


async def guard(
    result: CallResult,
    limits: PayloadLimits,
    store: BlobStore,
    *,
    structured_required: bool = False,
    output: OutputSpec | None = None,
    follow: Follow | None = None,
    counting: Counting = PLAIN,
) -> CallResult:
    """`result` within `limits`; the same object when it already fits (the common case).

    An oversized structured value that is a list, or an object whose bulk is one list, is cut
    after the last element that fits (valid against `output`, the tool's output schema, when it
    has one). `structured_required`: the tool has an output schema, so a result without
    structuredContent must be an error; a value that cannot be cut then makes the result isError
    (with a preview and a link to the full JSON), as clients reject a successful result that
    lacks it. `follow`: the continuation, named in every marker while the rest is stored.
    `counting`: how the host counts (budget.counting); the server's own limits count characters.
    """
    if fits(result, limits, counting):
        return result
    required = structured_required or output is not None
    return await _apply(Offload(limits, store, follow, counting), result, required, output)


def fits(result: CallResult, limits: PayloadLimits, counting: Counting = PLAIN) -> bool:
    """One pass over the sizes, no copies: True when no limit is reached."""
    structured = result.structured_json
    unit = counting.unit
    # Bytes >= every unit, so a longer byte string only means a closer look.
    if (
        structured is not None
        and limits.structured is not None
        and len(structured) > limits.structured
        and size(structured.decode(), unit) > limits.structured
    ):
        return False
    text_block = limits.text_block or _NO_LIMIT
    text_left = limits.text_result or _NO_LIMIT
    if counting.shared and structured is not None and not _mirrored(result.content, structured):
        text_left -= size(structured.decode(), unit)
    binary_block = limits.binary_block if limits.binary_block is not None else _NO_LIMIT
    binary_left = limits.binary_result if limits.binary_result is not None else _NO_LIMIT
    for block in result.content:
        text = block.sized_text
        if text is not None:
            length = size(text, unit)
            if length > text_block or length > text_left:
                return False
            text_left -= length
            continue
        data = block.sized_bytes
        if data is not None:
            length = len(data)
            if length > binary_block or length > binary_left:
                return False
            binary_left -= length
    return True


async def _apply(
    o: Offload, result: CallResult, structured_required: bool, output: OutputSpec | None
) -> CallResult:
    """The slow path: one result that reaches a limit."""
    content = result.content
    structured = result.structured_json
    is_error = result.is_error
    meta = result.meta
    lifted = result.lifted
    limit = o.limits.structured
    shared = o.shared and structured is not None and not _mirrored(content, structured)
    if shared and o.limits.text_result is not None:
        limit = shared_limit(o, content, limit)
    if structured is not None and limit is not None and len(structured) > limit:
        text = structured.decode()
        if size(text, o.unit) > limit:
            items = None if is_error else valid_cut(structured, limit, output)
            if items is not None:
                cut, partial = await items_cut(o, items, structured, limit)
                own = bool(content) and not lifted
                content = (*content, *cut)
                lifted = not own
                structured = items.raw
                meta = {**(meta or {}), PARTIAL: partial}
            else:
                content = await preview(o, text, structured, limit, content, lifted)
                structured = None
                is_error = is_error or structured_required
    taken = 0
    if shared and structured is not None:
        taken = size(structured.decode(), o.unit)
    content = await within_limits(o, content, taken)
    if content is result.content and structured is result.structured_json:
        return result
    return dataclasses.replace(
        result,
        content=content,
        structured_json=structured,
        is_error=is_error,
        meta=meta,
        lifted=lifted and structured is not None,
    )


def _mirrored(content: Sequence[ContentBlock], structured: bytes) -> bool:
    """A text block already carries the value's JSON (read_more's items parts do), so a host
    shown both counts it once."""
    raw = structured.decode()
    return any(isinstance(b, Text) and b.text == raw for b in content)
