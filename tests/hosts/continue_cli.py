"""Drive the real Continue CLI (`cn -p`) against plainmcp servers, with a scripted model.

Continue's CLI 1.5.47 runs without a sign-in from a local config.yaml (`--config`): one model of
provider `openai` whose `apiBase` is `ChatStub` (chat_completions.py), with a context length far
above what the matrix sends (else its auto-compaction asks the model for summaries), and the
servers given as `mcpServers`. It offers an MCP server's tools under their own names (no server
prefix) and runs them unasked with `--auto`. A result reaches the model as the content of a
`role: "tool"` message: `JSON.stringify(result.content)`, every block as its JSON, nothing else
of the result (src/tools/index.tsx, convertMcpToolToContinueTool). The driver decodes that
array: a text block is a text part, any other block its JSON as text, as the model reads it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.hosts import needs
from tests.hosts.chat_completions import (
    ChatRun,
    ChatStub,
    clean_env,
    offered,
    run_host,
    tool_messages,
)
from tests.hosts.claude_code import HOSTS_DIR
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script

CN = HOSTS_DIR / "node_modules" / ".bin" / "cn"
VERSION = "1.5.47"
CONTEXT = 10_000_000
"""Tokens the stand-in model is said to take: no compaction within a run."""


def cn_problem() -> str | None:
    return needs.cli_problem(CN, "Continue's CLI", VERSION)


def blocks_of(content: Any) -> list[Part]:
    """A tool message's content, the JSON of the result's content list, as parts."""
    if not isinstance(content, str):
        return [Part("text", text=json.dumps(content))]
    try:
        blocks = json.loads(content)
    except ValueError:
        return [Part("text", text=content)]
    if not isinstance(blocks, list):
        return [Part("text", text=content)]
    return [
        Part("text", text=b["text"])
        if isinstance(b, dict) and b.get("type") == "text"
        else Part("text", text=json.dumps(b))
        for b in blocks
    ]


def results_of(body: Mapping[str, Any]) -> list[list[Part]]:
    return [blocks_of(m.get("content")) for m in tool_messages(body)]


def config_yaml(model_url: str, servers: Mapping[str, Mapping[str, Any]]) -> str:
    """config.yaml (as JSON, which YAML reads): the stand-in model, `servers` (stdio)."""
    model = {
        "name": "stub",
        "provider": "openai",
        "model": "plainmcp-stub-model",
        "apiBase": model_url,
        "apiKey": "test",
        "roles": ["chat"],
        "defaultCompletionOptions": {"contextLength": CONTEXT},
    }
    mcp = [{"name": name, **entry} for name, entry in servers.items()]
    config = {"name": "plainmcp", "version": "0.0.1", "schema": "v1", "models": [model]}
    return json.dumps({**config, "mcpServers": mcp})


def run_cn(
    servers: Mapping[str, Mapping[str, Any]],
    script: Script,
    *,
    timeout: float = 120,
) -> ChatRun:
    """One `cn -p --auto` run with `servers` as its only MCP servers (an agent turn is a
    request that offers tools)."""
    needs.require(cn_problem())
    stub = ChatStub(script, lambda b: bool(offered(b)), results_of)
    with stub, tempfile.TemporaryDirectory(prefix="plainmcp-cn-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        work = Path(tmp) / "work"
        work.mkdir()
        config = Path(tmp) / "config.yaml"
        config.write_text(config_yaml(stub.url, servers))
        env = clean_env(home, ("CONTINUE_",))
        command = [str(CN), "-p", "go", "--config", str(config), "--auto"]
        return run_host("cn", command, env, work, home, stub, saved="none", timeout=timeout)


class ContinueCli:
    """Continue's CLI as a `drivers.Driver`."""

    key = "continue-cli"
    transports: tuple[Transport, ...] = ("stdio",)

    def problem(self) -> str | None:
        return cn_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return tool

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        entry = {"command": target.argv[0], "args": list(target.argv[1:]), "env": dict(target.env)}
        run = run_cn({target.name: entry}, script, timeout=timeout)
        return Seen(
            offered=run.tools,
            results=run.results,
            failed=[False] * len(run.results),
            saved=run.saved,
        )
