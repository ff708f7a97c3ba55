"""The content blocks of a result within the text and binary limits: a text cut at a clean
boundary with a marker, text left out once the result is full, documents and binaries over a
limit stored and linked. Each block says what it holds (model/blocks: `sized_text`,
`sized_bytes`, `payload_what`); only Text, the block a cut makes, is named here."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from plainmcp.guards.offload import ASK_LESS, Offload
from plainmcp.model.blocks import ContentBlock, ResourceLink, Text
from plainmcp.model.truncate import TEXT_BOUNDARIES, cut, size

_NO_LIMIT = sys.maxsize

MIN_CUT = 600
"""Less room than this for a text block (marker included): leave it out rather than cut it."""

RESERVE = 500
"""Text characters kept free, while later text blocks exist, for the marker that lists the ones
left out, so the marker itself stays within the per-result ceiling."""


async def within_limits(
    o: Offload, blocks: tuple[ContentBlock, ...], taken: int = 0
) -> tuple[ContentBlock, ...]:
    """The blocks within the limits; `taken`: text budget the structured value uses."""
    limits = o.limits
    unit = o.unit
    text_block = limits.text_block or _NO_LIMIT
    text_left = (limits.text_result or _NO_LIMIT) - taken
    binary_block = limits.binary_block if limits.binary_block is not None else _NO_LIMIT
    binary_left = limits.binary_result if limits.binary_result is not None else _NO_LIMIT
    # Text still to come after each block, for the reserve.
    later = [0] * len(blocks)
    for i in range(len(blocks) - 2, -1, -1):
        after = blocks[i + 1]
        later[i] = later[i + 1] + (size(after.text, unit) if isinstance(after, Text) else 0)

    out: list[ContentBlock] = []
    dropped: list[str] = []
    omitted_at = -1
    changed = False
    for i, block in enumerate(blocks):
        position = i + 1
        if isinstance(block, Text):
            if omitted_at >= 0:
                dropped.append(block.text)
                continue
            length = size(block.text, unit)
            reserve = min(RESERVE, later[i]) if limits.text_result is not None else 0
            cap = min(text_block, text_left - reserve)
            if length <= cap:
                out.append(block)
                text_left -= length
                continue
            changed = True
            if cap < MIN_CUT:  # the result's text is used up: this and later text go
                omitted_at = len(out)
                dropped.append(block.text)
                continue
            cut = await cut_block(o, block, position, cap)
            out.extend(cut)
            text_left -= size(cut[0].text, unit) if isinstance(cut[0], Text) else 0
        elif (text := block.sized_text) is not None:  # a document: linked whole, never cut
            length = size(text, unit)
            reserve = min(RESERVE, later[i]) if limits.text_result is not None else 0
            cap = min(text_block, text_left - reserve)
            if length <= cap:
                out.append(block)
                text_left -= length
                continue
            changed = True
            replacement = await linked_text(o, block, text, position, cap)
            out.append(replacement)
            if isinstance(replacement, Text):
                text_left = max(0, text_left - size(replacement.text, unit))
        elif (data := block.sized_bytes) is not None:
            length = len(data)
            if length <= binary_block and length <= binary_left:
                out.append(block)
                binary_left -= length
                continue
            changed = True
            if length > binary_block:
                assert limits.binary_block is not None
                limit, scope = limits.binary_block, ""
            else:
                assert limits.binary_result is not None
                limit, scope = limits.binary_result, " per result"
            out.append(await binary(o, block, position, data, limit, scope))
        else:
            out.append(block)
    if dropped:
        out[omitted_at:omitted_at] = await omitted(o, dropped)
    return tuple(out) if changed else blocks


async def cut_block(o: Offload, block: Text, position: int, cap: int) -> list[ContentBlock]:
    """A text block cut to `cap` characters, marker included, and a link to all of it."""
    text = block.text
    raw = text.encode()
    uri = await o.offload(raw, "text/plain")
    total = len(text)

    def marker(kept: int) -> str:
        # The continuation starts where the kept text ends: kept + every part is the text.
        call = o.call(uri, kept)
        if uri is None:
            where = ASK_LESS
        elif call is None:
            where = f"The full text is at resource {uri}; read it with resources/read"
        else:
            where = (
                f"For the rest, {call} The full text is also at resource {uri}; read it"
                " with resources/read"
            )
        return f"\n…[truncated: showing {kept:,} of {total:,} characters. {where}]"

    out: list[ContentBlock] = [
        Text(
            cut(text, cap, marker, TEXT_BOUNDARIES, o.unit),
            annotations=block.annotations,
            meta=block.meta,
        )
    ]
    if uri:
        out.append(
            ResourceLink(
                uri=uri,
                name=f"text-{position}.txt",
                mime_type="text/plain",
                size=len(raw),
                description=(
                    f"The full text of the block cut above ({total:,} characters);"
                    f" stored for {o.kept_for}."
                ),
            )
        )
    return out


async def omitted(o: Offload, dropped: Sequence[str]) -> list[ContentBlock]:
    """One marker and one link for every text block left out once the result was full."""
    joined = "\n\n".join(dropped)
    raw = joined.encode()
    uri = await o.offload(raw, "text/plain")
    several = len(dropped) > 1
    count = f"{len(dropped)} more text block{'s' if several else ''}"
    chars = sum(len(t) for t in dropped)
    joined_by = ", joined by blank lines" if several else ""
    call = o.call(uri)
    also = " also" if call else ""
    where = (
        f"{'They are' if several else 'It is'}{also} at resource {uri}{joined_by};"
        " read it with resources/read"
        if uri
        else ASK_LESS
    )
    if call is not None:
        where = f"For {'them' if several else 'it'}, {call} {where}"
    out: list[ContentBlock] = [
        Text(
            f"[omitted: {count} ({chars:,} characters) over this result's limit of"
            f" {o.limits.text_result:,} characters. {where}]"
        )
    ]
    if uri:
        out.append(
            ResourceLink(
                uri=uri,
                name="omitted-text.txt",
                mime_type="text/plain",
                size=len(raw),
                description=(
                    f"{count[0].upper()}{count[1:]} left out of the result ({chars:,}"
                    f" characters){joined_by}; stored for {o.kept_for}."
                ),
            )
        )
    return out


async def linked_text(
    o: Offload, block: ContentBlock, text: str, position: int, cap: int
) -> ContentBlock:
    """A text resource too long to embed: linked whole (a document is not cut)."""
    size = len(text)
    raw = text.encode()
    mime_type = block.payload_type or "text/plain"
    uri = await o.offload(raw, mime_type)
    what = block.payload_what(f"{size:,} characters of {mime_type}")
    if uri is None:
        return Text(f"[omitted: {what}, over this server's inline limit. {ASK_LESS}]")
    return ResourceLink(
        uri=uri,
        name=block.payload_name(position, mime_type),
        mime_type=mime_type,
        size=len(raw),
        description=(
            f"{what[0].upper()}{what[1:]}, too large to send inline (room for {max(cap, 0):,}"
            f" characters); stored for {o.kept_for}; {o.read_it(uri)}"
        ),
        annotations=block.annotations,
    )


async def binary(
    o: Offload,
    block: ContentBlock,
    position: int,
    data: bytes,
    limit: int,
    scope: str,
) -> ContentBlock:
    """A binary block over the limit: a link to the stored bytes (or a note without them)."""
    mime_type = block.payload_type or "application/octet-stream"
    what = block.payload_what(mime_type)
    name = block.payload_name(position, mime_type)
    size = len(data)
    uri = await o.offload(data, mime_type)
    if uri is None:
        return Text(
            f"[omitted: {what} of {size:,} bytes, over this server's inline limit of"
            f" {limit:,} bytes{scope}. Ask for a smaller one]"
        )
    return ResourceLink(
        uri=uri,
        name=name,
        mime_type=mime_type,
        size=size,
        description=(
            f"{what[0].upper()}{what[1:]} of {size:,} bytes, too large to send inline"
            f" (limit {limit:,} bytes{scope}); stored for {o.kept_for};"
            f" {o.read_it(uri if scope else None)}"
        ),
        annotations=block.annotations,
    )
