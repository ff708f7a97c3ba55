"""A structured value over its limit: cut after the last element that fits (still valid against
the tool's output schema), or sent as a preview with a link to the full JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.guards.offload import ASK_LESS, Offload
from plainmcp.item_cuts import ItemCut, cut_items
from plainmcp.model.blocks import ContentBlock, Text
from plainmcp.model.truncate import JSON_BOUNDARIES, cut, size
from plainmcp.schema import OutputMismatch

if TYPE_CHECKING:
    from plainmcp.schema import OutputSpec

SHARED_RESERVE = 1000
"""Where a host shows the structured value as text beside the tool's text (Counting.shared):
room kept for the markers and links a cut adds."""


def shared_limit(o: Offload, content: tuple[ContentBlock, ...], limit: int | None) -> int:
    """The structured value's room where it shares the text's budget: what the content's
    text leaves, but never less than half of it (the text is then cut to the rest)."""
    assert o.limits.text_result is not None
    whole = o.limits.text_result
    text = sum(size(b.text, o.unit) for b in content if isinstance(b, Text))
    room = max(whole - text - SHARED_RESERVE, whole // 2)
    return room if limit is None else min(limit, room)


async def items_cut(
    o: Offload, items: ItemCut, raw: bytes, limit: int
) -> tuple[tuple[ContentBlock, ...], dict[str, Any]]:
    """The marker (and link) of a value cut at an element boundary, and its `_meta`."""
    uri = await o.offload(raw, "application/json")
    call = o.call(uri, items.sent, items.path)
    if uri is None:
        where = ASK_LESS
    elif call is None:
        where = f"The full JSON is at resource {uri}; read it with resources/read"
    else:
        where = (
            f"For the next items, {call} The full JSON is also at resource {uri}; read it"
            " with resources/read"
        )
    holder = "the result" if items.path == "" else f'"{items.path}"'
    marker = Text(
        f"[partial: {holder} holds the first {items.sent:,} of {items.total:,} items; the"
        f" whole value is over this server's limit of {limit:,} characters. {where}]"
    )
    partial: dict[str, Any] = {"path": items.path, "sent": items.sent, "total": items.total}
    if uri is not None:
        following = o.next_call(uri, items.sent, items.path)
        if following is not None:
            partial["next"] = following
        return (marker, o.json_link(uri, raw)), partial
    return (marker,), partial


async def preview(
    o: Offload,
    text: str,
    raw: bytes,
    limit: int,
    content: tuple[ContentBlock, ...],
    lifted: bool = False,
) -> tuple[ContentBlock, ...]:
    """Too large for structuredContent: a preview (or a note) and a link to the full JSON.

    `lifted`: `content` holds blocks lifted out of the value, which follow the preview (their
    references count from 2) rather than being the tool's own text.
    """
    uri = await o.offload(raw, "application/json")
    total = len(text)
    link: tuple[ContentBlock, ...] = (o.json_link(uri, raw),) if uri else ()

    def where(at: int, rest: str) -> str:
        call = o.call(uri, at)
        if uri is None:
            return ASK_LESS
        also = f"{rest}, {call} The full JSON is also" if call else "The full JSON is"
        return f"{also} at resource {uri}; read it with resources/read"

    if content and not lifted:  # the tool wrote its own text; say what is missing
        note = Text(
            f"[structuredContent left out: the structured result is {total:,} characters of"
            f" JSON, over this server's limit of {limit:,} characters. {where(0, 'For it')}]"
        )
        return (*content, note, *link)

    def marker(kept: int) -> str:
        return (
            f"\n…[truncated: showing {kept:,} of {total:,} characters of JSON. The structured"
            f" result is over this server's limit of {limit:,} characters, so this preview is"
            f" sent instead of structuredContent. {where(kept, 'For the rest of the JSON')}]"
        )

    caps = (o.limits.text_block, o.limits.text_result, limit)
    cap = min(c for c in caps if c is not None)
    return (Text(cut(text, cap, marker, JSON_BOUNDARIES, o.unit)), *content, *link)


def valid_cut(raw: bytes, limit: int, output: OutputSpec | None) -> ItemCut | None:
    """A cut at an element boundary that the tool's output schema accepts, if there is one."""
    items = cut_items(raw, limit, output.schema if output is not None else None)
    if items is None or output is None:
        return items
    try:
        output.check_json(items.raw, items.value)
    except OutputMismatch:
        return None
    return items
