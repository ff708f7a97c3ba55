"""LangChain's MCP adapters (langchain-mcp-adapters) as drivers of the host matrix, in both of
their modes, with a scripted model.

The adapters need mcp<2, so they run in their own venv (.venv-langchain, made by scripts/setup)
as tests/hosts/langchain_child.py, which holds the MCP session(s) and invokes each LangChain
tool with a tool call, as LangGraph's tool node does; this side runs the script. What the model
is handed is the `ToolMessage`'s content (LangChain's standard blocks); its artifact (the
structuredContent) is kept beside the message and never shown to a model, and its status
"error" is the framework's failure flag. Where the adapter raises instead of answering (an
audio block: NotImplementedError), an agent's run ends there and its model is shown nothing:
that call's result is recorded as empty.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Literal

from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-langchain" / "bin" / "python"
CHILD = Path(__file__).resolve().with_name("langchain_child.py")
VERSION = "0.3.2"

Mode = Literal["session", "per-call"]


def langchain_problem() -> str | None:
    if not PYTHON.exists():
        return f"LangChain's venv is missing ({PYTHON}): run scripts/setup"
    try:
        found = subprocess.run(
            [
                str(PYTHON),
                "-c",
                "import importlib.metadata as m; print(m.version('langchain-mcp-adapters'))",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{PYTHON} has no langchain-mcp-adapters: {exc} (run scripts/setup)"
    if found != VERSION:
        return f"langchain-mcp-adapters is {found}, expected {VERSION} (run scripts/setup)"
    return None


def parts_of(content: Any) -> list[Part]:
    """A ToolMessage's content as Parts: a string or a text block is text, an image block with
    base64 keeps its bytes, a file or image block with a URL (a resource link) is a "link" whose
    text is the URL, a file block with base64 is binary."""
    if isinstance(content, str):
        return [Part("text", text=content)]
    parts = []
    for block in content:
        if isinstance(block, str) or block.get("type") == "text":
            parts.append(Part("text", text=block if isinstance(block, str) else block["text"]))
        elif "url" in block:
            parts.append(Part("link", text=block["url"], media_type=block.get("mime_type", "")))
        elif "base64" in block:
            kind = "image" if block.get("type") == "image" else "binary"
            data = base64.b64decode(block["base64"])
            parts.append(Part(kind, media_type=block.get("mime_type", ""), data=data))
        else:
            parts.append(Part(str(block.get("type")), text=json.dumps(block)))
    return parts


class LangChain:
    """LangChain's MCP adapters as a `drivers.Driver`: `mode` "session" loads the tools on one
    open session, "per-call" is `MultiServerMCPClient.get_tools()`, a new session and server
    process per call."""

    key = "langchain-mcp-adapters"
    transports: tuple[Transport, ...] = ("stdio",)

    def __init__(self, mode: Mode) -> None:
        self.mode = mode
        self.per_call_sessions = mode == "per-call"
        """Whether every call gets a session (and over stdio a server process) of its own."""

    def problem(self) -> str | None:
        return langchain_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return tool

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        spec: dict[str, Any] = {
            "name": target.name,
            "command": target.argv[0],
            "args": list(target.argv[1:]),
            # The SDK's stdio client hands a server only a few variables of its own: the tests'
            # stdio cache folder (tests/conftest.py) goes by name.
            "env": {**_cache_env(), **dict(target.env)} or None,
            "cwd": str(target.cwd) if target.cwd else None,
        }
        proc = subprocess.Popen(
            [str(PYTHON), str(CHILD), self.mode, json.dumps(spec)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        assert proc.stdin is not None and proc.stdout is not None
        results: list[list[Part]] = []
        failed: list[bool] = []
        try:
            offered = list(self._read(proc)["tools"])
            while (call := script(results)) is not None:
                line = {"call": {"name": call.name, "input": call.input}}
                proc.stdin.write(json.dumps(line) + "\n")
                proc.stdin.flush()
                answer = self._read(proc)
                message = answer.get("message")
                results.append([] if message is None else parts_of(message["content"]))
                failed.append(message is not None and message["status"] == "error")
            proc.stdin.write(json.dumps({"end": True}) + "\n")
            proc.stdin.close()
            assert proc.wait(timeout=timeout) == 0, f"langchain_child exited {proc.returncode}"
        finally:
            if proc.poll() is None:
                proc.kill()
                with contextlib.suppress(subprocess.SubprocessError):
                    proc.wait(timeout=10)
        return Seen(offered=offered, results=results, failed=failed)

    @staticmethod
    def _read(proc: subprocess.Popen[str]) -> dict[str, Any]:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, f"langchain_child ended early (exit {proc.wait()})"
        answer: dict[str, Any] = json.loads(line)
        return answer


def _cache_env() -> dict[str, str]:
    folder = os.environ.get("PLAINMCP_CACHE_DIR")
    return {"PLAINMCP_CACHE_DIR": folder} if folder else {}
