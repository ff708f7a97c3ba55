"""What pydantic-ai 2.68.0 (MCPToolset, a FastMCP client) hands its model for each kind of result.

One agent run per fixture (tests/hosts/pydantic_ai_agent.py); the tests pin the content of the
ToolReturnPart each call became. These are the "verified" cells of pydantic-ai's host profile.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp import demo
from tests.hosts.fixture_server import BOTH_TEXT, LOG_ENV, LONG, ROWS, sized_text
from tests.hosts.pydantic_ai_agent import AgentRun, ensure_pydantic_ai, run_agent, stdio
from tests.hosts.scripts import (
    ToolUse,
    chains,
    follow_continuation,
    rebuild_items,
    rebuild_text,
    sequence,
)
from tests.http_server import http_server
from tests.interop.conftest import CALLS, NOTES_TEXT
from tests.mcp_schemas import validate_relay_record

CLIENT_INFO = {"name": "fastmcp", "version": "4.2.3"}
"""pydantic-ai's MCPToolset introduces itself as FastMCP's client, not as pydantic-ai."""


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="plainmcp-pai-") as tmp:
        yield Path(tmp)


def client_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def demo_run(scratch: Path) -> AgentRun:
    ensure_pydantic_ai()
    calls = [ToolUse(c.tool, c.arguments) for c in CALLS]
    return run_agent(stdio("demo", scratch / "demo.jsonl"), sequence(*calls))


def returned(run: AgentRun, call_id: str) -> Any:
    return run.returns[[c.id for c in CALLS].index(call_id)]


def content(run: AgentRun, call_id: str) -> Any:
    return returned(run, call_id).content


def binary(value: Any) -> tuple[str, str, bytes]:
    return (type(value).__name__, value.media_type, value.data)


def test_pydantic_ai_sends_fastmcps_client_info_and_speaks_2026_07_28(
    demo_run: AgentRun, scratch: Path
) -> None:
    log = client_log(scratch / "demo.jsonl")
    assert {json.dumps(line["clientInfo"]) for line in log} == {json.dumps(CLIENT_INFO)}
    assert {line["revision"] for line in log} == {"2026-07-28"}
    assert [line["method"] for line in log].count("tools/call") == len(CALLS)


def test_the_model_is_offered_the_servers_tools_and_no_resource_reader(
    demo_run: AgentRun,
) -> None:
    assert demo_run.tools == list(demo.app.tools)


def test_a_text_result_is_its_string(demo_run: AgentRun) -> None:
    assert content(demo_run, "greet") == "Hello, Ada!"


def test_a_structured_result_is_its_value_unwrapped(demo_run: AgentRun) -> None:
    assert content(demo_run, "add") == 5
    assert content(demo_run, "stats") == {
        "count": 3,
        "mean": 3.1666666666666665,
        "minimum": 1.0,
        "maximum": 6.0,
    }
    assert content(demo_run, "inventory-in-stock") == [
        {"sku": "A-100", "name": "Widget", "quantity": 12},
        {"sku": "C-300", "name": "Doohickey", "quantity": 7},
    ]


def test_an_error_is_handed_back_as_a_retry_with_its_text_marked(demo_run: AgentRun) -> None:
    # A ToolReturnPart like a success's: plainmcp's profile puts "Error: " first.
    part = returned(demo_run, "divide-by-zero")
    assert (type(part).__name__, part.content, part.outcome) == (
        "ToolReturnPart",
        "Error: Cannot divide by zero",
        "retried",
    )
    assert content(demo_run, "add-missing") == (
        "Error: Invalid arguments for tool 'add':\n- b: Field required"
    )


def test_images_and_audio_reach_the_model_as_binary_content(demo_run: AgentRun) -> None:
    caption, chart = content(demo_run, "chart")
    assert caption == "Sales chart for north"
    assert binary(chart) == ("BinaryImage", "image/png", demo.bar_chart_png(demo.SALES["north"]))
    assert binary(content(demo_run, "tone")) == (
        "BinaryContent",
        "audio/wav",
        demo.sine_wav(440, 250),
    )


def test_an_embedded_resource_is_its_text_or_bytes_and_the_profile_s_uri_line(
    demo_run: AgentRun,
) -> None:
    # pydantic-ai hands on only the text or bytes; the profile's line names the URI.
    assert content(demo_run, "release-notes") == [
        NOTES_TEXT,
        "[The resource notes://release/notes.md (text/markdown) is embedded in this result.]",
    ]
    blob, line = content(demo_run, "release-notes-gz")
    assert binary(blob) == (
        "BinaryContent",
        "application/gzip",
        gzip.compress(NOTES_TEXT.encode(), mtime=0),
    )
    assert line == (
        "[The resource notes://release/notes.md.gz (application/gzip) is embedded in this result.]"
    )


def test_a_resource_link_is_only_its_uri(demo_run: AgentRun) -> None:
    assert content(demo_run, "report-link") == "https://example.com/reports/2024.pdf"


def test_showcase_is_a_list_of_one_item_per_block(demo_run: AgentRun) -> None:
    items = content(demo_run, "showcase")
    assert items[0] == "One of each:"
    assert binary(items[1]) == (
        "BinaryImage",
        "image/png",
        demo.png(16, 16, lambda x, y: demo.COLORS["blue"]),
    )
    assert binary(items[2]) == ("BinaryContent", "audio/wav", demo.sine_wav(880, 100))
    assert items[3:] == [
        NOTES_TEXT,
        "[The resource notes://release/notes.md (text/markdown) is embedded in this result.]",
        "https://example.com/reports/2025.pdf",
    ]


# --- the fixture's host behaviours ------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_run() -> AgentRun:
    ensure_pydantic_ai()
    calls = [ToolUse("both"), ToolUse("both_typed"), ToolUse("two_errors"), ToolUse("two_texts")]
    return run_agent(stdio("app"), sequence(*calls, ToolUse("sized", {"chars": 150_000})))


def test_text_beside_a_structured_value_reaches_the_model_through_the_profile(
    fixture_run: AgentRun,
) -> None:
    # pydantic-ai hands on structuredContent alone when there is one; the tool has no output
    # schema, so the profile of "fastmcp" leaves it out: the text and the value's JSON arrive.
    assert fixture_run.returns[0].content == [BOTH_TEXT, {"count": 2}]


def test_text_beside_a_required_structured_value_reaches_the_model_too(
    fixture_run: AgentRun,
) -> None:
    # pydantic-ai would show only structuredContent: the profile lists the tool without its
    # output schema and sends the text and the value's JSON (which pydantic-ai parses).
    assert fixture_run.returns[1].content == [BOTH_TEXT, {"count": 2}]


def test_a_two_block_error_reaches_the_model_as_one_text_through_the_profile(
    fixture_run: AgentRun,
) -> None:
    # By itself pydantic-ai hands on a two-block error as the JSON list of its texts; the
    # profile ("fastmcp" is shared with FastMCP's client, which keeps only the first block)
    # merges the blocks into one.
    part = fixture_run.returns[2]
    assert (part.content, part.outcome) == (
        "Error: first problem\n\nsecond problem",
        "retried",
    )


def test_a_two_block_success_is_a_list_of_two_strings(fixture_run: AgentRun) -> None:
    assert fixture_run.returns[3].content == ["first block", "second block"]


def test_a_150000_character_text_is_handed_on_whole(fixture_run: AgentRun) -> None:
    assert fixture_run.returns[4].content == sized_text(150_000)


# --- following read_more, over stdio and HTTP --------------------------------------------------

FOLLOW = follow_continuation(ToolUse("log"), ToolUse("table"))
"""The scripted model: read the whole log, then the whole table, by the sentences alone."""


def check_continuation(run: AgentRun) -> None:
    """The log and the table come back whole, from what pydantic-ai handed its model alone."""
    log, table = chains(run.parts)
    assert [len(log), len(table)] == [4, 14]
    assert [r.tool_name for r in run.returns] == ["log"] + ["read_more"] * 3 + ["table"] + [
        "read_more"
    ] * 13
    assert rebuild_text(log) == LONG
    # The table has an output schema, so structuredContent stays; pydantic-ai hands on
    # structuredContent only when every block is text, and the link beside it is not: so the
    # model gets the content, the rows' JSON (parsed), the marker and the link's URI.
    rows, marker, uri = run.returns[4].content
    assert marker.startswith("[partial: the result holds the first 765 of 10,000 items;")
    assert uri.startswith("plainmcp://blob/")
    assert rebuild_items(rows, table) == ROWS
    # read_more has no output schema: the profile of "fastmcp" leaves its structuredContent
    # out, so the part's value and its marker both arrive.
    items, marker = run.returns[5].content
    assert (items["from"], items["total"], len(items["items"])) == (765, 10_000, 729)
    assert marker.startswith("[part: items 766 to 1,494 of 10,000. For the next items, call")


def test_pydantic_ai_follows_read_more_over_stdio_to_the_whole_text_and_rows(
    scratch: Path,
) -> None:
    ensure_pydantic_ai()
    record = scratch / "cont.stdio"
    run = run_agent(stdio("cont", record=record), FOLLOW, timeout=300)
    check_continuation(run)
    assert run.tools == ["log", "table", "read_more"]
    assert validate_relay_record(record, "2026-07-28") >= 18


def test_pydantic_ai_follows_read_more_over_http_and_sends_the_same_client_info(
    scratch: Path,
) -> None:
    ensure_pydantic_ai()
    log = scratch / "http.jsonl"
    with http_server("tests/hosts/fixture_server.py:cont", env={LOG_ENV: str(log)}) as server:
        run = run_agent(server.url, FOLLOW, timeout=300)
    check_continuation(run)
    entries = client_log(log)
    assert [e["method"] for e in entries].count("tools/call") == 18
    assert {json.dumps(e["clientInfo"]) for e in entries} == {json.dumps(CLIENT_INFO)}
    assert {e["revision"] for e in entries} == {"2026-07-28"}
