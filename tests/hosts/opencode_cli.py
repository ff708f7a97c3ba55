"""Drive the real opencode (`opencode run`) and Kilo Code's CLI (`kilo run`, a fork of opencode
with the same config and MCP client) against plainmcp servers, with a scripted model.

The model is a custom provider of the config (`@ai-sdk/openai-compatible`, bundled in the
binary) whose `baseURL` is `ChatStub` (chat_completions.py), declared as taking images as a vision
model is; the config, named by OPENCODE_CONFIG (KILO_CONFIG for Kilo), lists only the servers
given (`type: local`) and allows every tool. Both name an MCP server's tools `SERVER_TOOL`. A tool
result reaches the model as the content of a `role: "tool"` message (a string); images of it
follow in a user message "Attached media from tool result:", taken here as the result's own
parts. Each runs with a throwaway HOME and XDG directories: it saves what it cuts of a long
result under `~/.local/share/opencode/tool-output/` (`.../kilo/...`).
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
    results_with_media,
    run_host,
)
from tests.hosts.claude_code import HOSTS_DIR
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Script

MEDIA = "Attached media from tool result:"
"""The text the host puts before the images of a tool result, in a user message after it."""
results_of = results_with_media(MEDIA)


class OpenCodeHost:
    """opencode, or a fork of it with its own binary, config variable and data directory."""

    def __init__(self, key: str, title: str, binary: str, version: str, data: str) -> None:
        self.key = key
        self.title = title
        self.cli = HOSTS_DIR / "node_modules" / ".bin" / binary
        self.version = version
        self.data = data
        """The directory under XDG_DATA_HOME it keeps its state (and cut results) in."""

    def problem(self) -> str | None:
        return needs.cli_problem(self.cli, self.title, self.version)

    def config(self, model_url: str, servers: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The stand-in as the only provider and model, `servers` (stdio: command, args, env)
        as the only MCP servers, every permission granted, nothing shared or updated."""
        model = {
            "name": "stub",
            "attachment": True,
            "modalities": {"input": ["text", "image"], "output": ["text"]},
        }
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "stub",
            "options": {"baseURL": model_url, "apiKey": "test"},
            "models": {"m": model},
        }
        mcp = {
            name: {
                "type": "local",
                "command": [entry["command"], *entry.get("args", [])],
                "environment": dict(entry.get("env", {})),
                "enabled": True,
            }
            for name, entry in servers.items()
        }
        return {
            "provider": {"stub": provider},
            "model": "stub/m",
            "small_model": "stub/m",
            "mcp": mcp,
            "permission": {"*": "allow"},
            "autoupdate": False,
            "share": "disabled",
        }

    def run(
        self, servers: Mapping[str, Mapping[str, Any]], script: Script, *, timeout: float = 120
    ) -> ChatRun:
        """One `run` with `servers` as its only MCP servers."""
        needs.require(self.problem())
        names = tuple(f"{name}_" for name in servers)
        stub = ChatStub(script, lambda b: any(n.startswith(names) for n in offered(b)), results_of)
        with stub, tempfile.TemporaryDirectory(prefix=f"plainmcp-{self.key}-") as tmp:
            home = Path(tmp) / "home"
            home.mkdir()
            work = Path(tmp) / "work"
            work.mkdir()
            config = Path(tmp) / "config.json"
            config.write_text(json.dumps(self.config(stub.url, servers)))
            env = clean_env(home, ("OPENCODE", "KILO"))
            env.update(OPENCODE_CONFIG=str(config), KILO_CONFIG=str(config), PWD=str(work))
            command = [str(self.cli), "run", "--format", "json", "go"]
            saved = f".local/share/{self.data}/tool-output/*"
            return run_host(
                self.title, command, env, work, home, stub, saved=saved, timeout=timeout
            )


OPENCODE = OpenCodeHost("opencode", "opencode", "opencode", "1.18.33", "opencode")
KILO = OpenCodeHost("kilo-cli", "Kilo Code's CLI", "kilo", "7.7.7", "kilo")


class OpenCodeDriver:
    """opencode or Kilo Code's CLI as a `drivers.Driver`."""

    transports: tuple[Transport, ...] = ("stdio",)

    def __init__(self, host: OpenCodeHost) -> None:
        self.host = host
        self.key = host.key

    def problem(self) -> str | None:
        return self.host.problem()

    def tool_name(self, server: str, tool: str) -> str:
        return f"{server}_{tool}"

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        entry = {"command": target.argv[0], "args": list(target.argv[1:]), "env": dict(target.env)}
        run = self.host.run({target.name: entry}, script, timeout=timeout)
        return Seen(
            offered=run.tools,
            results=run.results,
            failed=[False] * len(run.results),
            saved=run.saved,
        )
