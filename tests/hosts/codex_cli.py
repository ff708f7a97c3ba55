"""Drive the real Codex CLI (`codex exec`) against plainmcp servers, with a scripted model.

Codex CLI's model API is a custom `model_providers` entry (`wire_api = "responses"`, the only
one 0.169.0 accepts) whose `base_url` is `ResponsesStub`, a stand-in for the OpenAI Responses
API's streaming `POST /v1/responses` on 127.0.0.1. Each agent turn is answered with the next
call of a list, or the call a `Script` decides from the results so far (`CodexCli`, the matrix's
driver), as a `function_call` item; Codex lists an MCP server's tools in a namespace
`mcp__SERVER` and expects the call to name it, so `ToolUse("mcp__fx__both")` is split there. The
`function_call_output` items of the turn after a call are exactly what the model received.
Codex runs with a throwaway CODEX_HOME whose config.toml names only the servers given, each
`required = true`: without it `codex exec` starts the first turn without waiting for a server
still starting, which under load (a Python server takes about a second to start on a busy
2-core machine) left the server's tools out of the run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from base64 import b64decode
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts import needs
from tests.hosts.claude_code import HOSTS_DIR, _group
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script, ToolUse, sequence
from tests.hosts.stub_server import StubServer

CODEX = HOSTS_DIR / "node_modules" / ".bin" / "codex"
VERSION = "codex-cli 0.169.0"
MODEL = "plainmcp-stub-model"
"""A model outside Codex's own catalog, as a custom provider's usually is: Codex then offers MCP
tools to the model directly, in their server's namespace (to its catalog models it offers them
behind a tool-search tool or a JavaScript `exec` tool), with its fallback limits."""


def codex_problem() -> str | None:
    return needs.cli_problem(CODEX, "Codex CLI", VERSION)


def ensure_codex() -> None:
    needs.require(codex_problem())


def outputs(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every function_call_output item of a request's input, in order."""
    return [
        item
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]


def _sse(events: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _item(turn: int, call: ToolUse | None) -> dict[str, Any]:
    """The one output item of a turn: the call (in its server's namespace), or a final text."""
    if call is None:
        text = {"type": "output_text", "text": "done", "annotations": []}
        message = {
            "type": "message",
            "id": f"msg_{turn}",
            "role": "assistant",
            "status": "completed",
        }
        return {**message, "content": [text]}
    namespace, _, name = call.name.rpartition("__")
    item = {
        "type": "function_call",
        "id": f"fc_{turn}",
        "call_id": f"call_{turn}",
        "name": name,
        "arguments": json.dumps(call.input),
        "status": "completed",
    }
    return {**item, "namespace": namespace} if namespace else item


class ResponsesStub(StubServer):
    """The Responses API's streamed `POST /v1/responses` on 127.0.0.1, making `calls` one per
    turn, or the calls `script` decides from each turn's function_call_outputs (as `parts`
    reduces them); every request body is kept. A request `side` says is not an agent turn (a
    host's own summary or compaction request) is answered with plain text."""

    url_path = "/v1"

    def __init__(
        self,
        calls: Sequence[ToolUse] = (),
        *,
        script: Script | None = None,
        parts: Callable[[Any], list[Part]] = lambda output: [],
        side: Callable[[Mapping[str, Any]], bool] = lambda body: False,
    ) -> None:
        super().__init__()
        self.calls = list(calls)
        self.script = script or sequence(*calls)
        self.parts = parts
        self.side = side
        self.failures: list[str] = []
        """What went wrong in the script (the run then ends at once)."""
        self.agent_turns: list[dict[str, Any]] = []
        """The bodies of the agent turns, side requests left out."""
        self.seen: dict[str, list[Part]] = {}
        """Each call's result as the model first saw it (in the turn right after the call), by
        call id, in order: a host may shorten or summarise older results in later turns."""

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        call = None
        if not self.side(body):
            self.agent_turns.append(dict(body))
            for item in outputs(body):
                self.seen.setdefault(str(item.get("call_id")), self.parts(item["output"]))
            try:
                call = self.script(list(self.seen.values()))
            except Exception as exc:
                # A broken script ends the run; the harness then fails with it.
                self.failures.append(repr(exc))
        return self._stream(turn, str(body.get("model")), _item(turn, call)), "text/event-stream"

    @staticmethod
    def _stream(turn: int, model: str, item: dict[str, Any]) -> bytes:
        response = {"id": f"resp_{turn}", "object": "response", "model": model, "output": []}
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        return _sse(
            [
                {"type": "response.created", "response": {**response, "status": "in_progress"}},
                {"type": "response.output_item.added", "output_index": 0, "item": item},
                {"type": "response.output_item.done", "output_index": 0, "item": item},
                {
                    "type": "response.completed",
                    "response": {
                        **response,
                        "status": "completed",
                        "output": [item],
                        "usage": usage,
                    },
                },
            ]
        )


@dataclass
class CodexRun:
    requests: list[dict[str, Any]]
    """Every request body, as {"path", "body"}."""
    output: str
    """`codex exec --json`'s event lines."""

    @property
    def turns(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]

    def namespace(self, name: str) -> list[str]:
        """The names of the tools in one namespace (`mcp__SERVER`) of the first turn."""
        spaces = [t for t in self.turns[0]["tools"] if t.get("type") == "namespace"]
        return [t["name"] for s in spaces if s["name"] == name for t in s["tools"]]

    @property
    def tools(self) -> list[str]:
        """The names of the top-level tools of the first turn."""
        return [t["name"] for t in self.turns[0]["tools"] if "name" in t]

    @property
    def results(self) -> list[Any]:
        """The `output` of each call's function_call_output, as the model got it last turn."""
        return [item["output"] for item in outputs(self.turns[-1])]


def _toml(value: Any) -> str:
    """A TOML value from str, list of str, or a table of str (JSON strings are TOML strings)."""
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def config_toml(model_url: str, servers: Mapping[str, Mapping[str, Any]]) -> str:
    """A config.toml: the stand-in as the only model provider, `servers` as the only MCP
    servers (stdio entries: command, args, env)."""
    lines = [
        f"model = {_toml(MODEL)}",
        'model_provider = "stub"',
        "check_for_update_on_startup = false",
        "",
        "[model_providers.stub]",
        'name = "stub"',
        f"base_url = {_toml(model_url)}",
        'env_key = "PLAINMCP_STUB_API_KEY"',
        'wire_api = "responses"',
        # A failed turn fails the run at once, instead of retrying with backoff.
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
        "[analytics]",
        "enabled = false",
    ]
    for name, entry in servers.items():
        lines += ["", f"[mcp_servers.{name}]"]
        lines += [f"{key} = {_toml(value)}" for key, value in entry.items() if key != "type"]
        # `codex exec` sends its first turn without waiting for a server still starting (its
        # tools are then missing from the whole run: "unsupported call"); a required server is
        # waited for, and one that cannot start fails the run.
        lines.append("required = true")
    return "\n".join(lines) + "\n"


def codex_env(home: Path) -> dict[str, str]:
    """This process's environment with `home` as HOME and CODEX_HOME (`home/.codex`), none of
    the caller's OpenAI or Codex settings, and the stand-in's API key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        CODEX_HOME=str(home / ".codex"),
        PLAINMCP_STUB_API_KEY="test",
    )
    return env


def run_codex(
    servers: Mapping[str, Mapping[str, Any]],
    calls: Sequence[ToolUse],
    *,
    config: Sequence[str] = (),
    timeout: float = 120,
    model: ResponsesStub | None = None,
    home: Path | None = None,
) -> CodexRun:
    """One `codex exec` run (approvals and sandbox off, so MCP tools run unasked) with `servers`
    as its only servers; `config` adds `-c key=value` overrides; `model` is the stand-in to
    use (default: one making `calls`); `home` is a throwaway HOME kept from an earlier command
    (its config.toml is rewritten, the rest kept, say a login's tokens), else a fresh one."""
    ensure_codex()
    stub = model or ResponsesStub(calls)
    with stub, tempfile.TemporaryDirectory(prefix="plainmcp-cx-") as tmp:
        home = home or Path(tmp) / "home"
        (home / ".codex").mkdir(parents=True, exist_ok=True)
        (home / ".codex" / "config.toml").write_text(config_toml(stub.url, servers))
        work = Path(tmp) / "work"
        work.mkdir()
        env = codex_env(home)
        overrides = [arg for value in config for arg in ("-c", value)]
        command = [
            str(CODEX),
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "--ephemeral",
            "--json",
            *overrides,
            "go",
        ]
        with _group(command, env, work) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"codex exec did not end within {timeout} s") from None
        assert not stub.failures, stub.failures
        assert proc.returncode == 0, f"codex exited {proc.returncode}:\n{out}\n{err}"
        return CodexRun(list(stub.requests), out)


# --- the matrix's driver (drivers.py) -----------------------------------------------------------

HEADER = re.compile(r"\AWall time: \d+\.\d+ seconds\nOutput:\n?")
"""The line Codex puts before every result (and the line break after it, in a one-string
output): its framing, not the result's."""


def _image(url: str) -> Part:
    """An input_image's data URL as an image part."""
    head, _, data = url.partition(",")
    return Part("image", media_type=head.removeprefix("data:").split(";")[0], data=b64decode(data))


def parts_of(output: Any) -> list[Part]:
    """A function_call_output's `output` as Parts, Codex's own line before it taken off: a
    string is one text part, a list one part per item (input_text, input_image)."""
    if isinstance(output, str):
        return [Part("text", text=HEADER.sub("", output, count=1))]
    parts: list[Part] = []
    for index, item in enumerate(output):
        if item.get("type") == "input_text":
            text = HEADER.sub("", item["text"], count=1) if index == 0 else item["text"]
            if index > 0 or text:
                parts.append(Part("text", text=text))
        elif item.get("type") == "input_image":
            parts.append(_image(item["image_url"]))
        else:
            parts.append(Part(str(item.get("type")), text=json.dumps(item)))
    return parts


class CodexCli:
    """Codex CLI as a `drivers.Driver`."""

    key = "codex-cli"
    transports: tuple[Transport, ...] = ("stdio", "http")

    def problem(self) -> str | None:
        return codex_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return f"mcp__{server}__{tool}"

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        stub = ResponsesStub(script=script, parts=parts_of)
        entry = {"url": target.url} if target.url else stdio_entry(target)
        run = run_codex({target.name: entry}, (), model=stub, timeout=timeout)
        namespace = f"mcp__{target.name}"
        return Seen(
            offered=[f"{namespace}__{name}" for name in run.namespace(namespace)] + run.tools,
            results=list(stub.seen.values()),
            # Codex's function_call_output has no field saying a call failed.
            failed=[False for _ in stub.seen],
        )


def stdio_entry(target: Target) -> dict[str, Any]:
    """A stdio server entry (command, args, env, cwd) for a host config, from a Target."""
    entry: dict[str, Any] = {"command": target.argv[0], "args": list(target.argv[1:])}
    if target.env:
        entry["env"] = dict(target.env)
    if target.cwd is not None:
        entry["cwd"] = str(target.cwd)
    return entry
