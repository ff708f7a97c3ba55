"""stdout is the protocol's in every launch form: `python server.py`, `plainmcp run` and
`python -m plainmcp run`, with Python's stdout buffered or not (`PYTHONUNBUFFERED=1`), for
prints at import, between import and `run()`, and inside a tool, flushed or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER = str(Path(__file__).parent / "servers" / "prints.py")
TIMEOUT = 30.0

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "shout", "arguments": {"text": "hey"}},
}
INITIALIZE_REPLY = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "logging": {},
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
        },
        "serverInfo": {"name": "prints", "version": "1.0.0"},
    },
}
CALL_REPLY = {
    "jsonrpc": "2.0",
    "id": 2,
    "result": {"content": [{"type": "text", "text": "HEY"}], "isError": False},
}

AT_IMPORT = ["import: print", "import: print flush=True"]
BEFORE_RUN = ["main: print", "main: sys.stdout.buffer", "main: print flush=True"]
IN_TOOL = ["tool: print", "tool: print flush=True", "tool: os.write(1)"]

LAUNCH_FORMS = {
    "python server.py": ([sys.executable, SERVER], AT_IMPORT + BEFORE_RUN + IN_TOOL),
    # the module is imported, not run as __main__: no `if __name__ == "__main__"` block
    "plainmcp run": (
        [str(Path(sys.executable).parent / "plainmcp"), "run", SERVER],
        AT_IMPORT + IN_TOOL,
    ),
    "python -m plainmcp run": (
        [sys.executable, "-m", "plainmcp", "run", SERVER],
        AT_IMPORT + IN_TOOL,
    ),
}


def environment(unbuffered: bool) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def reply(stdout: IO[bytes]) -> Any:
    raw = stdout.readline()
    try:
        return json.loads(raw)
    except ValueError:
        pytest.fail(f"not a JSON-RPC message on stdout: {raw!r}")


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED=1"])
@pytest.mark.parametrize("form", list(LAUNCH_FORMS))
def test_prints_reach_stderr_in_order_and_stdout_carries_only_messages(
    form: str, unbuffered: bool
) -> None:
    command, printed = LAUNCH_FORMS[form]
    p = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(unbuffered),
    )
    try:
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(line(INITIALIZE))
        p.stdin.flush()
        assert reply(p.stdout) == INITIALIZE_REPLY
        p.stdin.write(line(INITIALIZED) + line(CALL))
        p.stdin.flush()
        assert reply(p.stdout) == CALL_REPLY
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(TIMEOUT)
    assert (p.returncode, out) == (0, b"")
    assert err.decode().splitlines() == printed
