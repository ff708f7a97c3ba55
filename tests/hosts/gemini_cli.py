"""Drive the real Gemini CLI (`gemini -p`) against plainmcp servers, with a scripted model.

Gemini CLI's model API (the Gemini API, with `gemini-api-key` auth) is pointed at `GeminiStub`
on 127.0.0.1 through its documented `GOOGLE_GEMINI_BASE_URL`. Each agent turn
(`streamGenerateContent`) is answered with the next call of a list, or the call a `Script`
decides (`GeminiCli`, the matrix's driver), as a `functionCall`; the `functionResponse` parts of
the turn after a call are exactly what the model received (later turns mask big older results).
Gemini's loop check, asked from its 30th turn, is answered "not a loop" (`NOT_A_LOOP`).
Gemini CLI runs with a throwaway HOME whose settings name only the servers given.
"""

from __future__ import annotations

import base64
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
from tests.hosts.codex_cli import stdio_entry
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script, ToolUse, sequence
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


NOT_A_LOOP = {
    "unproductive_state_analysis": "Each call is the one the previous result asked for.",
    "unproductive_state_confidence": 0.0,
}
"""The answer to Gemini's loop check: from its 30th turn in one prompt Gemini asks a model
(gemini-3-flash-preview) whether the conversation is stuck, wanting this JSON; any other answer
is retried with backoff (ten times, most of four minutes of a matrix run)."""


def is_loop_check(body: Mapping[str, Any]) -> bool:
    """Whether a request is Gemini's loop check: its answer must follow a JSON schema asking
    for `unproductive_state_confidence`."""
    schema = body.get("generationConfig", {}).get("responseJsonSchema", {})
    return "unproductive_state_confidence" in schema.get("properties", {})


class GeminiStub(StubServer):
    """The Gemini API's streamGenerateContent on 127.0.0.1, making `calls` one per turn, or
    the calls `script` decides from the results of each turn (as `seen_results` reduces them).
    A request without tools (Gemini's own side requests) is answered with plain text."""

    def __init__(self, calls: Sequence[ToolUse] = (), *, script: Script | None = None) -> None:
        super().__init__()
        self.script = script or sequence(*calls)
        self.turns: list[dict[str, Any]] = []
        self.failures: list[str] = []
        self.seen: list[tuple[list[Part], bool]] = []
        """Each call's result as the model first saw it (in the turn right after the call), and
        whether it was marked an error: in later turns Gemini masks older big results
        (`<tool_output_masked>`, its tool output masking)."""

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        return self._answer(path, body)

    def _answer(self, path: str, body: Mapping[str, Any]) -> tuple[bytes, str]:
        if ":countTokens" in path:
            return json.dumps({"totalTokens": 1}).encode(), "application/json"
        parts: list[dict[str, Any]] = [{"text": "done"}]
        if is_loop_check(body):
            parts = [{"text": json.dumps(NOT_A_LOOP)}]
        elif ":streamGenerateContent" in path and body.get("tools"):
            self.turns.append(dict(body))
            self.seen += seen_results(body)[len(self.seen) :]
            try:
                call = self.script([parts for parts, _ in self.seen])
            except Exception as exc:
                # A broken script ends the run; run_gemini then fails with it.
                self.failures.append(repr(exc))
                call = None
            if call is not None:
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
        """The functionResponse of each call, as the model got it in the turn after the call
        (in later turns Gemini may mask it)."""
        first: list[dict[str, Any]] = []
        for turn in self.turns:
            first += responses(turn)[len(first) :]
        return first


def write_settings(home: Path, servers: Mapping[str, Mapping[str, Any]]) -> None:
    """HOME's settings.json: the API-key auth the stand-in takes, `servers` as the only (and
    trusted) servers, nothing sent elsewhere."""
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        # Nothing but the stand-in on 127.0.0.1: no usage statistics, no update check.
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "telemetry": {"enabled": False},
        "mcpServers": {name: {**entry, "trust": True} for name, entry in servers.items()},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))


def gemini_env(home: Path, model_url: str) -> dict[str, str]:
    """This process's environment with `home` as HOME, none of the caller's Gemini, Google or
    MCP settings, the stand-in at `model_url` as the Gemini API, the folder trusted."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI_", "GOOGLE_", "MCP_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GEMINI_API_KEY="test",
        GOOGLE_GEMINI_BASE_URL=model_url,
        GEMINI_CLI_TRUST_WORKSPACE="true",
    )
    return env


def run_gemini(
    servers: Mapping[str, Mapping[str, Any]],
    calls: Sequence[ToolUse],
    *,
    timeout: float = 180,
    model: GeminiStub | None = None,
    home: Path | None = None,
) -> GeminiRun:
    """One `gemini -p` run (every tool allowed: --yolo) with `servers` as its only servers;
    `model` is the stand-in to use (default: one making `calls`); `home` is a throwaway HOME
    kept from an earlier command (its settings.json is rewritten, the rest kept, say a login's
    tokens), else a fresh one."""
    ensure_gemini()
    stub = model or GeminiStub(calls)
    with stub as model, tempfile.TemporaryDirectory(prefix="plainmcp-gm-") as tmp:
        home = home or Path(tmp) / "home"
        write_settings(home, servers)
        work = Path(tmp) / "work"
        work.mkdir()
        env = gemini_env(home, model.url)
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
        assert not model.failures, model.failures
        assert proc.returncode == 0, f"gemini exited {proc.returncode}:\n{out}\n{err}"
        return GeminiRun(list(model.turns), out)


# --- what the model was shown, as Parts ------------------------------------------------------

OPEN = "<untrusted_context>\n"
CLOSE = "\n</untrusted_context>"
TAGS = re.compile(f"({re.escape(OPEN)}|{re.escape(CLOSE)})")


def text_parts(output: str) -> list[Part]:
    """A functionResponse's `output` as text parts, without the `<untrusted_context>` wrapper
    Gemini puts around each text block (and the line break it joins them with): each wrapped
    text is a part, and so is each run of Gemini's own lines between them (an image's line,
    a link's, a note that the output was saved)."""
    parts: list[Part] = []
    inside = False
    pieces = TAGS.split(output)
    for index, piece in enumerate(pieces):
        if piece in (OPEN, CLOSE):
            inside = piece == OPEN
            continue
        if not inside:
            if index > 0 and pieces[index - 1] == CLOSE:
                piece = piece.removeprefix("\n")
            if index + 1 < len(pieces) and pieces[index + 1] == OPEN:
                piece = piece.removesuffix("\n")
            if not piece:
                continue
        parts.append(Part("text", text=piece))
    return parts


def seen_results(body: Mapping[str, Any]) -> list[tuple[list[Part], bool]]:
    """Each call's result in a request's contents, in order, as Parts (the inline data after a
    functionResponse belongs to it), and whether Gemini marked it an error (`error`, not
    `output`)."""
    found: list[tuple[list[Part], bool]] = []
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            if not isinstance(part, dict):
                continue
            if "functionResponse" in part:
                response = part["functionResponse"].get("response", {})
                failed = "error" in response
                text = response.get("error") if failed else response.get("output", "")
                if isinstance(text, str):
                    found.append((text_parts(text), failed))
                else:
                    found.append(([Part("json", text=json.dumps(response))], failed))
            elif "inlineData" in part and found:
                data = part["inlineData"]
                kind = data["mimeType"].partition("/")[0]
                kind = kind if kind in ("image", "audio") else "binary"
                blob = base64.b64decode(data["data"])
                found[-1][0].append(Part(kind, media_type=data["mimeType"], data=blob))
    return found


# --- the matrix's driver (drivers.py) -----------------------------------------------------------


class GeminiCli:
    """Gemini CLI as a `drivers.Driver`."""

    key = "gemini-cli"
    transports: tuple[Transport, ...] = ("stdio", "http")

    def problem(self) -> str | None:
        return gemini_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return f"mcp_{server}_{tool}"

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        stub = GeminiStub(script=script)
        entry = {"httpUrl": target.url} if target.url else stdio_entry(target)
        run = run_gemini({target.name: entry}, (), model=stub, timeout=timeout)
        return Seen(
            offered=run.tools,
            results=[parts for parts, _ in stub.seen],
            failed=[failed for _, failed in stub.seen],
        )
