"""What GitHub Copilot CLI 1.0.102 hands its model for each kind of tool result plainmcp sends.

One real `copilot -p` run (tests/hosts/copilot_cli.py) whose scripted model calls a list of
tools; the tests pin the function_call_output of each call in the last turn, which Copilot
makes one string. These are the "verified" cells of Copilot CLI's host profile, and they show
its adaptations reaching the model: text blocks a blank line apart (Copilot runs them together)
and a line describing each image or audio block (Copilot hands on an empty string).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hosts.claude_code import stdio_server
from tests.hosts.codex_cli import ResponsesStub
from tests.hosts.copilot_cli import (
    CopilotRun,
    ensure_copilot,
    is_side_request,
    parts_of,
    run_copilot,
)
from tests.hosts.fixture_server import BOTH_TEXT, app, sized_text
from tests.hosts.scripts import Part, ToolUse, sequence

CALLS = [
    ToolUse("demo-greet", {"name": "Ada"}),
    ToolUse("fx-both"),
    ToolUse("fx-both_typed"),
    ToolUse("fx-two_errors"),
    ToolUse("fx-two_texts"),
    ToolUse("demo-swatch", {"color": "red"}),
    ToolUse("demo-report_link", {"year": 2024}),
    ToolUse("demo-release_notes"),
    ToolUse("demo-tone"),
    ToolUse("demo-showcase"),
    ToolUse("fx-sized", {"chars": 20_480}),
    ToolUse("fx-sized", {"chars": 20_481}),
    ToolUse("fx-sized_meta", {"chars": 150_000}),
    ToolUse("fx-repeated", {"texts": ["é"], "times": [10_240]}),
    ToolUse("fx-repeated", {"texts": ["日"], "times": [6827]}),
    ToolUse("fx-repeated", {"texts": ["😀"], "times": [5121]}),
]


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="plainmcp-cp-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def run(scratch: Path) -> CopilotRun:
    ensure_copilot()
    servers = {"fx": stdio_server("app", scratch / "fx.jsonl"), "demo": stdio_server("demo")}
    return run_copilot(servers, CALLS)


def result(run: CopilotRun, tool: str, **arguments: object) -> object:
    return run.results[CALLS.index(ToolUse(tool, arguments))]


def test_copilot_cli_sends_its_client_info_and_speaks_2026_07_28(
    run: CopilotRun, scratch: Path
) -> None:
    log = [json.loads(line) for line in (scratch / "fx.jsonl").read_text().splitlines()]
    assert {json.dumps(line["clientInfo"]) for line in log} == {
        json.dumps({"name": "copilot-cli", "version": "1.0.102"})
    }
    assert {line["revision"] for line in log} == {"2026-07-28"}
    calls = sum(1 for c in CALLS if c.name.startswith("fx-"))
    assert [line["method"] for line in log].count("tools/call") == calls


def test_the_server_s_tools_are_offered_under_its_name(run: CopilotRun) -> None:
    assert sorted(t for t in run.tools if t.startswith("fx-")) == sorted(
        f"fx-{name}" for name in app.tools
    )


def test_a_text_result_reaches_the_model_as_it_is(run: CopilotRun) -> None:
    assert result(run, "demo-greet", name="Ada") == "Hello, Ada!"


@pytest.mark.parametrize("tool", ["fx-both", "fx-both_typed"])
def test_text_beside_a_structured_value_reaches_the_model_with_the_value(
    run: CopilotRun, tool: str
) -> None:
    # With or without an output schema: the text, a blank line, the value's JSON.
    assert result(run, tool) == BOTH_TEXT + '\n\n{"count":2}'


def test_two_text_blocks_reach_the_model_a_blank_line_apart_through_the_profile(
    run: CopilotRun,
) -> None:
    # Copilot runs the texts of a result's blocks together ("first blocksecond block"):
    # plainmcp's Copilot profile sends them as one text, a blank line between them.
    assert result(run, "fx-two_texts") == "first block\n\nsecond block"


def test_an_error_reaches_the_model_behind_the_server_s_name(run: CopilotRun) -> None:
    # Copilot puts its prefix before a failure's text as before a success's: plainmcp's
    # profile marks the error, and merges its blocks as above.
    assert result(run, "fx-two_errors") == (
        "MCP server 'fx': Error: first problem\n\nsecond problem"
    )


def test_an_image_reaches_the_model_only_as_the_profile_s_description(run: CopilotRun) -> None:
    # The image block itself becomes an empty string.
    assert result(run, "demo-swatch", color="red") == (
        "[An image block (image/png, 79 bytes) is part of this result;"
        " this client does not pass it to the model.]"
    )


def test_audio_reaches_the_model_only_as_the_profile_s_description(run: CopilotRun) -> None:
    assert result(run, "demo-tone") == (
        "[An audio block (audio/wav, 4,044 bytes) is part of this result;"
        " this client does not pass it to the model.]"
    )


def test_a_resource_link_copilot_drops_reaches_the_model_as_the_profile_s_line(
    run: CopilotRun,
) -> None:
    # The link itself becomes an empty string.
    assert result(run, "demo-report_link", year=2024) == (
        "[Resource link Annual report 2024: https://example.com/reports/2024.pdf]"
    )


def test_an_embedded_resource_reaches_the_model_as_its_text_and_the_profile_s_uri_line(
    run: CopilotRun,
) -> None:
    # Copilot hands on only the resource's text; the profile's line names its URI.
    assert result(run, "demo-release_notes") == (
        "# Release notes\n\n- 0.1.0: first release.\n"
        "[The resource notes://release/notes.md (text/markdown) is embedded in this result.]"
    )


def test_the_blocks_of_a_result_are_run_together(run: CopilotRun) -> None:
    # The profile merged the text blocks (the descriptions among them); the embedded
    # resource's text follows with nothing between: Copilot's own joining.
    described = [
        "[An image block (image/png, 79 bytes) is part of this result;"
        " this client does not pass it to the model.]",
        "[An audio block (audio/wav, 1,644 bytes) is part of this result;"
        " this client does not pass it to the model.]",
    ]
    described += [
        "[The resource notes://release/notes.md (text/markdown) is embedded in this result.]",
        "[Resource link Annual report 2025: https://example.com/reports/2025.pdf]",
    ]
    assert result(run, "demo-showcase") == (
        "\n\n".join(["One of each:", *described]) + "# Release notes\n\n- 0.1.0: first release.\n"
    )


def test_a_text_of_20_480_characters_arrives_whole(run: CopilotRun) -> None:
    assert result(run, "fx-sized", chars=20_480) == sized_text(20_480)


SAVED = re.compile(
    r"Output too large to read at once \((?P<size>[\d.]+ KB)\)\. Saved to: "
    r"(?P<path>/\S+-copilot-tool-output-[0-9a-f]{32}\.txt)\n"
    r"Consider using tools like grep \(for searching\), head/tail \(for viewing start/end\),"
    r" view with view_range \(for specific sections\), or jq \(for JSON\) to examine portions"
    r" of the output\.\n\nPreview \(first 500 chars\):\n(?P<preview>.*)",
    re.DOTALL,
)


def saved(output: object) -> tuple[str, str]:
    assert isinstance(output, str)
    found = SAVED.fullmatch(output)
    assert found is not None, output[:300]
    return found["size"], found["preview"]


def test_a_longer_text_is_saved_to_a_file_and_the_model_gets_its_start(run: CopilotRun) -> None:
    assert saved(result(run, "fx-sized", chars=20_481)) == ("20.0 KB", sized_text(500))


def test_a_tool_s_max_result_size_meta_is_not_honoured(run: CopilotRun) -> None:
    assert saved(result(run, "fx-sized_meta", chars=150_000)) == ("146.5 KB", sized_text(500))


def test_the_limit_is_20_480_utf_8_bytes(run: CopilotRun) -> None:
    # 10,240 é are 20,480 bytes and arrive whole; 6,827 日 are 20,481 bytes (and only 6,827
    # characters) and are saved.
    assert result(run, "fx-repeated", texts=["é"], times=[10_240]) == "é" * 10_240
    assert saved(result(run, "fx-repeated", texts=["日"], times=[6827])) == ("20.0 KB", "日" * 500)


def test_the_preview_is_500_utf_16_code_units(run: CopilotRun) -> None:
    assert saved(result(run, "fx-repeated", texts=["😀"], times=[5121])) == ("20.0 KB", "😀" * 250)


def test_the_model_is_offered_no_resource_reader(run: CopilotRun) -> None:
    assert not [t for t in run.tools if "resource" in t]


# --- a long run: Copilot compacts its history ------------------------------------------------

LONG_RUN = [ToolUse("fx-sized", {"chars": 20_000 + n}) for n in range(16)]
"""Sixteen results just under Copilot's limit: about 320 KB of history, past the point where
Copilot asks its model for a summary to compact it."""


def test_no_agent_turn_is_taken_for_a_compaction_request(run: CopilotRun) -> None:
    assert [t for t in run.turns if is_side_request(t)] == []


def test_a_compaction_request_is_answered_with_text_and_the_run_goes_on() -> None:
    ensure_copilot()
    stub = ResponsesStub(script=sequence(*LONG_RUN), parts=parts_of, side=is_side_request)
    run_copilot({"fx": stdio_server("app")}, (), model=stub, timeout=300)
    side = [r["body"] for r in stub.requests if is_side_request(r["body"])]
    assert len(side) >= 1
    # It offers the agent's own tools and instructions: only its last message tells it apart.
    assert side[0]["tools"] == stub.agent_turns[0]["tools"]
    assert side[0]["instructions"] == stub.agent_turns[0]["instructions"]
    # Every call was made once and its whole result reached the model.
    assert list(stub.seen.values()) == [
        [Part("text", text=sized_text(c.input["chars"]))] for c in LONG_RUN
    ]
