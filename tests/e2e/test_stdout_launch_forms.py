"""stdout is the protocol's in every launch form: `python server.py`, `plainmcp run` and
`python -m plainmcp run`, with Python's stdout buffered or not (`PYTHONUNBUFFERED=1`), for
prints at import, between import and `run()`, and inside a tool, flushed or not."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.http_server import free_port

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


def reply(server: Running) -> Any:
    raw = server.readline()
    try:
        return json.loads(raw)
    except ValueError:
        pytest.fail(f"not a JSON-RPC message on stdout: {raw!r}")


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED=1"])
@pytest.mark.parametrize("form", list(LAUNCH_FORMS))
def test_prints_reach_stderr_in_order_and_stdout_carries_only_messages(
    running: Callable[..., Running], form: str, unbuffered: bool
) -> None:
    command, printed = LAUNCH_FORMS[form]
    server = running(command, environment(unbuffered))
    server.write(line(INITIALIZE))
    assert reply(server) == INITIALIZE_REPLY
    server.write(line(INITIALIZED) + line(CALL))
    assert reply(server) == CALL_REPLY
    rc, out, err = server.finish()
    assert (rc, out) == (0, b"")
    assert err.decode().splitlines() == printed


BOTH = """
from plainmcp import Server

app = Server("prints", version="1.0.0")


@app.tool
def shout(text: str) -> str:
    \"\"\"Upper-case the text.\"\"\"
    print("tool: print", flush=True)
    return text.upper()


web = app.http_app()  # for `uvicorn server:web`
print("after http_app(): print")
print("after http_app(): print flush=True", flush=True)

if __name__ == "__main__":
    print("main: print flush=True", flush=True)
    app.run()
"""


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED=1"])
def test_a_file_that_makes_an_http_app_and_serves_stdio_keeps_stdout_for_messages(
    running: Callable[..., Running], tmp_path: Path, unbuffered: bool
) -> None:
    server_file = tmp_path / "server.py"
    server_file.write_text(BOTH)
    server = running(python(str(server_file)), environment(unbuffered))
    server.write(line(INITIALIZE))
    assert reply(server) == INITIALIZE_REPLY
    server.write(line(INITIALIZED) + line(CALL))
    assert reply(server) == CALL_REPLY
    rc, out, err = server.finish()
    assert (rc, out) == (0, b"")
    assert err.decode().splitlines() == [
        "after http_app(): print",
        "after http_app(): print flush=True",
        "main: print flush=True",
        "tool: print",
    ]


def test_uvicorn_serving_the_file_s_app_releases_what_was_held_to_stdout(
    running: Callable[..., Running], tmp_path: Path
) -> None:
    (tmp_path / "server.py").write_text(BOTH)
    port = free_port()
    server = running(
        python("-m", "uvicorn", "server:web", "--port", str(port), "--log-level", "warning"),
        environment(unbuffered=False),
        cwd=tmp_path,
    )
    # held from `import plainmcp` (stdout is a pipe, stdin is not a terminal) until uvicorn
    # starts the app's lifespan
    assert server.readline() == b"after http_app(): print\n"
    assert server.readline() == b"after http_app(): print flush=True\n"
    assert server.running()
    server.p.terminate()
    assert server.p.wait(TIMEOUT) == -signal.SIGTERM  # uvicorn re-raises it once shut down


LIMIT = 1 << 20
OVERFLOW = (
    f"plainmcp: more than {LIMIT} bytes were written to stdout before this process served stdio"
    " or showed it is no stdio server; they and what follows go to stderr"
    " (plainmcp.transports.stdout)\n"
)
PRINTS_A_LOT = """
import sys
from plainmcp import Server

print("a" * {size})
app = Server("prints", version="1.0.0")


@app.tool
def shout(text: str) -> str:
    \"\"\"Upper-case the text.\"\"\"
    print("tool: print", flush=True)
    return text.upper()


app.run()
"""


@pytest.mark.parametrize("size", [LIMIT - 1, LIMIT], ids=["at the limit", "past it"])
def test_held_output_is_bounded_and_past_the_bound_goes_to_stderr_at_once(
    running: Callable[..., Running], tmp_path: Path, size: int
) -> None:
    server_file = tmp_path / "server.py"
    server_file.write_text(PRINTS_A_LOT.format(size=size))
    server = running(python(str(server_file)), environment(unbuffered=False))
    server.write(line(INITIALIZE))
    assert reply(server) == INITIALIZE_REPLY
    server.write(line(INITIALIZED) + line(CALL))
    assert reply(server) == CALL_REPLY
    rc, out, err = server.finish()
    assert (rc, out) == (0, b"")
    note = OVERFLOW if size + 1 > LIMIT else ""  # its newline counts too
    assert err.decode() == note + "a" * size + "\ntool: print\n"


# --- programs that are not stdio servers print to stdout at once -----------------------------


class Running:
    """A program under test: its stdout read line by line with a bound on each wait, its
    stderr collected until it exits."""

    def __init__(self, args: list[str], env: dict[str, str], **popen: Any) -> None:
        popen.setdefault("stdin", subprocess.PIPE)
        self.p = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **popen
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._err = bytearray()
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_stdout(self) -> None:
        assert self.p.stdout is not None
        for raw in self.p.stdout:
            self._lines.put(raw)
        self._lines.put(b"")  # end of output

    def _read_stderr(self) -> None:
        assert self.p.stderr is not None
        self._err += self.p.stderr.read()

    def readline(self) -> bytes:
        try:
            return self._lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no line on stdout within {TIMEOUT}s") from None

    def write(self, data: bytes) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def running(self) -> bool:
        return self.p.poll() is None

    def finish(self) -> tuple[int, bytes, bytes]:
        """Close stdin, wait for the exit: the exit code, the rest of stdout, all of stderr."""
        try:
            if self.p.stdin is not None:
                self.p.stdin.close()
            rc = self.p.wait(TIMEOUT)
            for thread in self._threads:
                thread.join(TIMEOUT)
        finally:
            self.kill()
        rest = b"".join(iter(self._lines.get_nowait, b""))
        return rc, rest, bytes(self._err)

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(TIMEOUT)


@pytest.fixture
def running() -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def start(args: list[str], env: dict[str, str], **popen: Any) -> Running:
        started.append(Running(args, env, **popen))
        return started[-1]

    yield start
    for program in started:
        program.kill()


CLIENT = """
import os, sys
import anyio
from plainmcp import Client

flush = "PYTHONUNBUFFERED" not in os.environ
print("before the client", flush=flush)


async def main() -> None:
    async with Client.stdio(sys.executable, os.environ["SERVER"]) as client:
        result = await client.call_tool("shout", {"text": "hey"})
    print(f"shout: {result.text}", flush=flush)
    print(f"after stdin: {sys.stdin.readline().strip()}", flush=flush)


anyio.run(main)
"""


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


@pytest.mark.parametrize("unbuffered", [False, True], ids=["flush=True", "PYTHONUNBUFFERED=1"])
def test_a_client_program_prints_to_stdout_while_it_runs(
    running: Callable[..., Running], tmp_path: Path, unbuffered: bool
) -> None:
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    client = running(python(str(script)), {**environment(unbuffered), "SERVER": SERVER})
    assert client.readline() == b"before the client\n"
    assert client.readline() == b"shout: HEY\n"
    assert client.running()  # waiting for its line of stdin
    client.write(b"go\n")
    assert client.readline() == b"after stdin: go\n"
    rc, out, err = client.finish()
    assert (rc, out) == (0, b"")
    # the server it spawned shares its stderr: its prints are there, in order
    assert err.decode().splitlines() == AT_IMPORT + BEFORE_RUN + IN_TOOL


RELEASES = {
    "Client.memory": (
        "async def session() -> None:\n"
        "    async with plainmcp.Client.memory(plainmcp.Server('local')):\n"
        "        pass\n"
        "anyio.run(session)\n"
    ),
    "an HTTP app's lifespan starts": (
        "web = plainmcp.Server('web').http_app()\n"
        "events = [{'type': 'lifespan.startup'}, {'type': 'lifespan.shutdown'}]\n"
        "async def receive() -> dict:\n"
        "    return events.pop(0)\n"
        "async def send(message: dict) -> None:\n"
        "    pass\n"
        "anyio.run(web, {'type': 'lifespan'}, receive, send)\n"
    ),
    "an HTTP app's first request": (
        "web = plainmcp.Server('web').http_app()\n"
        "async def receive() -> dict:\n"
        "    return {'type': 'http.request', 'body': b'', 'more_body': False}\n"
        "async def send(message: dict) -> None:\n"
        "    pass\n"
        "scope = {'type': 'http', 'method': 'GET', 'path': '/',\n"
        "         'headers': [(b'host', b'localhost')]}\n"
        "anyio.run(web, scope, receive, send)\n"
    ),
    "release_stdout()": (
        "from plainmcp.transports.stdout import release_stdout\nrelease_stdout()\n"
    ),
}
HELD_THEN_RELEASED = """
import sys
import anyio
import plainmcp

print("held", flush=True)
sys.stdout.buffer.write(b"held bytes\\n")
print("held too")
{release}
print("released", flush=True)
print("read", sys.stdin.readline().strip(), flush=True)
"""


@pytest.mark.parametrize("release", list(RELEASES))
def test_what_shows_a_program_is_no_stdio_server_sends_held_output_to_stdout(
    running: Callable[..., Running], tmp_path: Path, release: str
) -> None:
    script = tmp_path / "program.py"
    script.write_text(HELD_THEN_RELEASED.format(release=RELEASES[release]))
    program = running(python(str(script)), environment(unbuffered=False))
    for expected in (b"held\n", b"held bytes\n", b"held too\n", b"released\n"):
        assert program.readline() == expected
    assert program.running()  # waiting for its line of stdin
    program.write(b"x\n")
    assert program.finish() == (0, b"read x\n", b"")


def test_a_program_past_the_bound_prints_to_stdout_again_once_it_shows_it_is_no_server(
    running: Callable[..., Running],
) -> None:
    code = (
        "import plainmcp\n"
        f"print('a' * {LIMIT})\n"
        "print('past the bound')\n"
        "from plainmcp.transports.stdout import release_stdout\n"
        "release_stdout()\n"
        "print('released')\n"
    )
    program = running(python("-c", code), environment(unbuffered=False))
    rc, out, err = program.finish()
    assert (rc, out) == (0, b"released\n")
    assert err.decode() == OVERFLOW + "a" * LIMIT + "\npast the bound\n"


@pytest.mark.parametrize("unbuffered", [False, True], ids=["flush=True", "PYTHONUNBUFFERED=1"])
def test_a_program_that_neither_serves_nor_connects_prints_at_exit(
    running: Callable[..., Running], unbuffered: bool
) -> None:
    code = (
        "import sys, plainmcp\n"
        "print('one', flush=True)\n"
        "sys.stdout.buffer.write(b'two\\n')\n"
        "print('three', file=sys.stderr, flush=True)\n"
        "print('four')\n"
    )
    program = running(python("-c", code), environment(unbuffered))
    assert program.finish() == (0, b"one\ntwo\nfour\n", b"three\n")


def test_a_program_run_from_a_terminal_is_never_held(running: Callable[..., Running]) -> None:
    controller, terminal = os.openpty()
    try:
        code = "import plainmcp; print('at once', flush=True); input()"
        program = running(python("-c", code), environment(unbuffered=False), stdin=terminal)
        assert program.readline() == b"at once\n"
        assert program.running()  # waiting for its line of input
        os.write(controller, b"\n")
        assert program.finish() == (0, b"", b"")
    finally:
        os.close(controller)
        os.close(terminal)


GATE_SERVER = """
import os
from plainmcp import Server

app = Server("gate", version="1.0.0", continuation=None)


@app.tool
def wait() -> str:
    \"\"\"Wait for the test to open the gate.\"\"\"
    with open(os.environ["GATE"]) as gate:
        return gate.read()
"""


def test_plainmcp_demo_prints_each_line_as_it_goes(
    running: Callable[..., Running], tmp_path: Path
) -> None:
    (tmp_path / "server.py").write_text(GATE_SERVER)
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    demo = running(
        # the demo's own wait for the tool outlasts each of ours
        python("-m", "plainmcp", "demo", "server.py", "--timeout", str(4 * TIMEOUT)),
        {**environment(unbuffered=True), "GATE": str(gate)},
        cwd=tmp_path,
    )
    for expected in (
        "Started server.py over stdio and completed the initialize handshake.\n",
        "Server: gate 1.0.0, protocol revision 2025-11-25\n",
        "\n",
        "1 tools:\n",
        "  wait: Wait for the test to open the gate.\n",
        "\n",
        "$ plainmcp call server.py wait\n",
    ):
        assert demo.readline() == expected.encode()
    assert demo.running()  # the tool is waiting at the gate
    gate.write_text("opened")
    assert demo.finish() == (0, b"opened\n\nDone: 1 tools called.\n", b"")
