"""The lifespan in a real process: over stdio (`plainmcp run` and `app.run()`) and over HTTP
served by uvicorn, entered once and exited once, also when a tool raises; a start-up that
raises ends the process with a non-zero status before it answers anything."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_http import stateless
from tests.http_server import ROOT, free_port, http_server

PROBE = Path(__file__).resolve().parent / "servers" / "lifespan_probe.py"
FAILED = (
    "the lifespan of server 'lifespan-probe' failed to start: ConnectionError: database unreachable"
)


def lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


SESSION = lines(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "boom"}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "greet"}},
)

COMMANDS = {
    "plainmcp run": [sys.executable, "-m", "plainmcp", "run", str(PROBE)],
    "app.run()": [sys.executable, str(PROBE)],
}


def run_stdio(
    command: list[str], log: Path, stdin: bytes, **env: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        env={**os.environ, "LIFESPAN_LOG": str(log), **env},
        cwd=ROOT,
        timeout=30,
    )


def replies(stdout: bytes) -> dict[int, Any]:
    return {m["id"]: m for m in map(json.loads, stdout.splitlines())}


@pytest.mark.parametrize("how", COMMANDS)
def test_stdio_enters_the_lifespan_once_and_exits_it_once(how: str, tmp_path: Path) -> None:
    log = tmp_path / "lifespan.log"
    done = run_stdio(COMMANDS[how], log, SESSION)
    assert done.returncode == 0, done.stderr.decode()
    answered = replies(done.stdout)
    assert answered[2]["result"]["isError"] is True
    assert answered[2]["result"]["content"][0]["text"] == (
        "Tool 'boom' failed: ValueError: the tool broke"
    )
    assert answered[3]["result"]["content"] == [
        {"type": "text", "text": "hello from lifespan-probe"}
    ]
    assert log.read_text() == "enter\nexit\n"


@pytest.mark.parametrize("how", COMMANDS)
def test_a_failing_start_up_exits_non_zero_before_answering(how: str, tmp_path: Path) -> None:
    log = tmp_path / "lifespan.log"
    done = run_stdio(COMMANDS[how], log, SESSION, LIFESPAN_FAIL="1")
    assert done.returncode == 1
    assert done.stdout == b""
    stderr = done.stderr.decode()
    assert FAILED in stderr
    assert "ConnectionError: database unreachable" in stderr.split(FAILED, 1)[1]  # the cause
    assert log.read_text() == "enter\n"


def test_uvicorn_enters_the_lifespan_at_startup_and_exits_it_at_shutdown(tmp_path: Path) -> None:
    log = tmp_path / "lifespan.log"
    with http_server(PROBE, env={"LIFESPAN_LOG": str(log)}) as server:
        assert log.read_text() == "enter\n"
        boom = stateless(server, 1, "tools/call", name="boom").message()
        assert boom["result"]["content"][0]["text"] == (
            "Tool 'boom' failed: ValueError: the tool broke"
        )
        greet = stateless(server, 2, "tools/call", name="greet").message()
        assert greet["result"]["content"] == [{"type": "text", "text": "hello from lifespan-probe"}]
        assert log.read_text() == "enter\n"
    assert server.proc.returncode == -15  # uvicorn re-raises SIGTERM once shut down cleanly
    assert log.read_text() == "enter\nexit\n"


def test_uvicorn_stops_with_startup_failed_when_the_start_up_raises(tmp_path: Path) -> None:
    log = tmp_path / "lifespan.log"
    port = str(free_port())
    done = run_stdio(
        [*COMMANDS["plainmcp run"], "--http", "--port", port], log, b"", LIFESPAN_FAIL="1"
    )
    assert done.returncode == 3  # uvicorn's start-up failure
    stderr = done.stderr.decode()
    assert FAILED in stderr
    assert re.search(r"Application startup failed\. Exiting\.", stderr)
    assert log.read_text() == "enter\n"
