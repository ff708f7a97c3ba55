"""A plainmcp server file served over Streamable HTTP in a subprocess, for end-to-end tests.

`plainmcp run FILE --http --port N` on 127.0.0.1, exactly as a user starts it; the context
manager waits until the port accepts connections and stops the process afterwards.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@dataclass
class HttpServer:
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def http_server(
    target: str | Path,
    *extra: str,
    env: Mapping[str, str] | None = None,
    script: bool = False,
    command: str = "run",
) -> Iterator[HttpServer]:
    """Serve `target` (FILE[:OBJECT]) over HTTP until the block ends; `script=True` runs the
    file itself as `python FILE PORT` (a file that serves an app of its own making);
    `command`: the plainmcp command given the target (`proxy`: a URL)."""
    for attempt in range(PORT_ATTEMPTS):
        server = _start(target, extra, env, script, command)
        try:
            _wait_listening(server)
            break
        except PortTaken:
            log = server.log()
            _stop(server)
            if attempt + 1 == PORT_ATTEMPTS:
                raise RuntimeError(f"no free port in {PORT_ATTEMPTS} tries:\n{log}") from None
        except BaseException:
            _stop(server)
            raise
    try:
        yield server
    finally:
        _stop(server)


PORT_ATTEMPTS = 5
"""free_port's port can be taken by another process before the server binds it: the server
then exits at once, saying so, and is started again on another port."""


class PortTaken(Exception):
    pass


def _start(
    target: str | Path,
    extra: tuple[str, ...],
    env: Mapping[str, str] | None,
    script: bool,
    plainmcp: str = "run",
) -> HttpServer:
    port = free_port()
    command = [sys.executable, "-m", "plainmcp", plainmcp, str(target), "--http"]
    command += ["--port", str(port)]
    if script:
        command = [sys.executable, str(target), str(port)]
    with tempfile.NamedTemporaryFile(prefix="plainmcp-http-", suffix=".log", delete=False) as f:
        log_path = Path(f.name)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*command, *extra],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=ROOT,
        )
    return HttpServer(port, proc, log_path)


def _wait_listening(server: HttpServer) -> None:
    """Until the server listens on its port; PortTaken if it exited because another process
    holds the port. Where /proc tells which process a listening socket belongs to (Linux), the
    socket must be the server's own: another process listening on the port would accept the
    connection the server itself cannot."""
    deadline = time.monotonic() + 20
    while True:
        if server.proc.poll() is not None:
            if "address already in use" in server.log().lower():
                raise PortTaken
            raise RuntimeError(f"the HTTP server exited early:\n{server.log()}")
        if _listens(server.proc.pid, server.port):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the HTTP server did not listen in time:\n{server.log()}")
        time.sleep(0.05)


def _listens(pid: int, port: int) -> bool:
    """Whether process `pid` or one of its descendants listens on `port` (without /proc:
    whether anything accepts a connection there)."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]
    if not tables[0].exists():
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return True
        return False
    sockets = set()
    for table in tables:
        with contextlib.suppress(OSError):
            for line in table.read_text().splitlines()[1:]:
                fields = line.split()
                # local_address is HOST:PORT in hex; state 0A is LISTEN.
                if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                    sockets.add(f"socket:[{fields[9]}]")
    return any(_holds(p, sockets) for p in _family(pid))


def _family(pid: int) -> list[int]:
    """`pid` and its descendants (`--workers` listens in its children)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                todo += [int(child) for child in children.read_text().split()]
    return found


def _holds(pid: int, sockets: set[str]) -> bool:
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) in sockets:
                    return True
    return False


def _stop(server: HttpServer) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
    server.log_path.unlink(missing_ok=True)


def oversized_head(port: int, header_bytes: int = 64 << 20, fields: int = 0) -> tuple[str, bytes]:
    """Send a POST whose one header is `header_bytes` long (or that has `fields` header fields),
    as fast as the server takes it, and return the status line and the body of its answer."""
    opening = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    opening += b"".join(b"X-%d: v\r\n" % n for n in range(fields))
    with socket.create_connection(("127.0.0.1", port), 10) as sock:
        try:
            sock.sendall(opening + b"X-Big: ")
            piece = b"a" * (1 << 20)
            for _ in range(header_bytes >> 20):
                sock.sendall(piece)
            sock.sendall(b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused while still sending; the answer came before the reset
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body


ACCEPT = "application/json, text/event-stream"
STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


class Pinned:
    """A keep-alive connection to one process of several sharing a port (`--workers`), and
    that process's id (the server's `where` tool names it). Calls go in the session given, or
    as 2026-07-28 requests when there is none."""

    def __init__(self, server: HttpServer, session: str | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
        self.session = session
        self.ids = iter(range(1, 1000))
        self.pid = int(self.text(self.call("where")))

    def call(self, name: str, **params: Any) -> dict[str, Any]:
        """The result of tools/call `name`; `params` are its arguments, inputResponses, ..."""
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if self.session is None:
            headers.update(
                {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
            )
            params = {**params, "_meta": STATELESS_META}
        else:
            headers.update({"Mcp-Session-Id": self.session, "MCP-Protocol-Version": "2025-11-25"})
        message = {"jsonrpc": "2.0", "id": next(self.ids), "method": "tools/call"}
        body = {**message, "params": {"name": name, **params}}
        self.conn.request("POST", "/mcp", json.dumps(body).encode(), headers)
        response = self.conn.getresponse()
        answer = json.loads(response.read())
        assert response.status == 200, answer
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    @staticmethod
    def text(result: dict[str, Any]) -> str:
        """The text of the result's first block, which must not be an error."""
        assert result["isError"] is False, result
        text: str = result["content"][0]["text"]
        return text


def pin_workers(server: HttpServer, session: str | None = None) -> list[Pinned]:
    """A connection to each worker the kernel hands one to: new connections until all three of
    `--workers 3` are found, at most 100; at least two are needed."""
    pinned: dict[int, Pinned] = {}
    for _ in range(100):
        if len(pinned) == 3:
            break
        conn = Pinned(server, session)
        if pinned.setdefault(conn.pid, conn) is not conn:
            conn.conn.close()
    assert len(pinned) >= 2, "the kernel handed every connection to one worker"
    return list(pinned.values())
