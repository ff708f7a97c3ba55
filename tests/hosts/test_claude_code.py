"""What Claude Code 2.1.328 hands its model for each kind of tool result plainmcp sends.

Each module fixture is one real `claude -p` run (tests/hosts/claude_code.py) whose scripted model
calls a list of tools; the tests pin the tool_result blocks of its last turn. These are the
"verified" cells of Claude Code's host profile.
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp import demo
from tests.hosts.claude_code import HostRun, ensure_claude, http_entry, run_claude, stdio_server
from tests.hosts.fixture_server import BOTH_TEXT, LOG_ENV, LONG, RAISED_LIMIT, ROWS, sized_text
from tests.hosts.scripts import (
    ToolUse,
    chains,
    continued,
    follow_continuation,
    rebuild_items,
    rebuild_text,
    sequence,
)
from tests.http_server import http_server
from tests.interop.conftest import CALLS, NOTES_TEXT, b64
from tests.mcp_schemas import validate_relay_record

CLIENT_INFO = {
    "name": "claude-code",
    "title": "Claude Code",
    "version": "2.1.328",
    "description": "Anthropic's agentic coding tool",
    "websiteUrl": "https://claude.com/claude-code",
}

CLAUDE_TOOLS = {"ListMcpResourcesTool", "ReadMcpResourceTool", "ReadMcpResourceDirTool"}


def view(run: HostRun, index: int) -> dict[str, Any]:
    """The index-th tool_result as the model got it, without the ids and cache hints the host
    adds, and with saved-file paths shortened to `<saved>/NAME` (their bytes in `run.files`)."""
    block = {
        k: v for k, v in run.results[index].items() if k not in ("tool_use_id", "cache_control")
    }
    return json.loads(json.dumps(block).replace(_results_dir(run), "<saved>/"))


def _results_dir(run: HostRun) -> str:
    dirs = {str(Path(p).parent) + "/" for p in run.files}
    assert len(dirs) <= 1, dirs
    return dirs.pop() if dirs else "\0"


def saved(run: HostRun, name: str) -> bytes:
    return run.files[_results_dir(run) + name]


def saved_name(text: str, prefix: str, ext: str) -> str:
    """The file name in a `<saved>/NAME` reference (Claude Code adds a time and a random tag)."""
    found = re.search(rf"<saved>/({re.escape(prefix)}-\d+-[a-z0-9]+\.{ext})", text)
    assert found, text
    return found.group(1)


def client_log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="plainmcp-hosts-") as tmp:
        yield Path(tmp)


# --- every demo tool, over stdio ---------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_run(scratch: Path) -> HostRun:
    ensure_claude()
    calls = [ToolUse("mcp__demo__" + c.tool, c.arguments) for c in CALLS]
    return run_claude({"demo": stdio_server("demo", scratch / "demo.jsonl")}, sequence(*calls))


def demo_view(run: HostRun, call_id: str) -> dict[str, Any]:
    return view(run, [c.id for c in CALLS].index(call_id))


def test_claude_code_sends_its_client_info_and_speaks_2026_07_28(
    demo_run: HostRun, scratch: Path
) -> None:
    log = client_log(scratch / "demo.jsonl")
    assert {json.dumps(line["clientInfo"]) for line in log} == {json.dumps(CLIENT_INFO)}
    assert {line["revision"] for line in log} == {"2026-07-28"}
    assert [line["method"] for line in log].count("tools/call") == len(CALLS)


def test_every_demo_tool_is_offered_under_its_mcp_name(demo_run: HostRun) -> None:
    offered = [n for n in demo_run.tools if n.startswith("mcp__")]
    assert sorted(offered) == sorted("mcp__demo__" + t for t in demo.app.tools)


def test_a_text_result_stays_one_text_block(demo_run: HostRun) -> None:
    assert demo_view(demo_run, "greet") == {
        "type": "tool_result",
        "content": [{"type": "text", "text": "Hello, Ada!"}],
    }


def test_a_structured_result_reaches_the_model_as_its_json_reserialized(
    demo_run: HostRun,
) -> None:
    # The text said "minimum":1.0; the model gets the structured value as JavaScript writes it.
    assert demo_view(demo_run, "stats") == {
        "type": "tool_result",
        "content": '{"count":3,"mean":3.1666666666666665,"minimum":1,"maximum":6}',
    }
    assert demo_view(demo_run, "add") == {"type": "tool_result", "content": "5"}
    inventory = demo_view(demo_run, "inventory")
    assert json.loads(inventory["content"]) == [
        {"sku": i.sku, "name": i.name, "quantity": i.quantity} for i in demo.STOCK
    ]


def test_an_error_result_is_its_text_with_is_error(demo_run: HostRun) -> None:
    assert demo_view(demo_run, "divide-by-zero") == {
        "type": "tool_result",
        "content": "Cannot divide by zero",
        "is_error": True,
    }
    assert demo_view(demo_run, "add-missing") == {
        "type": "tool_result",
        "content": "Invalid arguments for tool 'add':\n- b: Field required",
        "is_error": True,
    }


def test_an_image_is_forwarded_and_also_saved_to_a_file_named_in_a_text_line(
    demo_run: HostRun,
) -> None:
    got = demo_view(demo_run, "swatch")
    png = demo.png(16, 16, lambda x, y: demo.COLORS["red"])
    name = saved_name(got["content"][1]["text"], "mcp-demo-blob", "png")
    assert got == {
        "type": "tool_result",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": b64(png)},
            },
            {"type": "text", "text": f"[Image: source: <saved>/{name}]"},
        ],
    }
    assert saved(demo_run, name) == png


def test_audio_is_saved_to_a_file_and_replaced_by_a_text_line(demo_run: HostRun) -> None:
    got = demo_view(demo_run, "tone")
    name = saved_name(got["content"][0]["text"], "mcp-demo-blob", "wav")
    assert got == {
        "type": "tool_result",
        "content": [
            {
                "type": "text",
                "text": f"[Audio from demo] Binary content (audio/wav, 3.9KB) saved to"
                f" <saved>/{name}",
            }
        ],
    }
    assert saved(demo_run, name) == demo.sine_wav(440, 250)


def test_an_embedded_text_resource_becomes_a_text_line_naming_its_uri(demo_run: HostRun) -> None:
    assert demo_view(demo_run, "release-notes") == {
        "type": "tool_result",
        "content": [
            {
                "type": "text",
                "text": f"[Resource from demo at notes://release/notes.md] {NOTES_TEXT}",
            }
        ],
    }


def test_an_embedded_blob_is_saved_to_a_file(demo_run: HostRun) -> None:
    got = demo_view(demo_run, "release-notes-gz")
    name = saved_name(got["content"][0]["text"], "mcp-demo-blob", "bin")
    assert got["content"] == [
        {
            "type": "text",
            "text": "[Resource from demo at notes://release/notes.md.gz] Binary content"
            f" (application/gzip, 57 bytes) saved to <saved>/{name}",
        }
    ]
    assert saved(demo_run, name) == gzip.compress(NOTES_TEXT.encode(), mtime=0)


def test_a_resource_link_becomes_a_text_line_with_name_and_uri(demo_run: HostRun) -> None:
    assert demo_view(demo_run, "report-link") == {
        "type": "tool_result",
        "content": [
            {
                "type": "text",
                "text": "[Resource link: report-2024.pdf] https://example.com/reports/2024.pdf",
            }
        ],
    }


def test_showcase_reaches_the_model_block_by_block(demo_run: HostRun) -> None:
    content = demo_view(demo_run, "showcase")["content"]
    png_name = saved_name(content[2]["text"], "mcp-demo-blob", "png")
    wav_name = saved_name(content[3]["text"], "mcp-demo-blob", "wav")
    assert [c["type"] for c in content] == ["text", "image", "text", "text", "text", "text"]
    assert [c.get("text") for c in content] == [
        "One of each:",
        None,
        f"[Image: source: <saved>/{png_name}]",
        f"[Audio from demo] Binary content (audio/wav, 1.6KB) saved to <saved>/{wav_name}",
        f"[Resource from demo at notes://release/notes.md] {NOTES_TEXT}",
        "[Resource link: report-2025.pdf] https://example.com/reports/2025.pdf",
    ]
    assert saved(demo_run, wav_name) == demo.sine_wav(880, 100)


def test_resource_tools_are_offered_when_the_server_offers_resources(demo_run: HostRun) -> None:
    # The demo has no resources of its own, but offloading (on by default) makes plainmcp
    # declare the resources capability: Claude Code then gives its model its resource tools.
    assert set(demo_run.tools) >= CLAUDE_TOOLS


# --- the fixture's host behaviours, over stdio -------------------------------------------------

FIXTURE_CALLS = [
    ("both", {}),
    ("two_errors", {}),
    ("two_texts", {}),
    ("sized", {"chars": 50_000}),
    ("sized", {"chars": 50_001}),
    ("sized", {"chars": 100_001}),
    ("sized", {"chars": 100_004}),
    ("sized_meta", {"chars": 120_000}),
    ("both_typed", {}),
]


@pytest.fixture(scope="module")
def fixture_run(scratch: Path) -> HostRun:
    ensure_claude()
    calls = [ToolUse("mcp__fx__" + name, args) for name, args in FIXTURE_CALLS]
    return run_claude({"fx": stdio_server("app", scratch / "fx.jsonl")}, sequence(*calls))


def test_text_beside_a_structured_value_reaches_the_model_through_the_profile(
    fixture_run: HostRun,
) -> None:
    # Claude Code shows only structuredContent when there is one; the tool has no output
    # schema, so plainmcp's Claude Code profile leaves it out and the text and value both arrive.
    assert view(fixture_run, 0) == {
        "type": "tool_result",
        "content": [
            {"type": "text", "text": BOTH_TEXT},
            {"type": "text", "text": '{"count":2}'},
        ],
    }


def test_text_beside_a_required_structured_value_reaches_the_model_too(
    fixture_run: HostRun,
) -> None:
    # Claude Code shows only structuredContent when there is one, so plainmcp lists it the tool
    # without its output schema and sends the text and the value's JSON as content instead.
    index = [name for name, _ in FIXTURE_CALLS].index("both_typed")
    assert view(fixture_run, index) == {
        "type": "tool_result",
        "content": [
            {"type": "text", "text": BOTH_TEXT},
            {"type": "text", "text": '{"count":2}'},
        ],
    }


def test_both_blocks_of_an_error_reach_the_model_joined(fixture_run: HostRun) -> None:
    assert view(fixture_run, 1) == {
        "type": "tool_result",
        "content": "first problem\nsecond problem",
        "is_error": True,
    }


def test_both_blocks_of_a_success_reach_the_model_as_two_blocks(fixture_run: HostRun) -> None:
    assert view(fixture_run, 2) == {
        "type": "tool_result",
        "content": [
            {"type": "text", "text": "first block"},
            {"type": "text", "text": "second block"},
        ],
    }


def test_a_result_of_50000_characters_stays_inline(fixture_run: HostRun) -> None:
    assert view(fixture_run, 3) == {
        "type": "tool_result",
        "content": [{"type": "text", "text": sized_text(50_000)}],
    }


PREVIEW = re.compile(
    r"<persisted-output>\nOutput too large \(([0-9.]+KB)\)\. Full output saved to: <saved>/"
    r"(toolu_\d+\.json)\n\nPreview \(first 2KB\):\n(.*)\n\.\.\.\n</persisted-output>",
    re.DOTALL,
)


@pytest.mark.parametrize(
    ("index", "chars", "size"), [(4, 50_001, "53.8KB"), (5, 100_001, "107.5KB")]
)
def test_a_result_over_50000_characters_is_saved_and_the_model_gets_a_2kb_preview(
    fixture_run: HostRun, index: int, chars: int, size: str
) -> None:
    got = view(fixture_run, index)
    assert list(got) == ["type", "content"]
    found = PREVIEW.fullmatch(got["content"])
    assert found, got["content"][:300]
    assert found.group(1) == size
    # The file holds the content blocks as indented JSON; the preview is its first 2,000 chars.
    stored = saved(fixture_run, found.group(2)).decode()
    assert json.loads(stored) == [{"type": "text", "text": sized_text(chars)}]
    assert found.group(3) == stored[:2000]


def test_a_result_over_25000_tokens_is_refused_and_saved_as_text(fixture_run: HostRun) -> None:
    got = view(fixture_run, 6)
    name = saved_name(got["content"], "mcp-fx-sized", "txt")
    head = (
        "Error: result (100,004 characters across 10,001 lines) exceeds maximum allowed tokens."
        f" Output has been saved to <saved>/{name}.\nFormat: Plain text\n"
        "Use offset and limit parameters to read specific portions of the file"
    )
    assert got["content"].startswith(head)
    assert (
        f"You MUST read the content from the file at <saved>/{name} in sequential"
        in (got["content"])
    )
    assert saved(fixture_run, name).decode() == sized_text(100_004)


def test_max_result_size_chars_in_tools_list_raises_the_limit(fixture_run: HostRun) -> None:
    assert view(fixture_run, 7) == {
        "type": "tool_result",
        "content": [{"type": "text", "text": sized_text(120_000)}],
    }
    assert RAISED_LIMIT > 120_000
    # The hint stays between server and host: the model's tool definition does not show it.
    assert fixture_run.tool("mcp__fx__sized_meta") == {
        "name": "mcp__fx__sized_meta",
        "description": "Like sized, but its definition asks Claude Code for a larger result limit.",
        "input_schema": {
            "type": "object",
            "properties": {"chars": {"type": "integer"}},
            "required": ["chars"],
            "additionalProperties": False,
        },
    }


# --- over HTTP ---------------------------------------------------------------------------------


def fx_name(tool: str) -> str:
    return "mcp__fx__" + tool


def test_over_http_claude_code_hands_the_model_the_same(scratch: Path) -> None:
    ensure_claude()
    log = scratch / "http.jsonl"
    with http_server("tests/hosts/fixture_server.py:app", env={LOG_ENV: str(log)}) as server:
        both = run_claude({"fx": http_entry(server.url)}, sequence(ToolUse(fx_name("both"))))
    assert view(both, 0) == {
        "type": "tool_result",
        "content": [
            {"type": "text", "text": BOTH_TEXT},
            {"type": "text", "text": '{"count":2}'},
        ],
    }
    entries = client_log(log)
    assert {json.dumps(e["clientInfo"]) for e in entries} == {json.dumps(CLIENT_INFO)}
    assert {e["revision"] for e in entries} == {"2026-07-28"}


# --- following read_more, over stdio and HTTP --------------------------------------------------


def cx_name(tool: str) -> str:
    return "mcp__cx__" + tool


FOLLOW = follow_continuation(ToolUse(cx_name("log")), ToolUse(cx_name("table")), name=cx_name)
"""The scripted model: read the whole log, then the whole table, by the sentences alone."""

LINK_LINE = re.compile(
    r"\[Resource link: result\.json\] plainmcp://blob/[A-Za-z0-9_-]+ \(The full structured"
    r" result \(544,956 characters of JSON\); stored for 60 minutes\.\)"
)


def check_continuation(run: HostRun) -> None:
    """The log and the table come back whole, from what Claude Code handed its model alone."""
    log, table = chains(run.parts)
    assert [len(log), len(table)] == [4, 14]
    assert rebuild_text(log) == LONG
    # Claude Code shows only structuredContent when there is one, so plainmcp lists it the
    # table without its output schema and sends the cut rows as text, then the marker with the
    # read_more sentence, then the link, which Claude Code shows as a line.
    first = table[0]
    assert [p.kind for p in first] == ["text", "text", "text"]
    rows = json.loads(first[0].text)
    assert len(rows) == 746
    assert first[1].text.startswith("[partial: the result holds the first 746 of 10,000 items;")
    assert LINK_LINE.fullmatch(first[2].text), first[2].text[:400]
    assert rebuild_items(rows, table) == ROWS
    assert continued(table[-1]) is None
    # read_more has no output schema: its structuredContent is left out too, so the part's
    # JSON and its marker both arrive as text.
    assert [p.kind for p in table[1]] == ["text", "text"]
    assert table[1][1].text.startswith("[part: items 747 to ")


def test_claude_code_follows_read_more_over_stdio_to_the_whole_text_and_rows(
    scratch: Path,
) -> None:
    ensure_claude()
    record = scratch / "cx.stdio"
    run = run_claude({"cx": stdio_server("cont", record=record)}, FOLLOW, timeout=600)
    check_continuation(run)
    assert "mcp__cx__read_more" in run.tools
    # Every message the server wrote, the 18 results included, is valid at 2026-07-28.
    assert validate_relay_record(record, "2026-07-28") >= 18


def test_claude_code_follows_read_more_over_http_to_the_whole_text_and_rows(
    scratch: Path,
) -> None:
    ensure_claude()
    log = scratch / "cx-http.jsonl"
    with http_server("tests/hosts/fixture_server.py:cont", env={LOG_ENV: str(log)}) as server:
        run = run_claude({"cx": http_entry(server.url)}, FOLLOW, timeout=600)
    check_continuation(run)
    calls = [e for e in client_log(log) if e["method"] == "tools/call"]
    assert len(calls) == 18
    assert {json.dumps(e["clientInfo"]) for e in client_log(log)} == {json.dumps(CLIENT_INFO)}
