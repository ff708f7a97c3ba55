"""Drive the real Qwen Code (`qwen -p`) against plainmcp servers, with a scripted model.

Qwen Code 0.24.4 takes an OpenAI-compatible model from OPENAI_BASE_URL, OPENAI_API_KEY and
OPENAI_MODEL with `security.auth.selectedType: "openai"`; the base URL is `ChatStub`
(chat_completions.py). Its settings.json, in a throwaway HOME, lists only the servers given, each
trusted (no confirmation), with tool search off (`tools.toolSearch.enabled: false`: else MCP
tools are offered only behind its `tool_search` tool). It names an MCP server's tools
`mcp__SERVER__TOOL`. A result reaches the model as the text of a `role: "tool"` message (its
images in a user message after it); a failed call's starts with ERROR_PREFIX. It saves a
result it cuts under `~/.qwen/tmp/*/tool-results/`.
"""

from __future__ import annotations

import json
import re
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
    results_with_media,
    run_host,
)
from tests.hosts.claude_code import HOSTS_DIR
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Script, text_of

QWEN = HOSTS_DIR / "node_modules" / ".bin" / "qwen"
VERSION = "0.24.4"
MODEL = "qwen3-vl-plus"
"""A model id Qwen Code knows to take images (it reads a model's modalities from its id): it
then hands a result's images on in a user message after it (MEDIA), where for another model it
shows only `[image: image/png]`."""
MEDIA = "(attached media from previous tool call)"
ERROR_PREFIX = re.compile(r"MCP tool '[^']+' reported tool error")
"""How Qwen Code tells its model a call failed: the text it puts first (then the result's JSON)."""


def qwen_problem() -> str | None:
    return needs.cli_problem(QWEN, "Qwen Code", VERSION)


def settings(servers: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """settings.json: `servers` (stdio: command, args, env) trusted, the OpenAI-compatible
    model, tool search off."""
    mcp = {name: {**entry, "trust": True} for name, entry in servers.items()}
    return {
        "mcpServers": mcp,
        "security": {"auth": {"selectedType": "openai"}},
        "model": {"name": MODEL},
        "tools": {"toolSearch": {"enabled": False}},
    }


def run_qwen(
    servers: Mapping[str, Mapping[str, Any]], script: Script, *, timeout: float = 120
) -> ChatRun:
    """One `qwen -p --yolo` run with `servers` as its only MCP servers."""
    needs.require(qwen_problem())
    names = tuple(f"mcp__{name}__" for name in servers)
    is_turn = lambda b: any(n.startswith(names) for n in offered(b))  # noqa: E731
    stub = ChatStub(script, is_turn, results_with_media(MEDIA))
    # Under /tmp whatever TMPDIR says: the path Qwen Code names in a cut result's preview is
    # under it, so the preview's length is the same on every machine.
    with stub, tempfile.TemporaryDirectory(prefix="plainmcp-qw-", dir="/tmp") as tmp:
        home = Path(tmp) / "home"
        (home / ".qwen").mkdir(parents=True)
        (home / ".qwen" / "settings.json").write_text(json.dumps(settings(servers)))
        work = Path(tmp) / "work"
        work.mkdir()
        env = clean_env(home, ("QWEN_", "DASHSCOPE_"))
        env.update(
            OPENAI_BASE_URL=stub.url,
            OPENAI_API_KEY="test",
            OPENAI_MODEL=MODEL,
            QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
        )
        command = [str(QWEN), "-p", "go", "--yolo", "--output-format", "json"]
        saved = ".qwen/tmp/*/tool-results/*"
        return run_host("qwen", command, env, work, home, stub, saved=saved, timeout=timeout)


class QwenCode:
    """Qwen Code as a `drivers.Driver`."""

    key = "qwen-code"
    transports: tuple[Transport, ...] = ("stdio",)

    def problem(self) -> str | None:
        return qwen_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return f"mcp__{server}__{tool}"

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        entry = {"command": target.argv[0], "args": list(target.argv[1:]), "env": dict(target.env)}
        run = run_qwen({target.name: entry}, script, timeout=timeout)
        return Seen(
            offered=run.tools,
            results=run.results,
            failed=[ERROR_PREFIX.match(text_of(parts)) is not None for parts in run.results],
            saved=run.saved,
        )
