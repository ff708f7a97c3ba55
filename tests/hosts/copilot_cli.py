"""Drive the real GitHub Copilot CLI (`copilot -p`) against plainmcp servers, with a scripted model.

Copilot CLI 1.0.102 takes its model from a provider named by environment variables
(COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_WIRE_API=responses, COPILOT_MODEL) and, with
COPILOT_OFFLINE=true, runs without a GitHub sign-in; the provider here is `ResponsesStub`
(tests/hosts/codex_cli.py), a stand-in for the OpenAI Responses API on 127.0.0.1. Copilot names
an MCP server's tools `SERVER-TOOL`, so `ToolUse("fx-both")` calls fx's `both`. The
`function_call_output` items of the turn after a call are exactly what the model received. In a
long run Copilot asks the same API for a summary to compact its history (`is_side_request`):
the stand-in answers it with text and the run goes on. `CopilotCli` is the matrix's driver.
Copilot runs with a throwaway HOME and only the servers given (`--additional-mcp-config`, its
built-in GitHub servers off).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts import needs
from tests.hosts.claude_code import HOSTS_DIR, _group
from tests.hosts.codex_cli import ResponsesStub, outputs, stdio_entry
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script, ToolUse

COPILOT = HOSTS_DIR / "node_modules" / ".bin" / "copilot"
VERSION = "GitHub Copilot CLI 1.0.102."
MODEL = "plainmcp-stub-model"


def copilot_problem() -> str | None:
    return needs.cli_problem(
        COPILOT, "GitHub Copilot CLI", VERSION, lambda out: (out.strip().splitlines() or [""])[0]
    )


def ensure_copilot() -> None:
    needs.require(copilot_problem())


@dataclass
class CopilotRun:
    requests: list[dict[str, Any]]
    """Every request body, as {"path", "body"}."""
    output: str
    """`copilot -p --output-format json`'s event lines."""

    @property
    def turns(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]

    @property
    def tools(self) -> list[str]:
        """The names of the tools offered in the first turn."""
        return [t["name"] for t in self.turns[0]["tools"] if "name" in t]

    @property
    def results(self) -> list[Any]:
        """The `output` of each call's function_call_output, as the model got it last turn."""
        return [item["output"] for item in outputs(self.turns[-1])]


def mcp_config(servers: Mapping[str, Mapping[str, Any]]) -> str:
    """`--additional-mcp-config`'s JSON: `servers` (stdio entries), every tool allowed."""
    return json.dumps({"mcpServers": {name: {**e, "tools": ["*"]} for name, e in servers.items()}})


def run_copilot(
    servers: Mapping[str, Mapping[str, Any]],
    calls: Sequence[ToolUse],
    *,
    timeout: float = 120,
    model: ResponsesStub | None = None,
) -> CopilotRun:
    """One `copilot -p` run (every permission granted, so MCP tools run unasked) with
    `servers` as its only MCP servers; `model` is the stand-in to use (default: one making
    `calls`)."""
    ensure_copilot()
    stub = model or ResponsesStub(calls, side=is_side_request)
    with stub as model, tempfile.TemporaryDirectory(prefix="plainmcp-cp-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        work = Path(tmp) / "work"
        work.mkdir()
        scratch = Path(tmp) / "tmp"
        scratch.mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("COPILOT_", "GH_", "GITHUB_", "OPENAI_"))
        }
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            COPILOT_PROVIDER_BASE_URL=model.url,
            COPILOT_PROVIDER_WIRE_API="responses",
            COPILOT_MODEL=MODEL,
            COPILOT_OFFLINE="true",
            TMPDIR=str(scratch),
        )
        command = [
            str(COPILOT),
            "-p",
            "go",
            "--yolo",
            "--no-ask-user",
            "--disable-builtin-mcps",
            "--output-format",
            "json",
            "--additional-mcp-config",
            mcp_config(servers),
        ]
        with _group(command, env, work) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"copilot did not end within {timeout} s") from None
        assert not model.failures, model.failures
        assert proc.returncode == 0, f"copilot exited {proc.returncode}:\n{out}\n{err}"
        return CopilotRun(list(model.requests), out)


COMPACTION = "Please create a detailed summary of the conversation so far."
"""How the request begins with which Copilot compacts a long history: the same instructions
and tools as an agent turn, with this as the last user message (seen in a run of a dozen
results of 20,000 characters, after about 200 KB of history)."""


def is_side_request(body: Mapping[str, Any]) -> bool:
    """Whether a request is Copilot's own side request (the compaction summary), not a turn of
    the agent loop: its last input item is a user message asking for the summary."""
    items = body.get("input") or [{}]
    last = items[-1] if isinstance(items[-1], dict) else {}
    if last.get("type") != "message" or last.get("role") != "user":
        return False
    content = last.get("content")
    texts = [content] if isinstance(content, str) else [c.get("text", "") for c in content or []]
    return any(isinstance(t, str) and t.startswith(COMPACTION) for t in texts)


# --- the matrix's driver (drivers.py) -----------------------------------------------------------

ERROR_PREFIX = re.compile(r"\AMCP server '[^']*': ")
"""What Copilot puts before the text of a failed call: its only sign of the failure."""


def parts_of(output: Any) -> list[Part]:
    """A function_call_output's `output` (one string, in Copilot) as one text part, without
    Copilot's prefix of a failed call."""
    if isinstance(output, str):
        return [Part("text", text=ERROR_PREFIX.sub("", output, count=1))]
    return [Part("json", text=json.dumps(output))]


class CopilotCli:
    """GitHub Copilot CLI as a `drivers.Driver`."""

    key = "copilot-cli"
    transports: tuple[Transport, ...] = ("stdio", "http")

    def problem(self) -> str | None:
        return copilot_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return f"{server}-{tool}"

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        stub = ResponsesStub(script=script, parts=parts_of, side=is_side_request)
        entry = (
            {"type": "http", "url": target.url}
            if target.url
            else {"type": "stdio", **stdio_entry(target)}
        )
        run_copilot({target.name: entry}, (), model=stub, timeout=timeout)
        return Seen(
            offered=[t["name"] for t in stub.agent_turns[0]["tools"] if "name" in t],
            results=list(stub.seen.values()),
            # The output is a string and nothing else: no field says a call failed.
            failed=[False for _ in stub.seen],
        )
