"""Drive the real Gemini CLI (`gemini -p`) against plainmcp servers, with a scripted model.

Gemini CLI's model API (the Gemini API, with `gemini-api-key` auth) is pointed at `GeminiStub`
on 127.0.0.1 through its documented `GOOGLE_GEMINI_BASE_URL`. Each agent turn
(`streamGenerateContent`) is answered with the next call of a list, as a `functionCall`; the
`functionResponse` parts of the last turn are exactly what the model would have received.
Gemini CLI runs with a throwaway HOME whose settings name only the servers given.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts import needs
from tests.hosts.claude_code import HOSTS_DIR, _group
from tests.hosts.scripts import ToolUse

GEMINI = HOSTS_DIR / "node_modules" / ".bin" / "gemini"
VERSION = "0.61.0"


def gemini_problem() -> str | None:
    if not GEMINI.exists():
        return f"Gemini CLI is not installed in {GEMINI.parent} (run scripts/setup)"
    try:
        out = subprocess.run(
            [str(GEMINI), "--version"], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{GEMINI} does not run: {exc}"
    if out.strip() != VERSION:
        return f"{GEMINI} is {out.strip()!r}, expected {VERSION} (re-run scripts/setup)"
    return None


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


class GeminiStub:
    """The Gemini API's streamGenerateContent on 127.0.0.1, making `calls` one per turn."""

    def __init__(self, calls: Sequence[ToolUse]) -> None:
        self.calls = list(calls)
        self.turns: list[dict[str, Any]] = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                payload, kind = stub._answer(self.path, body)
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

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

    def __enter__(self) -> GeminiStub:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


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
