"""Drive the real Gemini CLI (`gemini -p`) against plainmcp servers, with a scripted model.

Gemini CLI's model API (the Gemini API, with `gemini-api-key` auth) is pointed at `GeminiStub`
on 127.0.0.1 through its documented `GOOGLE_GEMINI_BASE_URL`. Each agent turn
(`streamGenerateContent`) is answered with the next call of a list, as a `functionCall`; the
`functionResponse` parts of the last turn are exactly what the model would have received.
Gemini CLI runs with a throwaway HOME whose settings name only the servers given.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts import needs
from tests.hosts.claude_code import HOSTS_DIR, _group
from tests.hosts.scripts import ToolUse
from tests.hosts.stub_server import StubServer

GEMINI = HOSTS_DIR / "node_modules" / ".bin" / "gemini"
VERSION = "0.61.0"


def gemini_problem() -> str | None:
    return needs.cli_problem(GEMINI, "Gemini CLI", VERSION)


def ensure_gemini() -> None:
    needs.require(gemini_problem())


def responses(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every functionResponse in a request's contents, in order."""
    return [
        part["functionResponse"]
        for content in body.get("contents", [])
        for part in content.get("parts", [])
        if isinstance(part, dict) and "functionResponse" in part
    ]


class GeminiStub(StubServer):
    """The Gemini API's streamGenerateContent on 127.0.0.1, making `calls` one per turn."""

    def __init__(self, calls: Sequence[ToolUse]) -> None:
        super().__init__()
        self.calls = list(calls)
        self.turns: list[dict[str, Any]] = []

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        return self._answer(path, body)

    def _answer(self, path: str, body: Mapping[str, Any]) -> tuple[bytes, str]:
        if ":countTokens" in path:
            return json.dumps({"totalTokens": 1}).encode(), "application/json"
        parts: list[dict[str, Any]] = [{"text": "done"}]
        if ":streamGenerateContent" in path and body.get("tools"):
            self.turns.append(dict(body))
            done = len(responses(body))
            if done < len(self.calls):
                call = self.calls[done]
                parts = [{"functionCall": {"name": call.name, "args": call.input}}]
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
        }
        if "alt=sse" in path:
            return f"data: {json.dumps(chunk)}\n\n".encode(), "text/event-stream"
        return json.dumps(chunk).encode(), "application/json"


@dataclass
class GeminiRun:
    turns: list[dict[str, Any]]
    output: str

    @property
    def tools(self) -> list[str]:
        return [d["name"] for t in self.turns[0]["tools"] for d in t["functionDeclarations"]]

    @property
    def results(self) -> list[dict[str, Any]]:
        """The functionResponse of each call, as the model got it in the last turn."""
        return responses(self.turns[-1])


def run_gemini(
    servers: Mapping[str, Mapping[str, Any]], calls: Sequence[ToolUse], *, timeout: float = 180
) -> GeminiRun:
    """One `gemini -p` run (every tool allowed: --yolo) with `servers` as its only servers."""
    ensure_gemini()
    with GeminiStub(calls) as model, tempfile.TemporaryDirectory(prefix="plainmcp-gm-") as tmp:
        home = Path(tmp) / "home"
        (home / ".gemini").mkdir(parents=True)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            # Nothing but the stand-in on 127.0.0.1: no usage statistics, no update check.
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "telemetry": {"enabled": False},
            "mcpServers": {name: {**entry, "trust": True} for name, entry in servers.items()},
        }
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        work = Path(tmp) / "work"
        work.mkdir()
        env = {
            k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "MCP_"))
        }
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            GEMINI_API_KEY="test",
            GOOGLE_GEMINI_BASE_URL=model.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )
        # A named model: in its default "auto" mode Gemini CLI first asks a router model with
        # a prompt of its own, retrying with backoff (about 100 s) while the stand-in's answer
        # is not the JSON it wants.
        model_name = ["-m", "gemini-2.5-pro"]
        command = [str(GEMINI), "-p", "go", "--yolo", "--output-format", "json", *model_name]
        with _group(command, env, work) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"gemini -p did not end within {timeout} s") from None
        assert proc.returncode == 0, f"gemini exited {proc.returncode}:\n{out}\n{err}"
        return GeminiRun(list(model.turns), out)
