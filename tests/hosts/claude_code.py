"""Drive the real Claude Code (`claude -p`) against plainmcp servers, with a scripted model.

Claude Code's model API is pointed at `ModelStub`, a stand-in for the Anthropic Messages API on
127.0.0.1 (streaming and not) that answers each turn of the agent loop with the tool call a
`Script` decides from the results so far. Every request body is kept, so the `tool_result`
blocks in the last turn are exactly what the model would have received. Claude Code runs with a
throwaway HOME and only the MCP servers given (`--strict-mcp-config`).

    run = run_claude({"demo": stdio_server("demo")}, sequence(ToolUse("mcp__demo__greet", ...)))
    run.results[0]   # the tool_result block Claude Code built from the first call's result
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.hosts import needs
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script
from tests.hosts.stub_server import StubServer

HOSTS_DIR = Path(__file__).resolve().parent
CLAUDE = HOSTS_DIR / "node_modules" / ".bin" / "claude"
VERSION = "2.1.328"
FIXTURE = HOSTS_DIR / "fixture_server.py"
RELAY = HOSTS_DIR.parent / "interop" / "relay.py"


def claude_problem() -> str | None:
    """Why Claude Code cannot be run here, or None."""
    return needs.cli_problem(CLAUDE, "Claude Code", VERSION, lambda out: out.split(" ", 1)[0])


def ensure_claude() -> None:
    needs.require(claude_problem())


def stdio_server(obj: str, log: Path | None = None, record: Path | None = None) -> dict[str, Any]:
    """An mcpServers entry: `plainmcp run fixture_server.py:OBJ` over stdio; with `record`,
    through tests/interop/relay.py, which writes every line both ways to that file."""
    entry: dict[str, Any] = {"type": "stdio", "command": sys.executable, "args": serve(obj, record)}
    if log is not None:
        entry["env"] = {"PLAINMCP_HOSTS_CLIENT_LOG": str(log)}
    return entry


def serve(obj: str, record: Path | None = None) -> list[str]:
    """The arguments of `python` that serve fixture_server.py:OBJ over stdio (recorded)."""
    args = ["-m", "plainmcp", "run", f"{FIXTURE}:{obj}"]
    return args if record is None else [str(RELAY), str(record), sys.executable, *args]


def http_entry(url: str) -> dict[str, Any]:
    return {"type": "http", "url": url}


# --- the model ---------------------------------------------------------------------------------


def parts_of(block: Mapping[str, Any]) -> list[Part]:
    """A tool_result block's content as Parts (a string content is one text part)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return [Part("text", text=content)]
    parts = []
    for item in content:
        if item.get("type") == "text":
            parts.append(Part("text", text=item["text"]))
        elif item.get("type") == "image":
            source = item["source"]
            data = base64.b64decode(source["data"])
            parts.append(Part("image", media_type=source["media_type"], data=data))
        else:
            parts.append(Part(str(item.get("type")), text=json.dumps(item)))
    return parts


def tool_results(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every tool_result block in a request's messages, in order."""
    return [
        block
        for message in body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def _is_agent_turn(body: Mapping[str, Any]) -> bool:
    """A turn of the agent loop (not a side request such as a title): streamed, offering MCP
    tools."""
    names = [t.get("name", "") for t in body.get("tools", []) if isinstance(t, dict)]
    return bool(body.get("stream")) and any(n.startswith("mcp__") for n in names)


def _sse(events: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _message(model: str, blocks: list[dict[str, Any]], stop: str) -> list[dict[str, Any]]:
    """The stream of one assistant message made of `blocks` (text or tool_use)."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_stub",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        }
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    return events


class ModelStub(StubServer):
    """The Anthropic Messages API on 127.0.0.1:PORT, answering from a script."""

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script
        self.failures: list[str] = []

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        try:
            return self._answer(body)
        except Exception as exc:
            # A broken script ends the run (the host would retry an error answer forever);
            # run_claude then fails with it.
            self.failures.append(repr(exc))
            return self._end(body)

    def _answer(self, body: Mapping[str, Any]) -> tuple[bytes, str]:
        model = str(body.get("model", "stub"))
        if not body.get("stream"):
            message = {
                "id": "msg_stub",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            }
            return json.dumps(message).encode(), "application/json"
        if not _is_agent_turn(body):
            return self._end(body)
        results = tool_results(body)
        call = self.script([parts_of(r) for r in results])
        if call is None:
            return self._end(body)
        use = {
            "type": "tool_use",
            "id": f"toolu_{len(results) + 1:03d}",
            "name": call.name,
            "input": call.input,
        }
        return _sse(_message(model, [use], "tool_use")), "text/event-stream"

    def _end(self, body: Mapping[str, Any]) -> tuple[bytes, str]:
        """A streamed answer that ends the turn."""
        done = [{"type": "text", "text": "done"}]
        return _sse(_message(str(body.get("model", "stub")), done, "end_turn")), "text/event-stream"


# --- one run -----------------------------------------------------------------------------------


@dataclass
class HostRun:
    """What Claude Code sent its model during one `claude -p` run."""

    requests: list[dict[str, Any]]
    """Every request body, side requests included, as {"path", "body"}."""
    output: str
    home: Path
    """The throwaway HOME (gone after the run; paths in results name it)."""
    files: dict[str, bytes]
    """What Claude Code saved for its model under HOME (audio, blobs, big results), by path."""
    turns: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.turns = [r["body"] for r in self.requests if _is_agent_turn(r["body"])]

    @property
    def tools(self) -> list[str]:
        """The names of the tools offered to the model in the first turn."""
        return [t["name"] for t in self.turns[0]["tools"]]

    def tool(self, name: str) -> dict[str, Any]:
        """A tool's definition as the model got it in the first turn."""
        return next(t for t in self.turns[0]["tools"] if t["name"] == name)

    @property
    def results(self) -> list[dict[str, Any]]:
        """The tool_result blocks of the last turn, one per call, in order."""
        return tool_results(self.turns[-1]) if self.turns else []

    @property
    def parts(self) -> list[list[Part]]:
        return [parts_of(r) for r in self.results]


def _clean_env(home: Path, model_url: str) -> dict[str, str]:
    """This environment without any Claude or Anthropic setting of the caller's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "CLAUDE", "MCP_", "OTEL_"))
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        ANTHROPIC_BASE_URL=model_url,
        ANTHROPIC_API_KEY="sk-test",
        # List MCP tools to the model directly, not behind the tool-search tool.
        ENABLE_TOOL_SEARCH="false",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
    )
    return env


def run_claude(
    servers: Mapping[str, Mapping[str, Any]],
    script: Script,
    *,
    allowed: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> HostRun:
    """One `claude -p` run with `servers` as its only MCP servers; every tool of theirs (and
    `allowed`) may be called without asking. Fails with Claude Code's output if it does not
    end on its own within `timeout` seconds."""
    ensure_claude()
    with ModelStub(script) as model, tempfile.TemporaryDirectory(prefix="plainmcp-cc-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        config = Path(tmp) / "mcp.json"
        config.write_text(json.dumps({"mcpServers": servers}))
        tools = [f"mcp__{name}" for name in servers] + list(allowed)
        command = [
            str(CLAUDE),
            "-p",
            "go",
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--allowedTools",
            ",".join(tools),
            "--output-format",
            "json",
        ]
        full_env = _clean_env(home, model.url)
        full_env.update(env or {})
        with _group(command, full_env, Path(tmp)) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"claude -p did not end within {timeout} s") from None
        assert not model.failures, model.failures
        assert proc.returncode == 0, f"claude exited {proc.returncode}:\n{out}\n{err}"
        saved = {str(p): p.read_bytes() for p in home.glob(".claude/projects/*/*/tool-results/*")}
        return HostRun(list(model.requests), out, home, saved)


@contextlib.contextmanager
def _group(command: list[str], env: dict[str, str], cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """Claude Code in a process group of its own, killed (servers and all) when the block
    ends early."""
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


# --- the matrix's driver (drivers.py) -----------------------------------------------------------


class ClaudeCode:
    """Claude Code as a `drivers.Driver`."""

    key = "claude-code"
    transports: tuple[Transport, ...] = ("stdio", "http")

    def problem(self) -> str | None:
        return claude_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return f"mcp__{server}__{tool}"

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        entry: dict[str, Any] = (
            http_entry(target.url)
            if target.url
            else {"type": "stdio", "command": target.argv[0], "args": list(target.argv[1:])}
        )
        if target.env:
            entry["env"] = dict(target.env)
        run = run_claude({target.name: entry}, script, timeout=timeout)
        return Seen(
            offered=run.tools,
            results=run.parts,
            failed=[bool(r.get("is_error")) for r in run.results],
            saved=run.files,
        )
