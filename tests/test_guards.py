"""Payload guards (guards.py): every text the model sees here is shown in docs/results.md.

`shown(...)` checks that each exact text asserted below appears in the "Payload guards" section
of the docs, with the random store key written as `<key>`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from plainmcp.guards import guard
from plainmcp.guards.follow import Follow
from plainmcp.model.blocks import EmbeddedResource, Image, ResourceLink, Text
from plainmcp.model.options import PayloadLimits, ResultOptions
from plainmcp.model.results import CallResult
from plainmcp.schema import output_spec, schema_output_spec
from plainmcp.store import BLOB_PREFIX, MemoryStore, StoredBlob, blob_key, read_blob
from plainmcp.wire import render
from plainmcp.wire.request_state import StateSigner
from plainmcp.wire.revisions import REVISIONS
from tests.continuation import as_documented, next_call
from tests.mcp_schemas import validate_definition
from tests.test_mime import png_bytes

DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"
DEFAULTS = PayloadLimits()
NO_OFFLOAD = PayloadLimits(offload=False)
MIB = 1024 * 1024
KEY = "plainmcp://blob/<key>"
KEPT_END = '{"id":1389,"name":"row 1389"}'


def section() -> str:
    return DOCS.read_text(encoding="utf-8").split("## Payload guards", 1)[1].split("\n## ", 1)[0]


def shown(text: str, *uris: str) -> None:
    """`text`, with its store URIs and refs written as in the docs, appears in the docs
    section."""
    for uri in uris:
        text = text.replace(uri, KEY)
    text = as_documented(text)
    assert text in section(), f"docs/results.md (Payload guards) does not show:\n{text}"


FOLLOW = Follow("read_more", StateSigner(b"s" * 32))
"""The continuation as a Server names it by default."""


async def guarded(
    result: CallResult, limits: PayloadLimits, store: Any, **options: Any
) -> CallResult:
    """`guard` as the server calls it: with the continuation (`follow=None` turns it off)."""
    options.setdefault("follow", FOLLOW)
    return await guard(result, limits, store, **options)


def followed(text: str, store: MemoryStore, uri: str, at: int, path: str | None = None) -> str:
    """`text` with the ref the guard put in it written `<ref>`, after checking that the ref
    names the stored payload at `uri` and the offset `at`."""
    call = next_call(text)
    assert call is not None, text
    name, arguments = call
    assert name == "read_more"
    opened = FOLLOW.signer.unseal(arguments["ref"])
    expected: dict[str, Any] = {"k": blob_key(uri), "o": at}
    if path is not None:
        expected["p"] = path
    assert opened == expected
    return as_documented(text)


def big_text(size: int) -> str:
    """Paragraphs of ten numbered lines, `size` characters in all."""
    paragraphs = []
    total = 0
    line = 0
    while total < size:
        paragraph = "".join(
            f"Line {n:06d}: the quick brown fox jumps over the lazy dog.\n"
            for n in range(line, line + 10)
        )
        line += 10
        paragraphs.append(paragraph)
        total += len(paragraph) + 1
    return "\n".join(paragraphs)[:size]


def big_png(size: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * (size - 16)


def wire(result: CallResult, revision: str) -> dict[str, Any]:
    """The rendered CallToolResult as plain JSON, validated against the official schema."""
    out = orjson.loads(orjson.dumps(render.call_result(result, REVISIONS[revision], OPTIONS)))
    validate_definition(out, revision, "CallToolResult")
    assert isinstance(out, dict)
    return out


OPTIONS = ResultOptions()


# --- the fast path ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_small_results_are_returned_untouched() -> None:
    store = MemoryStore()
    results = [
        CallResult(content=(Text("Sunny, 21 °C"),)),
        CallResult(content=(Text("x" * 40_000),)),  # exactly at the ceiling
        CallResult(content=(Text("caption"), Image(png_bytes()))),
        CallResult(content=(), structured_json=b'{"result":5}'),
        CallResult(content=(Text("boom"),), is_error=True),
    ]
    for result in results:
        assert await guarded(result, DEFAULTS, store) is result
        assert await guarded(result, NO_OFFLOAD, store) is result
    assert len(store) == 0


@pytest.mark.anyio
async def test_disabled_limits_let_everything_through() -> None:
    store = MemoryStore()
    off = PayloadLimits(
        text_block=None, text_result=None, structured=None, binary_block=None, binary_result=None
    )
    result = CallResult(
        content=(Text(big_text(5_000_000)), Image(big_png(20 * MIB))),
        structured_json=b"[" + b"1," * 100_000 + b"1]",
    )
    assert await guarded(result, off, store) is result
    assert len(store) == 0


# --- text ------------------------------------------------------------------------------------

CUT_5MB = (
    "…[truncated: showing 39,506 of 5,000,000 characters. For the rest, call the tool read_more"
    ' with arguments {{"ref":"<ref>"}}. The full text is also at resource {uri}; read it with'
    " resources/read]"
)


@pytest.mark.anyio
async def test_5mb_of_text_is_cut_at_a_paragraph_and_linked() -> None:
    store = MemoryStore()
    text = big_text(5_000_000)
    out = await guarded(CallResult(content=(Text(text),)), DEFAULTS, store)

    assert len(out.content) == 2
    cut, link = out.content
    assert isinstance(cut, Text)
    assert isinstance(link, ResourceLink)
    kept, marker = cut.text.split("\n…", 1)
    assert len(cut.text) <= 40_000
    assert text.startswith(kept)
    assert text[len(kept) :].startswith("\n\n")  # a clean boundary: a paragraph
    assert kept.endswith("Line 000679: the quick brown fox jumps over the lazy dog.")
    assert followed("…" + marker, store, link.uri, len(kept)) == CUT_5MB.format(uri=link.uri)
    assert link == ResourceLink(
        uri=link.uri,
        name="text-1.txt",
        mime_type="text/plain",
        size=5_000_000,
        description="The full text of the block cut above (5,000,000 characters);"
        " stored for 60 minutes.",
    )
    assert link.uri.startswith(BLOB_PREFIX)
    assert await read_blob(link.uri, store) == (text.encode(), "text/plain")
    shown("…" + marker, link.uri)

    rendered = wire(out, "2025-11-25")
    assert rendered["content"][1] == {
        "type": "resource_link",
        "uri": link.uri,
        "name": "text-1.txt",
        "description": "The full text of the block cut above (5,000,000 characters);"
        " stored for 60 minutes.",
        "mimeType": "text/plain",
        "size": 5000000,
    }
    shown(orjson.dumps(rendered["content"][1]).decode(), link.uri)

    # Clients before 2025-06-18 get the link as text, which still says where the rest is.
    old = wire(out, "2024-11-05")
    assert old["content"][0] == rendered["content"][0]
    fallback = old["content"][1]["text"]
    assert fallback == (
        f"Resource link: {link.uri}\nname: text-1.txt\ntype: text/plain\nsize: 5000000 bytes\n"
        "description: The full text of the block cut above (5,000,000 characters);"
        " stored for 60 minutes."
    )
    shown(orjson.dumps(fallback).decode()[1:-1], link.uri)


@pytest.mark.anyio
async def test_without_offloading_the_marker_asks_for_less() -> None:
    store = MemoryStore()
    text = big_text(5_000_000)
    out = await guarded(CallResult(content=(Text(text),)), NO_OFFLOAD, store)
    (cut,) = out.content
    assert isinstance(cut, Text)
    kept, marker = cut.text.split("\n…", 1)
    assert text.startswith(kept)
    assert len(cut.text) <= 40_000
    assert "…" + marker == (
        "…[truncated: showing 39,506 of 5,000,000 characters. The rest was not sent; ask for"
        " less, e.g. a narrower query or the next page]"
    )
    shown("…" + marker)
    assert len(store) == 0


@pytest.mark.anyio
async def test_the_result_ceiling_spans_blocks_and_earlier_blocks_win() -> None:
    store = MemoryStore()
    first, second, third, fourth = ("alpha " * 5000, "bravo " * 5000, "charlie " * 3750, "d" * 10)
    image = Image(png_bytes())
    result = CallResult(content=(Text(first), Text(second), image, Text(third), Text(fourth)))
    out = await guarded(result, DEFAULTS, store)

    kept, cut, cut_link, same_image, omitted, omitted_link = out.content
    assert kept == Text(first)
    assert same_image is image
    assert isinstance(cut, Text)
    assert isinstance(cut_link, ResourceLink)
    assert isinstance(omitted, Text)
    assert isinstance(omitted_link, ResourceLink)
    assert cut.text.startswith("bravo bravo")
    assert as_documented(cut.text).endswith(
        "…[truncated: showing 9,155 of 30,000 characters. For the rest, call the tool read_more"
        ' with arguments {"ref":"<ref>"}. The full text is also at resource'
        f" {cut_link.uri}; read it with resources/read]"
    )
    assert followed(omitted.text, store, omitted_link.uri, 0) == (
        "[omitted: 2 more text blocks (30,010 characters) over this result's limit of 40,000"
        ' characters. For them, call the tool read_more with arguments {"ref":"<ref>"}. They are'
        f" also at resource {omitted_link.uri}, joined by blank lines; read it with"
        " resources/read]"
    )
    shown(omitted.text, omitted_link.uri)
    assert omitted_link == ResourceLink(
        uri=omitted_link.uri,
        name="omitted-text.txt",
        mime_type="text/plain",
        size=30_010 + 2,
        description="2 more text blocks left out of the result (30,010 characters),"
        " joined by blank lines; stored for 60 minutes.",
    )
    total = sum(len(b.text) for b in out.content if isinstance(b, Text))
    assert total <= 40_000
    assert await read_blob(cut_link.uri, store) == (second.encode(), "text/plain")
    assert await read_blob(omitted_link.uri, store) == (
        (third + "\n\n" + fourth).encode(),
        "text/plain",
    )
    wire(out, "2025-11-25")
    wire(out, "2024-11-05")


@pytest.mark.anyio
async def test_a_smaller_block_ceiling_cuts_each_block() -> None:
    limits = PayloadLimits(text_block=1000, text_result=None)
    out = await guarded(
        CallResult(content=(Text("one two " * 500), Text("short"))), limits, MemoryStore()
    )
    cut, link, short = out.content
    assert isinstance(cut, Text)
    assert len(cut.text) <= 1000
    assert isinstance(link, ResourceLink)
    assert short == Text("short")


@pytest.mark.anyio
async def test_a_large_embedded_text_resource_is_linked_whole() -> None:
    store = MemoryStore()
    log = "GET / 200\n" * 5000
    block = EmbeddedResource(uri="file:///var/log/app.log", text=log, mime_type="text/plain")
    out = await guarded(CallResult(content=(block,)), DEFAULTS, store)
    (link,) = out.content
    assert isinstance(link, ResourceLink)
    assert link == ResourceLink(
        uri=link.uri,
        name="app.log",
        mime_type="text/plain",
        size=50_000,
        description=link.description,
    )
    assert followed(link.description or "", store, link.uri, 0) == (
        "The resource file:///var/log/app.log (50,000 characters of text/plain), too large to"
        " send inline (room for 40,000 characters); stored for 60 minutes; read it with"
        ' resources/read, or call the tool read_more with arguments {"ref":"<ref>"}.'
    )
    assert await read_blob(link.uri, store) == (log.encode(), "text/plain")


# --- binaries --------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_20mb_image_is_stored_and_linked() -> None:
    store = MemoryStore()
    data = big_png(20 * MIB)
    result = CallResult(content=(Text("The full-resolution scan"), Image(data)))
    out = await guarded(result, DEFAULTS, store)

    caption, link = out.content
    assert caption is result.content[0]
    assert isinstance(link, ResourceLink)
    assert link == ResourceLink(
        uri=link.uri,
        name="image-2.png",
        mime_type="image/png",
        size=20_971_520,
        description="An image/png image of 20,971,520 bytes, too large to send inline (limit"
        " 1,048,576 bytes); stored for 60 minutes; read it with resources/read.",
    )
    assert blob_key(link.uri) is not None
    assert await read_blob(link.uri, store) == (data, "image/png")

    rendered = wire(out, "2025-11-25")
    shown(orjson.dumps(rendered["content"][1]).decode(), link.uri)
    old = wire(out, "2024-11-05")
    assert old["content"][1]["text"].startswith(f"Resource link: {link.uri}\nname: image-2.png")


@pytest.mark.anyio
async def test_without_offloading_a_large_image_is_left_out_with_a_note() -> None:
    store = MemoryStore()
    out = await guarded(CallResult(content=(Image(big_png(20 * MIB)),)), NO_OFFLOAD, store)
    assert out.content == (
        Text(
            "[omitted: an image/png image of 20,971,520 bytes, over this server's inline limit"
            " of 1,048,576 bytes. Ask for a smaller one]"
        ),
    )
    assert isinstance(out.content[0], Text)
    shown(out.content[0].text)
    assert len(store) == 0
    wire(out, "2024-11-05")


@pytest.mark.anyio
async def test_the_binary_result_ceiling_keeps_earlier_blocks() -> None:
    limits = PayloadLimits(binary_block=1000, binary_result=2500)
    images = tuple(Image(big_png(1000)) for _ in range(3))
    store = MemoryStore()
    out = await guarded(CallResult(content=images), limits, store)
    first, second, link = out.content
    assert (first, second) == images[:2]
    assert isinstance(link, ResourceLink)
    # Alone it fits a result: the continuation can return it.
    assert followed(link.description or "", store, link.uri, 0) == (
        "An image/png image of 1,000 bytes, too large to send inline (limit 2,500 bytes per"
        " result); stored for 60 minutes; read it with resources/read, or call the tool"
        ' read_more with arguments {"ref":"<ref>"}.'
    )


@pytest.mark.anyio
async def test_a_large_embedded_blob_is_linked_under_its_own_name() -> None:
    store = MemoryStore()
    pdf = b"%PDF-1.4\n" + b"0" * (2 * MIB)
    block = EmbeddedResource(uri="file:///srv/q1.pdf", blob=pdf, mime_type="application/pdf")
    out = await guarded(CallResult(content=(block,)), DEFAULTS, store)
    (link,) = out.content
    assert isinstance(link, ResourceLink)
    assert (link.name, link.mime_type, link.size) == ("q1.pdf", "application/pdf", len(pdf))
    assert link.description == (
        "The resource file:///srv/q1.pdf (application/pdf) of 2,097,161 bytes, too large to send"
        " inline (limit 1,048,576 bytes); stored for 60 minutes; read it with resources/read."
    )
    assert await read_blob(link.uri, store) == (pdf, "application/pdf")


# --- structured content ----------------------------------------------------------------------


@dataclass
class Row:
    id: int
    name: str


@dataclass
class Rows:
    rows: list[Row]


ROWS = output_spec(Rows)


def big_json() -> bytes:
    return orjson.dumps({"rows": [{"id": i, "name": f"row {i}"} for i in range(100_000)]})


def first_rows(n: int) -> bytes:
    return orjson.dumps({"rows": [{"id": i, "name": f"row {i}"} for i in range(n)]})


PARTIAL_ROWS = (
    '[partial: "rows" holds the first 1,407 of 100,000 items; the whole value is over this'
    " server's limit of 40,000 characters. For the next items, call the tool read_more with"
    ' arguments {{"ref":"<ref>"}}. The full JSON is also at resource {uri}; read it with'
    " resources/read]"
)


@pytest.mark.anyio
async def test_an_oversized_list_is_cut_after_the_last_item_that_fits() -> None:
    store = MemoryStore()
    raw = big_json()
    out = await guarded(CallResult(content=(), structured_json=raw), DEFAULTS, store, output=ROWS)

    assert (out.is_error, out.lifted) == (False, True)  # the value's JSON text comes first
    assert out.structured_json == first_rows(1407)
    assert len(out.structured_json) <= 40_000 < len(first_rows(1408))
    marker, link = out.content
    assert isinstance(marker, Text)
    assert isinstance(link, ResourceLink)
    assert followed(marker.text, store, link.uri, 1407, "rows") == PARTIAL_ROWS.format(uri=link.uri)
    shown(marker.text, link.uri)
    assert link == ResourceLink(
        uri=link.uri,
        name="result.json",
        mime_type="application/json",
        size=len(raw),
        description="The full structured result (3,177,790 characters of JSON);"
        " stored for 60 minutes.",
    )
    assert await read_blob(link.uri, store) == (raw, "application/json")
    call = next_call(marker.text)
    assert call is not None
    assert out.meta == {
        "plainmcp/partial": {
            "path": "rows",
            "sent": 1407,
            "total": 100_000,
            "next": {"name": "read_more", "arguments": call[1]},
        }
    }
    rendered = wire(out, "2025-11-25")
    assert rendered["structuredContent"] == orjson.loads(first_rows(1407))
    assert [b["type"] for b in rendered["content"]] == ["text", "text", "resource_link"]
    assert rendered["content"][0]["text"] == first_rows(1407).decode()
    assert rendered["content"][1]["text"] == marker.text
    assert rendered["_meta"] == out.meta
    wire(out, "2024-11-05")


@pytest.mark.anyio
async def test_a_cut_list_at_the_top_is_wrapped_like_any_list_for_object_only_revisions() -> None:
    store = MemoryStore()
    raw = orjson.dumps(list(range(20_000)))
    out = await guarded(CallResult(content=(), structured_json=raw), DEFAULTS, store)
    assert out.structured_json is not None
    sent = orjson.loads(out.structured_json)
    assert sent == list(range(len(sent)))
    marker, link = out.content
    assert isinstance(marker, Text) and isinstance(link, ResourceLink)
    followed(marker.text, store, link.uri, len(sent), "")
    assert marker.text.startswith(f"[partial: the result holds the first {len(sent):,} of 20,000")
    assert wire(out, "2025-11-25")["structuredContent"] == {"result": sent}
    assert wire(out, "2026-07-28")["structuredContent"] == sent


@pytest.mark.anyio
async def test_the_tools_own_text_stays_before_the_cut_marker() -> None:
    store = MemoryStore()
    result = CallResult(content=(Text("Found 100,000 rows"),), structured_json=big_json())
    out = await guarded(result, DEFAULTS, store, output=ROWS)
    own, marker, link = out.content
    assert own is result.content[0]
    assert isinstance(marker, Text) and isinstance(link, ResourceLink)
    assert (out.lifted, out.structured_json) == (False, first_rows(1407))
    assert as_documented(marker.text) == PARTIAL_ROWS.format(uri=link.uri)
    rendered = wire(out, "2025-11-25")
    assert [b.get("text") for b in rendered["content"][:2]] == ["Found 100,000 rows", marker.text]


@pytest.mark.anyio
async def test_a_cut_keeps_the_blocks_lifted_out_of_the_value_where_they_point() -> None:
    store = MemoryStore()
    image = Image(png_bytes())
    rows = orjson.loads(big_json())["rows"]
    raw = orjson.dumps({"chart": "<image block 2>", "rows": rows})
    out = await guarded(
        CallResult(content=(image,), structured_json=raw, lifted=True), DEFAULTS, store
    )
    kept, marker, link = out.content
    assert kept is image
    assert isinstance(link, ResourceLink) and link.name == "result.json"
    assert out.lifted
    assert isinstance(marker, Text) and marker.text.startswith('[partial: "rows" holds the first')
    rendered = wire(out, "2025-11-25")
    assert [b["type"] for b in rendered["content"]] == ["text", "image", "text", "resource_link"]
    assert rendered["structuredContent"]["chart"] == "<image block 2>"


PREVIEW_TEXT = (
    "…[truncated: showing {kept:,} of {total:,} characters of JSON. The structured result is"
    " over this server's limit of 40,000 characters, so this preview is sent instead of"
    " structuredContent. For the rest of the JSON, call the tool read_more with arguments"
    ' {{"ref":"<ref>"}}. The full JSON is also at resource {uri}; read it with resources/read]'
)


@pytest.mark.anyio
async def test_without_a_valid_cut_the_value_becomes_a_preview_and_a_link() -> None:
    """minItems asks for more rows than fit: no cut is valid, so today's preview remains."""
    store = MemoryStore()
    raw = big_json()
    schema = {
        "type": "object",
        "properties": {"rows": {"type": "array", "minItems": 5000}},
        "required": ["rows"],
    }
    result = CallResult(content=(), structured_json=raw)
    out = await guarded(result, DEFAULTS, store, output=schema_output_spec(schema))

    assert out.structured_json is None
    assert out.is_error  # the tool promised structuredContent and it cannot be sent
    preview, link = out.content
    assert isinstance(preview, Text)
    assert isinstance(link, ResourceLink)
    kept, marker = preview.text.split("\n…", 1)
    assert raw.decode().startswith(kept)
    assert kept.endswith(KEPT_END)  # cut after a complete object
    assert len(preview.text) <= 40_000
    documented = PREVIEW_TEXT.format(kept=len(kept), total=3_177_790, uri=link.uri)
    assert followed("…" + marker, store, link.uri, len(kept)) == documented
    shown("…" + marker, link.uri)
    assert link.name == "result.json"
    assert await read_blob(link.uri, store) == (raw, "application/json")
    wire(out, "2025-11-25")
    wire(out, "2024-11-05")


@pytest.mark.anyio
async def test_a_value_with_no_list_to_cut_gets_the_preview_without_being_an_error() -> None:
    store = MemoryStore()
    raw = orjson.dumps({"report": "word " * 20_000})
    out = await guarded(CallResult(content=(), structured_json=raw), DEFAULTS, store)
    assert (out.structured_json, out.is_error) == (None, False)
    preview, link = out.content
    assert isinstance(preview, Text) and isinstance(link, ResourceLink)
    assert "so this preview is sent instead of structuredContent" in preview.text


@pytest.mark.anyio
async def test_a_value_left_out_next_to_the_tools_own_text_gets_a_note() -> None:
    store = MemoryStore()
    raw = orjson.dumps({"report": "word " * 20_000})
    result = CallResult(content=(Text("The report"),), structured_json=raw)
    out = await guarded(result, DEFAULTS, store)
    own, note, link = out.content
    assert own is result.content[0]
    assert isinstance(note, Text) and isinstance(link, ResourceLink)
    assert followed(note.text, store, link.uri, 0) == (
        "[structuredContent left out: the structured result is 100,013 characters of JSON,"
        " over this server's limit of 40,000 characters. For it, call the tool read_more with"
        ' arguments {"ref":"<ref>"}. The full JSON is also at resource'
        f" {link.uri}; read it with resources/read]"
    )
    shown(note.text, link.uri)


@pytest.mark.anyio
async def test_an_error_result_is_never_cut_into_items() -> None:
    raw = big_json()
    out = await guarded(
        CallResult(content=(), structured_json=raw, is_error=True), DEFAULTS, MemoryStore()
    )
    assert (out.structured_json, out.is_error) == (None, True)


@pytest.mark.anyio
async def test_without_the_continuation_the_markers_name_only_the_resource() -> None:
    store = MemoryStore()
    out = await guarded(CallResult(content=(Text(big_text(50_000)),)), DEFAULTS, store, follow=None)
    cut, link = out.content
    assert isinstance(cut, Text) and isinstance(link, ResourceLink)
    assert next_call(cut.text) is None
    assert cut.text.endswith(
        f"characters. The full text is at resource {link.uri}; read it with resources/read]"
    )
    items = await guarded(
        CallResult(content=(), structured_json=big_json()), DEFAULTS, store, follow=None
    )
    marker, link = items.content
    assert isinstance(marker, Text) and isinstance(link, ResourceLink)
    assert marker.text.endswith(
        f"40,000 characters. The full JSON is at resource {link.uri}; read it with resources/read]"
    )
    assert items.meta == {"plainmcp/partial": {"path": "rows", "sent": 1407, "total": 100_000}}


@pytest.mark.anyio
async def test_without_offloading_a_cut_list_asks_for_less() -> None:
    store = MemoryStore()
    out = await guarded(CallResult(content=(), structured_json=big_json()), NO_OFFLOAD, store)
    (marker,) = out.content
    assert marker == Text(
        '[partial: "rows" holds the first 1,407 of 100,000 items; the whole value is over this'
        " server's limit of 40,000 characters. The rest was not sent; ask for less, e.g. a"
        " narrower query or the next page]"
    )
    assert len(store) == 0


@pytest.mark.anyio
async def test_structured_content_within_the_limit_in_characters_stays() -> None:
    # 30,000 characters that take 60,000 bytes: the limit counts characters.
    raw = orjson.dumps({"text": "é" * 30_000})
    result = CallResult(content=(), structured_json=raw)
    assert await guarded(result, DEFAULTS, MemoryStore()) is result


# --- the store and its URIs ------------------------------------------------------------------


class BrokenStore:
    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        raise ConnectionError("store is down")

    async def get(self, key: str) -> StoredBlob | None:
        return None


@pytest.mark.anyio
async def test_a_failing_store_falls_back_to_asking_for_less(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="plainmcp"):
        out = await guarded(CallResult(content=(Text("x" * 50_000),)), DEFAULTS, BrokenStore())
    (cut,) = out.content
    assert isinstance(cut, Text)
    assert cut.text.endswith(
        "The rest was not sent; ask for less, e.g. a narrower query or the next page]"
    )
    assert "could not store an offloaded payload of 50000 bytes" in caplog.text


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="text_block must be None or at least 1000"):
        PayloadLimits(text_block=999)
    with pytest.raises(ValueError, match="binary_result must be None or at least 0"):
        PayloadLimits(binary_result=-1)
    with pytest.raises(ValueError, match="ttl must be positive"):
        PayloadLimits(ttl=0)
