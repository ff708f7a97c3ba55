"""The continuation: a built-in tool (`read_more` by default) that returns the next part of a
result the payload guards cut, offloaded or paged.

Every client can call a tool; few can follow a `resource_link`. So each marker that says where
the rest is also holds one sentence, "call the tool read_more with arguments {"ref":"..."}.",
and following it returns the next part, sized to the server's limits and the host's. A ref is a
short token signed with the server's state secret (`StateSigner.seal`): the store key, the
offset of the next part and, for items, where the array is. Nothing else is kept, so any
process sharing the secret and the blob store can serve it; what it points to expires with the
stored payload. The stored payload knows its owner (blob_owner.py): a ref another principal
passes on, or one whose tool needs a scope the caller lacks, is answered as an unknown ref.

Three kinds of part (docs/results.md, "Reading the rest"):

- text: the stored text from a character offset. The part is the result's first text block,
  exactly; while more remains a second text block is the marker with the next ref.
- items: the elements of the stored JSON array at `path` from an index, as structuredContent
  `{"items": [...], "from": i, "total": n}`; the text is its JSON, then the marker.
- a binary: the stored bytes as one image, audio or embedded blob, when it fits inline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import orjson

from plainmcp import agreement
from plainmcp.context import Context
from plainmcp.guards.follow import PARTIAL, Follow
from plainmcp.hosts import budget
from plainmcp.hosts.profiles import known, profile_for
from plainmcp.model import mime
from plainmcp.model.blocks import ContentBlock, EmbeddedResource, Text, as_media
from plainmcp.model.options import PayloadLimits
from plainmcp.model.results import ToolError, ToolResult, json_text
from plainmcp.model.truncate import TEXT_BOUNDARIES, Unit, cut_point, fitting, size
from plainmcp.store import blob_uri
from plainmcp.wire.render import STRUCTURED_ELSEWHERE

if TYPE_CHECKING:
    from plainmcp.model.options import ResultOptions
    from plainmcp.store import BlobStore
    from plainmcp.tools import Tool
    from plainmcp.wire.request_state import StateSigner

DEFAULT_NAME = "read_more"


SENTENCE = r"call the tool ([A-Za-z0-9_.-]+) with arguments (\{[^\n]*?\})\."
"""What every marker holds exactly once while more remains (a model, or a test, follows it)."""


def describe(limits: PayloadLimits, name: str) -> str | None:
    """The sentence added to the description of a tool whose results may be cut."""
    if limits.structured is None:
        return None
    return (
        f"Results over {limits.structured:,} characters are sent in parts: a partial result"
        f" says how many items it holds and which {name} call returns the next ones."
    )


# --- the tool --------------------------------------------------------------------------------


class Holder(Protocol):
    """What the continuation reads of the server that holds it (components.py's Components):
    named here, so that this module does not import what imports it."""

    @property
    def payload_limits(self) -> PayloadLimits: ...
    @property
    def options(self) -> ResultOptions: ...
    @property
    def follow(self) -> Follow | None: ...

    blob_store: BlobStore
    state_signer: StateSigner


def make(server: Holder, name: str) -> Tool:
    """The continuation as a Tool of `server` (not registered: the server lists and finds it
    while offloading is on)."""
    from plainmcp.tools import make_tool

    async def read_more(
        ref: Annotated[str, "The ref, exactly as the result gave it."],
        ctx: Context,
    ) -> ToolResult:
        return await _read(server, ctx, ref)

    tool = make_tool(
        read_more,
        name=name,
        description=(
            "Read the next part of a result too large to send whole, with the ref that result"
            " gives; each part gives the ref of the next until none is left."
        ),
        annotations={"readOnlyHint": True, "openWorldHint": False},
        structured=False,
        # A part is sized to fit; were it stored again, the copy would lose its owner's scopes.
        limits=dataclasses.replace(server.payload_limits, offload=False),
    )
    agreement.exempt(tool)
    return tool


UNKNOWN_REF = (
    "Unknown reference: {ref} is not a ref this server gave out. Copy the ref exactly from the"
    " sentence 'call the tool {name} with arguments {{...}}' of the result that was cut."
)
EXPIRED_REF = (
    "Expired reference: the rest of that result is no longer stored (a stored result is kept"
    " for {ttl}, and the oldest go first when the store is full). Call the original tool again."
)


async def _read(server: Holder, ctx: Context, ref: str) -> ToolResult:
    follow = server.follow
    assert follow is not None  # the tool is only found while offloading is on
    opened = server.state_signer.unseal(ref)
    key, at, path = _fields(opened)
    if key is None:
        raise ToolError(UNKNOWN_REF.format(ref=orjson.dumps(ref).decode(), name=follow.name))
    from plainmcp.blob_owner import owned  # with the first ref followed: not at start-up

    # Another principal's ref, or one whose tool needs a scope the caller lacks, is unknown.
    store = owned(server.blob_store, server.state_signer, ctx.principal)
    blob, found = await store.lookup(key)
    if found == "refused":
        raise ToolError(UNKNOWN_REF.format(ref=orjson.dumps(ref).decode(), name=follow.name))
    limits = server.payload_limits
    if blob is None:
        from plainmcp.guards.offload import duration

        raise ToolError(EXPIRED_REF.format(ttl=duration(limits.ttl)))
    profile = profile_for(ctx.client_info)
    host = budget.room(profile)
    unit: Unit = known(profile, "limit_unit") if host is not None else "characters"
    if path is not None:
        value = orjson.loads(blob.data)
        items = value if path == "" else value[path]
        # The text carries the items' JSON too: both channels must fit.
        cap = _cap(limits.structured, limits.text_block, limits.text_result, host)
        return _items(follow, key, at, path, items, cap, server)
    if mime.is_text(blob.mime_type):
        cap = _cap(limits.text_block, limits.text_result, host)
        return _text(follow, key, at, blob.data.decode("utf-8"), cap, unit)
    return _binary(key, blob.data, blob.mime_type, limits)


def _fields(opened: Mapping[str, Any] | None) -> tuple[str | None, int, str | None]:
    if opened is None:
        return None, 0, None
    key, at, path = opened.get("k"), opened.get("o"), opened.get("p")
    if not isinstance(key, str) or type(at) is not int or at < 0:
        return None, 0, None
    if path is not None and not isinstance(path, str):
        return None, 0, None
    return key, at, path


def _cap(*caps: int | None) -> int | None:
    given = [c for c in caps if c is not None]
    return min(given) if given else None


def _text(
    follow: Follow, key: str, at: int, text: str, cap: int | None, unit: Unit = "characters"
) -> ToolResult:
    """The part from character `at`, it and its marker within `cap` of `unit`."""
    total = len(text)

    def marker(start: int, end: int, ref: str) -> str:
        return (
            f"[part: characters {start + 1:,} to {end:,} of {total:,}, sent above."
            f" For the rest, {follow.sentence(ref)}]"
        )

    end = total
    if cap is not None:
        longest = marker(total, total, follow.ref(key, total))
        room = max(cap - size(longest, unit), 1)
        chars = max(fitting(text[at : at + room], room, unit), 1)
        end = at + cut_point(text[at : at + chars + 2], chars, TEXT_BOUNDARIES)
    part = text[at:end]
    partial: dict[str, Any] = {"from": at, "sent": len(part), "total": total}
    if end >= total:
        return ToolResult(Text(part), meta={PARTIAL: partial})
    ref = follow.ref(key, end)
    partial["next"] = follow.next_call(ref)
    return ToolResult([Text(part), Text(marker(at, end, ref))], meta={PARTIAL: partial})


def _items(
    follow: Follow,
    key: str,
    at: int,
    path: str,
    items: list[Any],
    cap: int | None,
    server: Holder,
) -> ToolResult:
    total = len(items)

    def marker(end: int, ref: str) -> str:
        return (
            f"[part: items {at + 1:,} to {end:,} of {total:,}. For the next items,"
            f" {follow.sentence(ref)}]"
        )

    frame = len(orjson.dumps({"items": [], "from": at, "total": total}))
    used = frame + len(marker(total, follow.ref(key, total, path))) + 1
    end = at
    while end < total:
        size = len(orjson.dumps(items[end])) + (1 if end > at else 0)
        if cap is not None and used + size > cap and end > at:
            break
        used += size
        end += 1
    value = {"items": items[at:end], "from": at, "total": total}
    partial: dict[str, Any] = {"path": path, "from": at, "sent": end - at, "total": total}
    options = server.options
    text = json_text(value, options) if options.text_fallback else STRUCTURED_ELSEWHERE
    content: list[str | ContentBlock] = [text]
    if end < total:
        ref = follow.ref(key, end, path)
        partial["next"] = follow.next_call(ref)
        content.append(marker(end, ref))
    return ToolResult(content, structured=value, meta={PARTIAL: partial})


def _binary(key: str, data: bytes, mime_type: str, limits: PayloadLimits) -> ToolResult:
    room = _cap(limits.binary_block, limits.binary_result)
    uri = blob_uri(key)
    if room is not None and len(data) > room:
        raise ToolError(
            f"The stored {mime_type} payload is {len(data):,} bytes, over this server's inline"
            f" limit of {room:,} bytes, so no tool call can return it; read the resource {uri}"
            " with resources/read."
        )
    block: ContentBlock
    block = as_media(data, mime_type) or EmbeddedResource(uri=uri, blob=data, mime_type=mime_type)
    return ToolResult(block, meta={PARTIAL: {"from": 0, "sent": len(data), "total": len(data)}})
