"""What Codex CLI 0.169.0 hands its model for each kind of tool result plainmcp sends.

One real `codex exec` run (tests/hosts/codex_cli.py) whose scripted model calls a list of tools,
and one with a raised output limit; the tests pin the function_call_output items of the last
turn. These are the "verified" cells of Codex CLI's host profile. Codex puts a line of its own
before every result, `Wall time: S seconds\\nOutput:`; `view` writes its time as `<t>`.
"""

from __future__ import annotations

import base64
import json
import re
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp import demo
from tests.hosts.claude_code import HOSTS_DIR, stdio_server
from tests.hosts.codex_cli import CodexRun, ResponsesStub, config_toml, ensure_codex, run_codex
from tests.hosts.fixture_server import BOTH_TEXT, app, sized_text
from tests.hosts.scripts import ToolUse

CALLS = [
    ToolUse("mcp__demo__greet", {"name": "Ada"}),
    ToolUse("mcp__fx__both"),
    ToolUse("mcp__fx__both_typed"),
    ToolUse("mcp__fx__two_errors"),
    ToolUse("mcp__fx__two_texts"),
    ToolUse("mcp__demo__swatch", {"color": "red"}),
    ToolUse("mcp__demo__report_link", {"year": 2024}),
    ToolUse("mcp__demo__release_notes"),
    ToolUse("mcp__demo__tone"),
    ToolUse("mcp__fx__sized", {"chars": 11_964}),
    ToolUse("mcp__fx__sized", {"chars": 11_965}),
    ToolUse("mcp__fx__sized", {"chars": 150_000}),
    ToolUse("mcp__fx__sized_meta", {"chars": 150_000}),
    ToolUse("mcp__fx__repeated", {"texts": ["é"], "times": [5982]}),
    ToolUse("mcp__fx__repeated", {"texts": ["é"], "times": [5983]}),
    ToolUse("mcp__fx__repeated", {"texts": ["a", "b"], "times": [1, 11_960]}),
    ToolUse("mcp__fx__repeated", {"texts": ["a", "b"], "times": [1, 11_961]}),
    ToolUse("mcp__fx__repeated", {"texts": ["a", "b"], "times": [12_100, 10]}),
]
RAISED = [ToolUse("mcp__fx__sized", {"chars": 150_000})]

HEADER = re.compile(r"\AWall time: \d+\.\d{4} seconds\nOutput:")
SHOWN_HEADER = "Wall time: <t> seconds\nOutput:"


def head(text: str = "") -> dict[str, str]:
    """The first part of every result Codex hands on as a list of parts."""
    return {"type": "input_text", "text": SHOWN_HEADER + text}


def text(value: str) -> dict[str, str]:
    return {"type": "input_text", "text": value}


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="plainmcp-cx-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def run(scratch: Path) -> CodexRun:
    ensure_codex()
    servers = {"fx": stdio_server("app", scratch / "fx.jsonl"), "demo": stdio_server("demo")}
    return run_codex(servers, CALLS)


@pytest.fixture(scope="module")
def raised() -> CodexRun:
    ensure_codex()
    return run_codex({"fx": stdio_server("app")}, RAISED, config=["tool_output_token_limit=100000"])


def view(run: CodexRun, index: int) -> Any:
    """The index-th call's output as the model got it, its wall time written `<t>`."""
    output = run.results[index]
    if isinstance(output, str):
        assert HEADER.match(output), output[:80]
        return HEADER.sub(SHOWN_HEADER, output)
    first = output[0]
    assert first["type"] == "input_text" and HEADER.match(first["text"]), first
    return [{**first, "text": HEADER.sub(SHOWN_HEADER, first["text"])}, *output[1:]]


def index(tool: str, **arguments: Any) -> int:
    return CALLS.index(ToolUse(tool, arguments))


def test_codex_cli_sends_its_client_info_and_speaks_2025_06_18(
    run: CodexRun, scratch: Path
) -> None:
    log = [json.loads(line) for line in (scratch / "fx.jsonl").read_text().splitlines()]
    named = [line["clientInfo"] for line in log if line["method"] != "initialize"]
    assert {json.dumps(c) for c in named} == {
        json.dumps({"name": "codex-mcp-client", "title": "Codex", "version": "0.169.0"})
    }
    assert {line["revision"] for line in log} == {"2025-06-18"}
    calls = sum(1 for c in CALLS if c.name.startswith("mcp__fx__"))
    assert [line["method"] for line in log].count("tools/call") == calls


def test_the_server_s_tools_are_offered_in_its_namespace(run: CodexRun) -> None:
    assert sorted(run.namespace("mcp__fx")) == sorted(app.tools)


def test_a_text_result_follows_codex_s_own_line(run: CodexRun) -> None:
    assert view(run, index("mcp__demo__greet", name="Ada")) == [head(), text("Hello, Ada!")]


def test_text_beside_a_required_structured_value_reaches_the_model_too(run: CodexRun) -> None:
    # Codex shows only structuredContent when there is one: plainmcp lists it the tool without
    # its output schema and sends the text and the value's JSON as content instead.
    assert view(run, index("mcp__fx__both_typed")) == [
        head(),
        text(BOTH_TEXT),
        text('{"count":2}'),
    ]


def test_text_beside_a_structured_value_reaches_the_model_through_the_profile(
    run: CodexRun,
) -> None:
    # Without an output schema plainmcp's Codex profile leaves structuredContent out (Codex
    # would show only it, as above), so the text and the value's JSON both arrive.
    assert view(run, index("mcp__fx__both")) == [head(), text(BOTH_TEXT), text('{"count":2}')]


def test_both_blocks_of_an_error_reach_the_model_marked_by_the_profile(run: CodexRun) -> None:
    # Codex hands on an error's blocks as a success's: plainmcp's Codex profile puts "Error: "
    # before the first text, else nothing would tell the model the call failed.
    assert view(run, index("mcp__fx__two_errors")) == [
        head(),
        text("Error: first problem"),
        text("second problem"),
    ]


def test_both_blocks_of_a_success_reach_the_model(run: CodexRun) -> None:
    assert view(run, index("mcp__fx__two_texts")) == [
        head(),
        text("first block"),
        text("second block"),
    ]


def test_an_image_reaches_the_model_as_a_data_url(run: CodexRun) -> None:
    png = demo.png(16, 16, lambda x, y: demo.COLORS["red"])
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    assert view(run, index("mcp__demo__swatch", color="red")) == [
        head(),
        {"type": "input_image", "image_url": url, "detail": "high"},
    ]


def test_a_resource_link_reaches_the_model_as_its_json(run: CodexRun) -> None:
    link = {
        "type": "resource_link",
        "uri": "https://example.com/reports/2024.pdf",
        "name": "report-2024.pdf",
        "title": "Annual report 2024",
        "mimeType": "application/pdf",
        "annotations": {"audience": ["user"], "priority": 0.5},
    }
    assert view(run, index("mcp__demo__report_link", year=2024)) == [
        head(),
        text(json.dumps(link, separators=(",", ":"))),
    ]


def test_an_embedded_resource_reaches_the_model_as_its_json(run: CodexRun) -> None:
    block = {
        "type": "resource",
        "resource": {
            "uri": "notes://release/notes.md",
            "mimeType": "text/markdown",
            "text": "# Release notes\n\n- 0.1.0: first release.\n",
        },
    }
    assert view(run, index("mcp__demo__release_notes")) == [
        head(),
        text(json.dumps(block, separators=(",", ":"))),
    ]


def test_audio_is_dropped_and_the_profile_describes_it(run: CodexRun) -> None:
    assert view(run, index("mcp__demo__tone")) == [
        head(),
        text("<audio content omitted because you do not support audio input>"),
        text(
            "[An audio block (audio/wav, 4,044 bytes) is part of this result;"
            " this client does not pass it to the model.]"
        ),
    ]


def cut(chars: int, marker: str) -> str:
    """A sized text as Codex cuts it: the first and last 5,982 characters around its marker."""
    whole = sized_text(chars)
    return whole[:5982] + marker + whole[-5982:]


def test_a_text_of_11_964_characters_arrives_whole(run: CodexRun) -> None:
    assert view(run, index("mcp__fx__sized", chars=11_964)) == [head(), text(sized_text(11_964))]


def test_a_longer_text_loses_its_middle(run: CodexRun) -> None:
    assert view(run, index("mcp__fx__sized", chars=11_965)) == [
        head(),
        text(cut(11_965, "…1 tokens truncated…")),
    ]
    assert view(run, index("mcp__fx__sized", chars=150_000)) == [
        head(),
        text(cut(150_000, "…8 tokens truncated…")),
    ]


def test_a_tool_s_max_result_size_meta_is_not_honoured(run: CodexRun) -> None:
    assert view(run, index("mcp__fx__sized_meta", chars=150_000)) == [
        head(),
        text(cut(150_000, "…8 tokens truncated…")),
    ]


def repeated(run: CodexRun, texts: list[str], times: list[int]) -> Any:
    return view(run, index("mcp__fx__repeated", texts=texts, times=times))


def test_the_limit_is_in_utf_8_bytes(run: CodexRun) -> None:
    # 5,982 é are 11,964 bytes, as the 11,964 characters above: one more letter is cut.
    assert repeated(run, ["é"], [5982]) == [head(), text("é" * 5982)]
    assert repeated(run, ["é"], [5983]) == [
        head(),
        text("é" * 2991 + "…1 tokens truncated…" + "é" * 2991),
    ]


def test_the_limit_is_12_000_bytes_for_the_whole_result_in_steps_of_4(run: CodexRun) -> None:
    # Every item counts in whole 4-byte "tokens", Codex's own 33-byte line as 36: a 1-byte
    # block leaves 11,960 bytes (12,000 - 36 - 4), not 11,966, to the block after it.
    assert repeated(run, ["a", "b"], [1, 11_960]) == [head(), text("a"), text("b" * 11_960)]
    assert repeated(run, ["a", "b"], [1, 11_961]) == [
        head(),
        text("a"),
        text("b" * 5980 + "…1 tokens truncated…" + "b" * 5980),
    ]


def test_the_blocks_after_the_limit_are_dropped_and_counted(run: CodexRun) -> None:
    assert repeated(run, ["a", "b"], [12_100, 10]) == [
        head(),
        text("a" * 5982 + "…7 tokens truncated…" + "a" * 5982),
        text("[omitted 1 text items ...]"),
    ]


def test_tool_output_token_limit_raises_the_limit(raised: CodexRun) -> None:
    assert view(raised, 0) == [head(), text(sized_text(150_000))]


def test_the_model_is_offered_a_resource_reader(run: CodexRun) -> None:
    assert {"read_mcp_resource", "list_mcp_resources"} <= set(run.tools)


# --- servers slower to start than Codex's first turn ---------------------------------------


def test_every_server_is_required_so_codex_waits_for_it() -> None:
    servers = {"fx": {"command": "python", "args": ["-m", "x"]}, "demo": {"command": "y"}}
    assert config_toml("http://127.0.0.1:1/v1", servers).split("[mcp_servers.")[1:] == [
        'fx]\ncommand = "python"\nargs = ["-m", "x"]\nrequired = true\n\n',
        'demo]\ncommand = "y"\nrequired = true\n',
    ]


class Gate:
    """Holds a stdio server back (tests/hosts/late_start.py) until the model stand-in is first
    asked, or `patience` seconds pass without it being asked: the server cannot be up before
    Codex's first turn unless Codex waits for it."""

    def __init__(self, stub: ResponsesStub, patience: float) -> None:
        self.stub = stub
        self.patience = patience
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.opened_by_the_model: bool | None = None
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        held, _ = self.listener.accept()
        with held:
            self.opened_by_the_model = self.stub.asked.wait(self.patience)
            held.sendall(b"go")

    def entry(self, obj: str) -> dict[str, Any]:
        server = stdio_server(obj)
        late = [str(HOSTS_DIR / "late_start.py"), str(self.port), server["command"]]
        return {**server, "args": [*late, *server["args"]]}

    def __enter__(self) -> Gate:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.listener.close()


def test_a_server_still_starting_at_the_first_turn_is_waited_for() -> None:
    # Codex started its first turn without a server still starting, and the run went on without
    # its tools ("unsupported call: mcp__fxtwo_texts"): the Codex tests failed whole-folder on a
    # busy machine, where the Python servers take about a second to start.
    ensure_codex()
    stub = ResponsesStub([ToolUse("mcp__fx__two_texts")])
    with Gate(stub, patience=3) as gate:
        run = run_codex({"fx": gate.entry("app")}, stub.calls, model=stub)
    assert gate.opened_by_the_model is False  # nothing was asked before the server was up
    assert "mcp__fx" in [t["name"] for t in run.turns[0]["tools"] if t.get("type") == "namespace"]
    assert view(run, 0) == [head(), text("first block"), text("second block")]
