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
) -> Iterator[HttpServer]:
    """Serve `target` (FILE[:OBJECT]) over HTTP until the block ends; `script=True` runs the
    file itself as `python FILE PORT` (a file that serves an app of its own making)."""
    port = free_port()
    command = [sys.executable, "-m", "plainmcp", "run", str(target), "--http", "--port", str(port)]
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
    server = HttpServer(port, proc, log_path)
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the HTTP server exited early:\n{server.log()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP server did not listen in time:\n{server.log()}")
            time.sleep(0.05)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log_path.unlink(missing_ok=True)


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
