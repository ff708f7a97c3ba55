"""What Gemini CLI 0.61.0 hands its model for each kind of tool result plainmcp sends.

One real `gemini -p` run (tests/hosts/gemini_cli.py) whose scripted model calls a list of tools;
the tests pin the functionResponse parts of its last turn. These are the "verified" cells of
Gemini CLI's host profile.
"""

from __future__ import annotations

import base64
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp import demo
from tests.hosts.claude_code import stdio_server
from tests.hosts.fixture_server import BOTH_TEXT
from tests.hosts.gemini_cli import GeminiRun, ensure_gemini, run_gemini
from tests.hosts.scripts import ToolUse

CALLS = [
    ToolUse("mcp_fx_both"),
    ToolUse("mcp_fx_both_typed"),
    ToolUse("mcp_fx_two_errors"),
    ToolUse("mcp_fx_two_texts"),
    ToolUse("mcp_demo_swatch", {"color": "red"}),
    ToolUse("mcp_demo_report_link", {"year": 2024}),
    ToolUse("mcp_fx_repeated", {"texts": ["é"], "times": [39_959]}),
    ToolUse("mcp_fx_repeated", {"texts": ["é"], "times": [39_960]}),
    ToolUse("mcp_fx_repeated", {"texts": ["😀"], "times": [19_980]}),
    ToolUse("mcp_fx_repeated", {"texts": ["a", "b"], "times": [30_000, 30_000]}),
    ToolUse("mcp_fx_numbers"),
    ToolUse("read_mcp_resource", {"uri": "fixture://notes"}),
    ToolUse("read_mcp_resource", {"uri": "fixture://items/one"}),
]


def entry(obj: str, log: Path | None = None) -> dict[str, Any]:
    """A Gemini CLI mcpServers entry (no "type": stdio is its default)."""
    return {k: v for k, v in stdio_server(obj, log).items() if k != "type"}


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="plainmcp-gm-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def run(scratch: Path) -> GeminiRun:
    ensure_gemini()
    servers = {"fx": entry("app", scratch / "fx.jsonl"), "demo": entry("demo")}
    return run_gemini(servers, CALLS)


def response(run: GeminiRun, index: int) -> dict[str, Any]:
    got: dict[str, Any] = run.results[index]["response"]
    return got


def untrusted(text: str) -> str:
    return f"<untrusted_context>\n{text}\n</untrusted_context>"


def test_gemini_cli_sends_its_client_info_and_speaks_2025_06_18(
    run: GeminiRun, scratch: Path
) -> None:
    log = [json.loads(line) for line in (scratch / "fx.jsonl").read_text().splitlines()]
    named = [line["clientInfo"] for line in log if line["method"] != "initialize"]
    assert {json.dumps(c) for c in named} == {
        json.dumps({"name": "gemini-cli-mcp-client", "version": "0.61.0"})
    }
    assert {line["revision"] for line in log} == {"2025-06-18"}


def test_text_beside_a_structured_value_reaches_the_model_with_the_value(
    run: GeminiRun,
) -> None:
    # Gemini shows the content, not structuredContent: plainmcp's profile adds the value's
    # JSON to it, with and without an output schema. Each block is wrapped on its own.
    both = {"output": untrusted(BOTH_TEXT) + "\n" + untrusted('{"count":2}')}
    assert response(run, 0) == both
    assert response(run, 1) == both


def test_both_blocks_of_an_error_reach_the_model_as_json(run: GeminiRun) -> None:
    blocks = [{"type": "text", "text": "first problem"}, {"type": "text", "text": "second problem"}]
    inner = [
        {
            "functionResponse": {
                "name": "two_errors",
                "response": {"content": blocks, "isError": True},
            }
        }
    ]
    assert response(run, 2) == {
        "error": "MCP tool 'two_errors' reported tool error for function call:"
        ' {"name":"two_errors","args":{}} with response: '
        + json.dumps(inner, separators=(",", ":"))
    }


def test_both_blocks_of_a_success_reach_the_model(run: GeminiRun) -> None:
    assert response(run, 3) == {
        "output": untrusted("first block") + "\n" + untrusted("second block")
    }


def test_an_image_is_forwarded_beside_a_text_line(run: GeminiRun) -> None:
    assert response(run, 4) == {
        "output": "[Tool 'swatch' provided the following image data with mime-type: image/png]"
    }
    png = demo.png(16, 16, lambda x, y: demo.COLORS["red"])
    inline = [
        part["inlineData"]
        for content in run.turns[-1]["contents"]
        for part in content["parts"]
        if "inlineData" in part
    ]
    assert inline == [{"mimeType": "image/png", "data": base64.b64encode(png).decode()}]


def test_a_resource_link_becomes_a_text_line_with_title_and_uri(run: GeminiRun) -> None:
    assert response(run, 5) == {
        "output": "Resource Link: Annual report 2024 at https://example.com/reports/2024.pdf"
    }


def test_the_model_is_offered_a_resource_reader(run: GeminiRun) -> None:
    assert {"read_mcp_resource", "list_mcp_resources"} <= set(run.tools)


def at(run: GeminiRun, call: ToolUse) -> dict[str, Any]:
    return response(run, CALLS.index(call))


def repeated(run: GeminiRun, texts: list[str], times: list[int]) -> dict[str, Any]:
    return at(run, ToolUse("mcp_fx_repeated", {"texts": texts, "times": times}))


SAVED = re.compile(
    r"Output too large\. Showing first 8,000 and last 32,000 characters\. For full output see:"
    r" (?P<path>/\S+\.txt)\n(?P<head>.*)\n\n\.\.\. \[(?P<omitted>[\d,]+) characters omitted\]"
    r" \.\.\.\n\n(?P<tail>.*)",
    re.DOTALL,
)


def test_one_text_of_40_000_characters_with_its_wrapper_arrives_whole(run: GeminiRun) -> None:
    # The limit counts the wrapper's 41 characters, and characters, not bytes: 39,959 é are
    # 79,918 bytes.
    assert repeated(run, ["é"], [39_959]) == {"output": untrusted("é" * 39_959)}


def test_a_longer_text_is_saved_and_the_model_gets_its_head_and_tail(run: GeminiRun) -> None:
    whole = untrusted("é" * 39_960)
    found = SAVED.fullmatch(repeated(run, ["é"], [39_960])["output"])
    assert found is not None
    assert (found["head"], found["omitted"], found["tail"]) == (whole[:8000], "1", whole[-32_000:])


def test_the_limit_counts_utf_16_code_units(run: GeminiRun) -> None:
    # 19,980 emoji are 39,960 UTF-16 code units: with the wrapper one over 40,000.
    assert SAVED.fullmatch(repeated(run, ["😀"], [19_980])["output"]) is not None


def test_the_limit_holds_only_for_a_result_of_one_block(run: GeminiRun) -> None:
    output = untrusted("a" * 30_000) + "\n" + untrusted("b" * 30_000)
    assert repeated(run, ["a", "b"], [30_000, 30_000]) == {"output": output}


def test_a_text_that_is_json_but_not_an_object_reaches_the_model_as_text(run: GeminiRun) -> None:
    # Gemini's MCP client makes a first text block that parses as JSON the structuredContent
    # of a result without one, and the SDK then rejects a list as not an object (a tool error);
    # plainmcp's profile sends {"result": [1, 2, 3]} as structuredContent, so the text arrives.
    assert at(run, ToolUse("mcp_fx_numbers")) == {"output": untrusted("[1, 2, 3]")}


def test_only_a_listed_resource_can_be_read(run: GeminiRun) -> None:
    assert at(run, ToolUse("read_mcp_resource", {"uri": "fixture://notes"})) == {
        "output": "notes of the fixture\n"
    }
    assert at(run, ToolUse("read_mcp_resource", {"uri": "fixture://items/one"})) == {
        "error": "Resource not found for URI: fixture://items/one"
    }
