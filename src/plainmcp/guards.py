"""Payload guards: keep one tool result within what a host can take, and lose nothing.

MCP puts no bound on a result, so one call can flood the model's context or break a host's framing.
`guard` applies the Server's PayloadLimits to a CallResult: text is cut at a clean boundary with a
marker that says how much was cut and where the rest is; binaries over the limit are not inlined.
What is cut or left out goes to a BlobStore and is linked (a `resource_link` to
`plainmcp://blob/<key>`), which `resources/read` serves until its TTL runs out.

Sans-I/O apart from the store calls. docs/results.md ("Payload guards") shows every text written
here; tests/test_guards.py checks them.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plainmcp.continuation import PARTIAL
from plainmcp.item_cuts import ItemCut, cut_items
from plainmcp.model.blocks import Audio, ContentBlock, EmbeddedResource, Image, ResourceLink, Text
from plainmcp.model.options import PayloadLimits
from plainmcp.model.truncate import JSON_BOUNDARIES, PLAIN, TEXT_BOUNDARIES, Counting, cut, size
from plainmcp.schema import OutputMismatch
from plainmcp.store import BlobStore, blob_key, blob_uri

if TYPE_CHECKING:
    from plainmcp.continuation import Follow
    from plainmcp.model.results import CallResult
    from plainmcp.schema import OutputSpec

log = logging.getLogger("plainmcp")

_NO_LIMIT = sys.maxsize

MIN_CUT = 600
"""Less room than this for a text block (marker included): leave it out rather than cut it."""

RESERVE = 500
"""Text characters kept free, while later text blocks exist, for the marker that lists the ones
left out, so the marker itself stays within the per-result ceiling."""

SHARED_RESERVE = 1000
"""Where a host shows the structured value as text beside the tool's text (Counting.shared):
room kept for the markers and links a cut adds."""

ASK_LESS = "The rest was not sent; ask for less, e.g. a narrower query or the next page"


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
    return await _Guard(limits, store, follow, counting).apply(result, required, output)


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
        if isinstance(block, Text) or (
            isinstance(block, EmbeddedResource) and block.text is not None
        ):
            length = size(block.text or "", unit)
            if length > text_block or length > text_left:
                return False
            text_left -= length
        elif isinstance(block, Image | Audio | EmbeddedResource):
            length = len(block.data if isinstance(block, Image | Audio) else block.blob or b"")
            if length > binary_block or length > binary_left:
                return False
            binary_left -= length
    return True


class _Guard:
    """The slow path: one result that reaches a limit."""

    def __init__(
        self, limits: PayloadLimits, store: BlobStore, follow: Follow | None, counting: Counting
    ) -> None:
        self.limits = limits
        self.unit = counting.unit
        self.shared = counting.shared
        self.store = store
        self.follow = follow if limits.offload else None
        self.kept_for = duration(limits.ttl)

    def call(self, uri: str | None, at: int = 0, path: str | None = None) -> str | None:
        """The sentence naming the continuation call for what is stored at `uri` from `at`."""
        if uri is None or self.follow is None:
            return None
        key = blob_key(uri)
        return None if key is None else self.follow.sentence(self.follow.ref(key, at, path))

    def next_call(self, uri: str, at: int, path: str) -> dict[str, Any] | None:
        key = blob_key(uri)
        if key is None or self.follow is None:
            return None
        return self.follow.next_call(self.follow.ref(key, at, path))

    async def offload(self, data: bytes, mime_type: str) -> str | None:
        """Store `data`; its URI, or None when offloading is off or the store fails."""
        if not self.limits.offload:
            return None
        try:
            key = await self.store.put(data, mime_type, self.limits.ttl)
        except Exception:
            # The result must still go out; without a link the marker asks for less instead.
            log.warning(
                "could not store an offloaded payload of %d bytes", len(data), exc_info=True
            )
            return None
        return blob_uri(key)

    async def apply(
        self, result: CallResult, structured_required: bool, output: OutputSpec | None
    ) -> CallResult:
        content = result.content
        structured = result.structured_json
        is_error = result.is_error
        meta = result.meta
        lifted = result.lifted
        limit = self.limits.structured
        shared = self.shared and structured is not None and not _mirrored(content, structured)
        if shared and self.limits.text_result is not None:
            limit = self._shared_limit(content, limit)
        if structured is not None and limit is not None and len(structured) > limit:
            text = structured.decode()
            if size(text, self.unit) > limit:
                items = None if is_error else _valid_cut(structured, limit, output)
                if items is not None:
                    cut, partial = await self._items(items, structured, limit)
                    own = bool(content) and not lifted
                    content = (*content, *cut)
                    lifted = not own
                    structured = items.raw
                    meta = {**(meta or {}), PARTIAL: partial}
                else:
                    content = await self._structured(text, structured, limit, content, lifted)
                    structured = None
                    is_error = is_error or structured_required
        taken = 0
        if shared and structured is not None:
            taken = size(structured.decode(), self.unit)
        content = await self._content(content, taken)
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

    def _shared_limit(self, content: tuple[ContentBlock, ...], limit: int | None) -> int:
        """The structured value's room where it shares the text's budget: what the content's
        text leaves, but never less than half of it (the text is then cut to the rest)."""
        assert self.limits.text_result is not None
        whole = self.limits.text_result
        text = sum(size(b.text, self.unit) for b in content if isinstance(b, Text))
        room = max(whole - text - SHARED_RESERVE, whole // 2)
        return room if limit is None else min(limit, room)

    async def _items(
        self, items: ItemCut, raw: bytes, limit: int
    ) -> tuple[tuple[ContentBlock, ...], dict[str, Any]]:
        """The marker (and link) of a value cut at an element boundary, and its `_meta`."""
        uri = await self.offload(raw, "application/json")
        call = self.call(uri, items.sent, items.path)
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
            following = self.next_call(uri, items.sent, items.path)
            if following is not None:
                partial["next"] = following
            return (marker, self._json_link(uri, raw)), partial
        return (marker,), partial

    def _json_link(self, uri: str, raw: bytes) -> ResourceLink:
        return ResourceLink(
            uri=uri,
            name="result.json",
            mime_type="application/json",
            size=len(raw),
            description=(
                f"The full structured result ({len(raw.decode()):,} characters of JSON);"
                f" stored for {self.kept_for}."
            ),
        )

    # --- structured content ------------------------------------------------------------

    async def _structured(
        self,
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
        uri = await self.offload(raw, "application/json")
        total = len(text)
        link: tuple[ContentBlock, ...] = (self._json_link(uri, raw),) if uri else ()

        def where(at: int, rest: str) -> str:
            call = self.call(uri, at)
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

        caps = (self.limits.text_block, self.limits.text_result, limit)
        cap = min(c for c in caps if c is not None)
        return (Text(cut(text, cap, marker, JSON_BOUNDARIES, self.unit)), *content, *link)

    # --- content blocks ----------------------------------------------------------------

    async def _content(
        self, blocks: tuple[ContentBlock, ...], taken: int = 0
    ) -> tuple[ContentBlock, ...]:
        """The blocks within the limits; `taken`: text budget the structured value uses."""
        limits = self.limits
        unit = self.unit
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
                cut = await self._cut_block(block, position, cap)
                out.extend(cut)
                text_left -= size(cut[0].text, unit) if isinstance(cut[0], Text) else 0
            elif isinstance(block, EmbeddedResource) and block.text is not None:
                length = size(block.text, unit)
                reserve = min(RESERVE, later[i]) if limits.text_result is not None else 0
                cap = min(text_block, text_left - reserve)
                if length <= cap:
                    out.append(block)
                    text_left -= length
                    continue
                changed = True
                replacement = await self._embedded_text(block, position, cap)
                out.append(replacement)
                if isinstance(replacement, Text):
                    text_left = max(0, text_left - size(replacement.text, unit))
            elif isinstance(block, Image | Audio | EmbeddedResource):
                data = block.data if isinstance(block, Image | Audio) else block.blob or b""
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
                out.append(await self._binary(block, position, data, limit, scope))
            else:
                out.append(block)
        if dropped:
            out[omitted_at:omitted_at] = await self._omitted(dropped)
        return tuple(out) if changed else blocks

    async def _cut_block(self, block: Text, position: int, cap: int) -> list[ContentBlock]:
        """A text block cut to `cap` characters, marker included, and a link to all of it."""
        text = block.text
        raw = text.encode()
        uri = await self.offload(raw, "text/plain")
        total = len(text)

        def marker(kept: int) -> str:
            # The continuation starts where the kept text ends: kept + every part is the text.
            call = self.call(uri, kept)
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
                cut(text, cap, marker, TEXT_BOUNDARIES, self.unit),
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
                        f" stored for {self.kept_for}."
                    ),
                )
            )
        return out

    async def _omitted(self, dropped: Sequence[str]) -> list[ContentBlock]:
        """One marker and one link for every text block left out once the result was full."""
        joined = "\n\n".join(dropped)
        raw = joined.encode()
        uri = await self.offload(raw, "text/plain")
        several = len(dropped) > 1
        count = f"{len(dropped)} more text block{'s' if several else ''}"
        chars = sum(len(t) for t in dropped)
        joined_by = ", joined by blank lines" if several else ""
        call = self.call(uri)
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
                f" {self.limits.text_result:,} characters. {where}]"
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
                        f" characters){joined_by}; stored for {self.kept_for}."
                    ),
                )
            )
        return out

    async def _embedded_text(
        self, block: EmbeddedResource, position: int, cap: int
    ) -> ContentBlock:
        """A text resource too long to embed: linked whole (a document is not cut)."""
        assert block.text is not None
        size = len(block.text)
        raw = block.text.encode()
        mime_type = block.mime_type or "text/plain"
        uri = await self.offload(raw, mime_type)
        what = f"the resource {block.uri} ({size:,} characters of {mime_type})"
        if uri is None:
            return Text(f"[omitted: {what}, over this server's inline limit. {ASK_LESS}]")
        return ResourceLink(
            uri=uri,
            name=_name(block.uri, f"resource-{position}", mime_type),
            mime_type=mime_type,
            size=len(raw),
            description=(
                f"{what[0].upper()}{what[1:]}, too large to send inline (room for {max(cap, 0):,}"
                f" characters); stored for {self.kept_for}; {self._read_it(uri)}"
            ),
            annotations=block.annotations,
        )

    async def _binary(
        self,
        block: Image | Audio | EmbeddedResource,
        position: int,
        data: bytes,
        limit: int,
        scope: str,
    ) -> ContentBlock:
        """A binary block over the limit: a link to the stored bytes (or a note without them)."""
        mime_type = block.mime_type or "application/octet-stream"
        if isinstance(block, EmbeddedResource):
            what = f"the resource {block.uri} ({mime_type})"
            name = _name(block.uri, f"resource-{position}", mime_type)
        else:
            noun = "image" if isinstance(block, Image) else "recording"
            what = f"{_article(mime_type)} {mime_type} {noun}"
            name = _name("", f"{block.kind}-{position}", mime_type)
        size = len(data)
        uri = await self.offload(data, mime_type)
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
                f" (limit {limit:,} bytes{scope}); stored for {self.kept_for};"
                f" {self._read_it(uri if scope else None)}"
            ),
            annotations=block.annotations,
        )

    def _read_it(self, uri: str | None) -> str:
        """How to read a linked payload: resources/read, and the continuation where a tool
        result can carry it (text, or a binary within the per-block limit)."""
        call = self.call(uri)
        return f"read it with resources/read, or {call}" if call else "read it with resources/read."


def _mirrored(content: Sequence[ContentBlock], structured: bytes) -> bool:
    """A text block already carries the value's JSON (read_more's items parts do), so a host
    shown both counts it once."""
    raw = structured.decode()
    return any(isinstance(b, Text) and b.text == raw for b in content)


def _valid_cut(raw: bytes, limit: int, output: OutputSpec | None) -> ItemCut | None:
    """A cut at an element boundary that the tool's output schema accepts, if there is one."""
    items = cut_items(raw, limit, output.schema if output is not None else None)
    if items is None or output is None:
        return items
    try:
        output.check_json(items.raw, items.value)
    except OutputMismatch:
        return None
    return items


def duration(seconds: float) -> str:
    if seconds >= 120 and seconds % 60 == 0:
        return f"{int(seconds // 60)} minutes"
    return f"{seconds:g} seconds"


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _name(uri: str, fallback: str, mime_type: str) -> str:
    """A file-like name for a link: the last path segment of `uri`, else `fallback` + extension."""
    last = uri.rstrip("/").rsplit("/", 1)[-1] if "/" in uri else ""
    if last:
        return last
    import mimetypes  # only for a link without a name: not at import

    extension = mimetypes.guess_extension(mime_type.split(";")[0].strip()) or ".bin"
    return fallback + extension
