"""Drive Claude Code's terminal UI (plain `claude`, in a pseudo-terminal) against a plainmcp
server, with the scripted model of claude_code.py.

The terminal UI is another entrypoint than `claude -p` (`cli`, not `sdk-cli`) and declares
other capabilities (the tasks extension), so what it does is measured here apart. Its throwaway
HOME is seeded so it starts straight at the prompt: onboarding done, the stand-in's API key
approved, the folder trusted, the server in its user config and its tools allowed; the prompt
is its argument (`claude go`), which the UI may send before its servers are connected: the
model then waits for them with the UI's own tool (`WaitingModel`). The run waits on the model's
turns, never on a sleep: once the script has no more calls (the model's last turn holds every
result) the UI is killed, servers and all.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cli.lines import Lines
from tests.hosts.claude_code import CLAUDE, ModelStub, _clean_env, _message, _sse, ensure_claude
from tests.hosts.scripts import Part, Script, ToolUse

WAIT_TOOL = "WaitForMcpServers"
_WAIT_ID = "toolu_wait_"


class WaitingModel(ModelStub):
    """The stand-in model, which in a turn offered Claude Code's WaitForMcpServers tool and no
    MCP tool yet (the UI sent the prompt before its servers were connected) calls that tool, as
    a model would; the script sees only the turns and results of the MCP calls. With `until`,
    the first request whose messages hold that text is kept (`heard`)."""

    def __init__(self, script: Script, until: str | None = None) -> None:
        super().__init__(script)
        self.until = until
        self.heard: dict[str, Any] = {}
        self.hearing = threading.Event()

    def _answer(self, body: Mapping[str, Any]) -> tuple[bytes, str]:
        messages = json.dumps(body.get("messages", []), ensure_ascii=False)
        if self.until is not None and not self.hearing.is_set() and self.until in messages:
            self.heard = dict(body)
            self.hearing.set()
        names = [t.get("name", "") for t in body.get("tools", []) if isinstance(t, dict)]
        if (
            body.get("stream")
            and WAIT_TOOL in names
            and not any(n.startswith("mcp__") for n in names)
        ):
            waited = sum(_WAIT_ID in json.dumps(m) for m in body.get("messages", []))
            use = {"type": "tool_use", "id": f"{_WAIT_ID}{waited}", "name": WAIT_TOOL, "input": {}}
            return _sse(_message(str(body.get("model")), [use], "tool_use")), "text/event-stream"
        return super()._answer({**body, "messages": [_without_waits(m) for m in body["messages"]]})


def _without_waits(message: Mapping[str, Any]) -> Mapping[str, Any]:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = [b for b in content if _WAIT_ID not in str(b.get("tool_use_id", b.get("id", "")))]
    return {**message, "content": kept}


@dataclass
class TuiRun:
    record: list[str]
    """Every line through the relay ("C ..." from Claude Code, "S ..." to it)."""
    parts: list[list[Part]]
    """What each call gave the model, in order (the parts of the model's last turn)."""
    heard: dict[str, Any]
    """The first request of the model's whose messages hold `until` (run_tui), or {}."""


def _seed(home: Path, folder: Path, server: dict[str, Any], name: str) -> None:
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
        "mcpServers": {name: server},
        "projects": {str(folder): {"hasTrustDialogAccepted": True}},
    }
    (home / ".claude.json").write_text(json.dumps(state))
    (home / ".claude").mkdir()
    settings = {"permissions": {"allow": [f"mcp__{name}"]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(settings))


def run_tui(
    argv: Sequence[str],
    record: Path,
    calls: Sequence[ToolUse],
    *,
    name: str = "fx",
    env: dict[str, str] | None = None,
    until: str | None = None,
    timeout: float = 60,
) -> TuiRun:
    """Claude Code's UI with one stdio server, `argv`, which must write its relay record to the
    FIFO path `record` (claude_code.RELAY does); the model makes `calls`, then ends its turn.
    With `until`, the run goes on until a request of the model's holds that text (a result
    Claude Code hands the model later, such as a background task's)."""
    ensure_claude()
    done = threading.Event()
    seen: list[list[Part]] = []

    def script(results: Sequence[Sequence[Part]]) -> ToolUse | None:
        if len(results) < len(calls):
            return calls[len(results)]
        seen[:] = [list(r) for r in results]
        done.set()
        return None

    with (
        tempfile.TemporaryDirectory(prefix="plainmcp-cc-tui-") as tmp,
        Lines.fifo(record) as lines,
        WaitingModel(script, until) as model,
    ):
        home, folder = Path(tmp) / "home", Path(tmp) / "folder"
        home.mkdir()
        folder.mkdir()
        _seed(home, folder, {"type": "stdio", "command": argv[0], "args": list(argv[1:])}, name)
        full = _clean_env(home, model.url) | {"TERM": "xterm-256color"} | (env or {})
        pid, fd = pty.fork()
        if pid == 0:  # the child: the UI, in a session of its own (pty.fork's setsid)
            os.chdir(folder)
            os.execve(str(CLAUDE), [str(CLAUDE), "go"], full)
        screen: list[bytes] = []
        drain = threading.Thread(target=_drain, args=(fd, screen), daemon=True)
        drain.start()
        try:
            assert done.wait(timeout), _tail(screen) + _turns(model.requests)
            if until is not None:
                assert model.hearing.wait(timeout), _tail(screen) + _turns(model.requests)
            assert not model.failures, model.failures
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(fd)
        return TuiRun(list(lines.lines), seen, model.heard)


def _drain(fd: int, screen: list[bytes]) -> None:
    """Read the UI's screen, so it never blocks writing to its terminal; keep the last of it."""
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], 5)
            chunk = os.read(fd, 65536) if ready else b""
        except OSError:
            return
        if ready and not chunk:
            return
        screen[:] = [*screen[-40:], chunk]


def _turns(requests: Sequence[dict[str, Any]]) -> str:
    """Each request the model got: whether it streams, and the tools it was offered."""
    rows = [
        f"{r['body'].get('stream')} {[t.get('name') for t in r['body'].get('tools', [])]}"
        for r in requests
    ]
    return "\nThe model's requests:\n" + "\n".join(rows)


def _tail(screen: list[bytes]) -> str:
    text = b"".join(screen).decode(errors="replace")
    return "Claude Code's UI did not finish the calls; its screen ended:\n" + text[-3000:]
