"""The continuation (continuation.py): following the sentence of each marker with tool calls, as
a model would, rebuilds what was cut exactly; refs are signed and expire with the store."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from plainmcp import Image, MemoryStore, PayloadLimits, Server, paging
from plainmcp.client import Client
from plainmcp.client.results import CallToolResult
from plainmcp.hosts import budget
from plainmcp.hosts.profiles import profile_for
from plainmcp.model.blocks import Text
from plainmcp.model.truncate import Unit, size
from plainmcp.testing import connect
from tests.conftest import Session
from tests.continuation import as_documented, next_call
from tests.test_guards import big_png, shown

pytestmark = pytest.mark.anyio

SECRET = b"c" * 32


def long_text(size: int = 150_000) -> str:
    """Numbered lines in paragraphs of ten, with a trailing space on every line (a cut that
    strips whitespace would lose it)."""
    lines = [f"Line {n:06d}: the quick brown fox jumps over the lazy dog. \n" for n in range(3000)]
    text = "".join(line + ("\n" if n % 10 == 9 else "") for n, line in enumerate(lines))
    return text[:size]


TEXT = long_text()


@dataclass
class Row:
    id: int
    name: str


ROWS = [{"id": i, "name": f"row {i}"} for i in range(10_000)]


class Closed:
    """Set when a generator's finally block runs."""

    def __init__(self) -> None:
        self.event = threading.Event()


def make_app(**options: Any) -> Server:
    app = Server("parts", state_secret=SECRET, **options)

    @app.tool
    def log() -> str:
        """The whole log."""
        return TEXT

    @app.tool
    def rows() -> list[Row]:
        """Every row."""
        return [Row(**row) for row in ROWS]

    @app.tool
    def small() -> int:
        """Forty-two."""
        return 42

    return app


def texts(result: CallToolResult) -> list[str]:
    return [b.text for b in result.content if isinstance(b, Text)]


async def follow_text(client: Client, first: CallToolResult) -> tuple[str, int]:
    """The whole text: the kept text of the cut block, then every part (the first text block of
    each continuation result); and how many calls that took."""
    cut = texts(first)[0]
    text = cut[: cut.rindex("\n…[truncated: ")]
    call = next_call(cut)
    calls = 0
    while call is not None:
        calls += 1
        result = await client.call_tool(*call)
        assert not result.is_error, result.text
        part, *marker = texts(result)
        text += part
        call = next_call(marker[0]) if marker else None
    return text, calls


async def follow_items(client: Client, first: CallToolResult, path: str) -> tuple[Any, int]:
    """The whole value: the first structuredContent, its list extended with the items of every
    continuation result."""
    value = first.structured
    target = value if path == "" else value[path]
    if isinstance(target, dict) and "result" in target:  # an object-only revision wraps lists
        target = target["result"]
    call = next_call(first.text)
    calls = 0
    while call is not None:
        calls += 1
        result = await client.call_tool(*call)
        assert result.structured["from"] == len(target)
        target.extend(result.structured["items"])
        call = next_call(result.text)
    return value, calls


# --- text ------------------------------------------------------------------------------------


async def test_following_the_continuation_rebuilds_a_long_text_exactly() -> None:
    async with connect(make_app()) as client:
        first = await client.call_tool("log", {})
        text, calls = await follow_text(client, first)
        assert text == TEXT
        assert calls == 3

        call = next_call(texts(first)[0])
        assert call is not None
        second = await client.call_tool(*call)
        part, marker = texts(second)
        kept = len(texts(first)[0].split("\n…[truncated: ")[0])
        assert TEXT[kept:].startswith(part)
        assert as_documented(marker) == (
            f"[part: characters {kept + 1:,} to {kept + len(part):,} of 150,000, sent above."
            ' For the rest, call the tool read_more with arguments {"ref":"<ref>"}.]'
        )
        assert len(part) + len(marker) <= 40_000
        following = next_call(marker)
        assert following is not None
        assert second.meta == {
            "plainmcp/partial": {
                "from": kept,
                "sent": len(part),
                "total": 150_000,
                "next": {"name": "read_more", "arguments": following[1]},
            }
        }
        shown(marker)


async def test_the_last_part_names_no_further_call() -> None:
    app = make_app(payload_limits=PayloadLimits(text_block=100_000, text_result=100_000))
    async with connect(app) as client:
        first = await client.call_tool("log", {})
        call = next_call(texts(first)[0])
        assert call is not None
        last = await client.call_tool(*call)
        (part,) = texts(last)
        kept = texts(first)[0].split("\n…[truncated: ")[0]
        assert kept + part == TEXT
        assert last.meta == {
            "plainmcp/partial": {"from": len(kept), "sent": len(part), "total": 150_000}
        }


@pytest.mark.parametrize(
    ("client", "unit"), [("codex-mcp-client", "bytes"), ("gemini-cli-mcp-client", "UTF-16 units")]
)
async def test_the_first_result_and_every_part_fit_the_hosts_limit_in_its_unit(
    client: str, unit: Unit
) -> None:
    # 1- to 4-byte letters (1 or 2 UTF-16 units): counted as characters, a part would be
    # over Codex's limit in bytes and cut by Codex in the middle, inside its marker.
    text = "".join(f"{'aé€𝄞'[n % 4]}{n:05d} " for n in range(40_000))
    app = Server("parts", state_secret=SECRET)

    @app.tool
    def log() -> str:
        """The whole log."""
        return text

    room = budget.room(profile_for({"name": client}))
    assert room is not None
    async with Session(app) as s:
        await s.initialize("2025-06-18", client_info={"name": client, "version": "1"})
        result = await s.call("log", {})
        shown = [b["text"] for b in result["content"] if b["type"] == "text"]
        assert sum(size(t, unit) for t in shown) <= room
        rebuilt, calls = shown[0].split("\n…[truncated: ")[0], 0
        while (found := next_call(shown[-1])) is not None:
            result = await s.call(*found)
            shown = [b["text"] for b in result["content"] if b["type"] == "text"]
            assert sum(size(t, unit) for t in shown) <= room
            rebuilt += shown[0]
            calls += 1
    assert rebuilt == text
    assert calls == {"bytes": 32, "UTF-16 units": 8}[unit]


# --- items -----------------------------------------------------------------------------------


async def test_following_the_continuation_rebuilds_a_structured_list_exactly() -> None:
    async with connect(make_app()) as client:
        first = await client.call_tool("rows", {})
        assert not first.is_error
        assert first.meta is not None
        partial = first.meta["plainmcp/partial"]
        sent = partial["sent"]
        assert (partial["path"], partial["total"]) == ("", 10_000)
        value, calls = await follow_items(client, first, "")
        assert value == {"result": ROWS}  # 2025-11-25 carries a list as {"result": [...]}
        assert calls == 7

        call = next_call(first.text)
        assert call is not None
        second = await client.call_tool(*call)
        count = len(second.structured["items"])
        assert second.structured == {
            "items": ROWS[sent : sent + count],
            "from": sent,
            "total": 10_000,
        }
        json_text, marker = texts(second)
        assert as_documented(marker) == (
            f"[part: items {sent + 1:,} to {sent + count:,} of 10,000. For the next items,"
            ' call the tool read_more with arguments {"ref":"<ref>"}.]'
        )
        assert len(json_text) + len(marker) <= 40_000
        shown(marker)


async def test_a_tool_returning_a_generator_is_paged_and_the_generator_closed() -> None:
    closed = Closed()
    app = make_app()

    @app.tool
    def numbers(n: int) -> Iterator[int]:
        """The numbers below n."""
        try:
            yield from range(n)
        finally:
            closed.event.set()

    async with connect(app) as client:
        listed = {t.name: t for t in await client.list_tools()}
        assert listed["numbers"].output_schema == {
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
            "required": ["result"],
        }
        first = await client.call_tool("numbers", {"n": 20_000})
        assert closed.event.is_set()
        value, calls = await follow_items(client, first, "")
        assert value == {"result": list(range(20_000))}
        assert calls == 2


async def test_an_async_generator_without_a_schema_is_paged_too() -> None:
    closed = Closed()
    app = make_app()

    @app.tool
    async def names(n: int) -> AsyncIterator:  # type: ignore[type-arg]
        """Names, one by one."""
        try:
            for i in range(n):
                yield f"name-{i:05d}"
        finally:
            closed.event.set()

    async with connect(app) as client:
        listed = {t.name: t for t in await client.list_tools()}
        assert listed["names"].output_schema is None
        first = await client.call_tool("names", {"n": 10_000})
        assert closed.event.is_set()
        value, _ = await follow_items(client, first, "")
        assert value == {"result": [f"name-{i:05d}" for i in range(10_000)]}


async def test_a_generator_that_fails_midway_is_an_error_result() -> None:
    app = make_app()

    @app.tool
    def broken() -> Iterator[int]:
        """Fails after two items."""
        yield 1
        yield 2
        raise RuntimeError("the database went away")

    async with connect(app) as client:
        result = await client.call_tool("broken", {})
        assert result.is_error
        assert result.text == "Tool 'broken' failed: RuntimeError: the database went away"


# --- binaries --------------------------------------------------------------------------------


async def test_an_image_left_out_of_a_full_result_comes_back_through_the_continuation() -> None:
    app = make_app(payload_limits=PayloadLimits(binary_block=2000, binary_result=2500))
    images = [big_png(1000 + i) for i in range(3)]

    @app.tool(structured=False)
    def scans() -> list[Any]:
        """Three scans."""
        return [Image(data) for data in images]

    async with connect(app) as client:
        first = await client.call_tool("scans", {})
        link = first.content[2]
        call = next_call(getattr(link, "description", ""))
        assert call is not None
        again = await client.call_tool(*call)
        assert again.content == [Image(images[2])]


# --- refs ------------------------------------------------------------------------------------


async def test_an_unknown_ref_is_an_error_that_says_what_to_do() -> None:
    async with connect(make_app()) as client:
        first = await client.call_tool("log", {})
        call = next_call(texts(first)[0])
        assert call is not None
        name, arguments = call
        tampered = arguments["ref"][:-2] + ("AA" if not arguments["ref"].endswith("AA") else "BB")
        for ref in ("nope", tampered):
            result = await client.call_tool(name, {"ref": ref})
            assert result.is_error
            assert result.text == (
                f'Unknown reference: "{ref}" is not a ref this server gave out. Copy the ref'
                " exactly from the sentence 'call the tool read_more with arguments {...}' of"
                " the result that was cut."
            )


async def test_an_expired_ref_is_an_error_that_says_to_call_again() -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    async with connect(make_app(blob_store=store)) as client:
        first = await client.call_tool("log", {})
        call = next_call(texts(first)[0])
        assert call is not None
        now[0] = 3600.0
        result = await client.call_tool(*call)
        assert result.is_error
        assert result.text == (
            "Expired reference: the rest of that result is no longer stored (a stored result is"
            " kept for 60 minutes, and the oldest go first when the store is full). Call the"
            " original tool again."
        )
        shown(result.text)


async def test_another_process_with_the_secret_and_the_store_serves_the_ref() -> None:
    """Stateless-safe: the ref carries all the continuation needs besides the shared store."""
    store = MemoryStore()
    async with connect(make_app(blob_store=store)) as one:
        first = await one.call_tool("log", {})
    async with connect(make_app(blob_store=store)) as other:
        text, _ = await follow_text(other, first)
        assert text == TEXT
    stranger = Server("stranger", blob_store=store)  # another secret
    async with connect(stranger) as client:
        call = next_call(texts(first)[0])
        assert call is not None
        result = await client.call_tool(*call)
        assert result.is_error
        assert result.text.startswith("Unknown reference:")


# --- the tool list ---------------------------------------------------------------------------

CUT_SENTENCE = (
    "Results over 40,000 characters are sent in parts: a partial result says how many items it"
    " holds and which read_more call returns the next ones."
)


async def test_the_continuation_is_listed_last_while_offloading_is_on() -> None:
    async with connect(make_app()) as client:
        tools = await client.list_tools()
    assert [t.name for t in tools] == ["log", "rows", "small", "read_more"]
    builtin = tools[-1]
    assert builtin.description == (
        "Read the next part of a result too large to send whole, with the ref that result"
        " gives; each part gives the ref of the next until none is left."
    )
    assert builtin.input_schema == {
        "type": "object",
        "properties": {
            "ref": {"type": "string", "description": "The ref, exactly as the result gave it."}
        },
        "required": ["ref"],
        "additionalProperties": False,
    }
    assert builtin.output_schema is None
    descriptions = {t.name: t.description for t in tools}
    assert descriptions["rows"] == f"Every row.\n\n{CUT_SENTENCE}"
    assert descriptions["log"] == "The whole log."  # text is cut, but has no items
    assert descriptions["small"] == "Forty-two."

    for options in ({"payload_limits": PayloadLimits(offload=False)}, {"continuation": None}):
        async with connect(make_app(**options)) as client:
            tools = await client.list_tools()
        assert [t.name for t in tools] == ["log", "rows", "small"]
        assert tools[1].description == "Every row."


async def test_the_continuation_can_be_renamed_and_the_sentence_left_out() -> None:
    async with connect(make_app(continuation="more", describe_parts=False)) as client:
        tools = await client.list_tools()
        assert [t.name for t in tools] == ["log", "rows", "small", "more"]
        assert tools[1].description == "Every row."
        first = await client.call_tool("log", {})
        call = next_call(texts(first)[0])
        assert call is not None and call[0] == "more"
        text, _ = await follow_text(client, first)
        assert text == TEXT


def test_a_tool_named_like_the_continuation_is_refused() -> None:
    app = Server("clash")

    def read_more() -> str:
        return "mine"

    with pytest.raises(ValueError, match="would hide the built-in continuation"):
        app.tool(read_more)
    assert Server("renamed", continuation="next_part").add_tool(read_more).name == "read_more"
    with pytest.raises(ValueError, match="invalid tool name"):
        Server("bad", continuation="no spaces")


async def test_a_generator_that_does_not_end_is_closed_after_the_most_items(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(paging, "MAX_ITEMS", 5)
    closed = Closed()
    app = make_app()

    @app.tool
    def forever() -> Iterator[int]:
        """Counts without end."""
        n = 0
        try:
            while True:
                yield n
                n += 1
        finally:
            closed.event.set()

    async with connect(app) as client:
        result = await client.call_tool("forever", {})
    assert result.structured == {"result": [0, 1, 2, 3, 4]}
    assert closed.event.is_set()
    assert "tool 'forever': its iterator was closed after 5 items" in caplog.text
