"""What Gemini CLI 0.61.0 hands its model for each kind of tool result plainmcp sends.

One real `gemini -p` run (tests/hosts/gemini_cli.py) whose scripted model calls a list of tools;
the tests pin the functionResponse parts of its last turn. These are the "verified" cells of
Gemini CLI's host profile.
"""

from __future__ import annotations

import base64
import json
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
