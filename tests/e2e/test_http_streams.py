"""Resumable streams and graceful shutdown through a real uvicorn (`plainmcp run --http`).

The tools wait for a release the test sends (SIGUSR1, tests/e2e/servers/held_calls.py), so the
order of events is the test's, never a sleep's.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.cluster import CuttingProxy
from tests.http_server import HttpServer, Pinned, http_server, oversized_head, pin_workers

HELD = Path(__file__).resolve().parent / "servers" / "held_calls.py"
REFS = Path(__file__).resolve().parent / "servers" / "refs_server.py"
ACCEPT = "application/json, text/event-stream"
VERSION = "2025-11-25"


@pytest.mark.anyio
async def test_the_sdk_client_resumes_a_cut_stream_and_gets_every_event_once() -> None:
    with http_server(HELD) as server:
        async with CuttingProxy(server.port) as proxy:
            url = f"http://127.0.0.1:{proxy.port}/mcp"
            seen: list[float] = []
            first = asyncio.Event()

            async def progressed(progress: float, total: float | None, _: str | None) -> None:
                seen.append(progress)
                first.set()

            async with Client(url, mode="legacy", read_timeout_seconds=30) as client:
                call = asyncio.create_task(
                    client.call_tool("hold", {"n": 7}, progress_callback=progressed)
                )
                await asyncio.wait_for(first.wait(), 20)
                assert proxy.cut() >= 1  # the call's stream (and the GET stream) are cut
                server.proc.send_signal(signal.SIGUSR1)  # progress 2 and the result: logged
                result = await asyncio.wait_for(call, 30)
    assert result.is_error is False
    assert [block.text for block in result.content] == ["done 7"]  # type: ignore[union-attr]
    assert seen == [1, 2]


def _post(port: int, body: Any, headers: dict[str, str]) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    sent = {"Content-Type": "application/json", "Accept": ACCEPT, **headers}
    conn.request("POST", "/mcp", json.dumps(body).encode(), sent)
    return conn.getresponse()


def _initialize(server: HttpServer) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "0"},
        },
    }
    reply = _post(server.port, init, {})
    assert reply.status == 200
    reply.read()
    session = {
        "Mcp-Session-Id": reply.getheader("mcp-session-id") or "",
        "MCP-Protocol-Version": VERSION,
    }
    note = _post(server.port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert note.status == 202
    return session


class HeldCall(threading.Thread):
    """One `hold` call on its own connection, read event by event."""

    def __init__(
        self, server: HttpServer, session: dict[str, str], n: int, started: threading.Semaphore
    ) -> None:
        super().__init__(daemon=True)
        self.server, self.session, self.n, self.started = server, session, n, started
        self.messages: list[Any] = []

    def run(self) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": 100 + self.n,
            "method": "tools/call",
            "params": {
                "name": "hold",
                "arguments": {"n": self.n},
                "_meta": {"progressToken": self.n},
            },
        }
        reply = _post(self.server.port, body, self.session)
        for raw in reply:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: ") and line[6:]:
                message = json.loads(line[6:])
                self.messages.append(message)
                if message.get("params", {}).get("progress") == 1:
                    self.started.release()


def test_sigterm_during_20_running_calls_answers_all_20_within_the_deadline() -> None:
    deadline = 20.0
    with http_server(HELD, "--shutdown-deadline", str(deadline)) as server:
        session = _initialize(server)
        started = threading.Semaphore(0)
        calls = [HeldCall(server, session, n, started) for n in range(20)]
        for call in calls:
            call.start()
        for _ in calls:
            assert started.acquire(timeout=20)
        began = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        # Draining: a new request is refused with 503 and a Retry-After while the calls run.
        while True:
            refused = _post(server.port, {"jsonrpc": "2.0", "id": 9, "method": "ping"}, session)
            refused.read()
            if refused.status == 503:
                break
            assert refused.status == 200
        assert refused.getheader("retry-after") == "1"
        server.proc.send_signal(signal.SIGUSR1)
        for call in calls:
            call.join(deadline)
        assert server.proc.wait(deadline) in (0, -signal.SIGTERM)
        assert time.monotonic() - began < deadline
    for call in calls:
        n = call.n
        assert call.messages == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": n, "progress": 1, "total": 2},
            },
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": n, "progress": 2, "total": 2},
            },
            {
                "jsonrpc": "2.0",
                "id": 100 + n,
                "result": {"content": [{"type": "text", "text": f"done {n}"}], "isError": False},
            },
        ]


def test_calls_outlasting_the_deadline_are_answered_with_an_error_and_the_process_exits() -> None:
    with http_server(HELD, "--shutdown-deadline", "0.5") as server:
        session = _initialize(server)
        started = threading.Semaphore(0)
        calls = [HeldCall(server, session, n, started) for n in range(3)]
        for call in calls:
            call.start()
        for _ in calls:
            assert started.acquire(timeout=20)
        server.proc.send_signal(signal.SIGTERM)  # never released
        for call in calls:
            call.join(20)
        assert server.proc.wait(20) in (0, -signal.SIGTERM)
    for call in calls:
        assert call.messages[-1] == {
            "jsonrpc": "2.0",
            "id": 100 + call.n,
            "error": {
                "code": -32603,
                "message": "The server shut down before the call finished; call again",
            },
        }


def test_over_stdio_sigterm_answers_the_calls_already_read_before_exit() -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "plainmcp", "run", str(HELD), "--shutdown-deadline", "20"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: Any) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()

    def read() -> Any:
        assert proc.stdout is not None
        return json.loads(proc.stdout.readline())

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "e2e", "version": "0"},
                },
            }
        )
        assert read()["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for n in range(3):
            send(
                {
                    "jsonrpc": "2.0",
                    "id": 10 + n,
                    "method": "tools/call",
                    "params": {
                        "name": "hold",
                        "arguments": {"n": n},
                        "_meta": {"progressToken": n},
                    },
                }
            )
        assert sorted(read()["params"]["progressToken"] for _ in range(3)) == [0, 1, 2]
        proc.send_signal(signal.SIGTERM)
        # The calls are still answered after SIGTERM, once released (stdin stays open).
        proc.send_signal(signal.SIGUSR1)
        got = [read() for _ in range(6)]
        assert sorted(m["id"] for m in got if "id" in m) == [10, 11, 12]
        assert sorted(m["result"]["content"][0]["text"] for m in got if "id" in m) == [
            "done 0",
            "done 1",
            "done 2",
        ]
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class StdioServer:
    """`plainmcp run HELD` over stdio, its replies read line by line (the tools wait for
    SIGUSR1, so nothing here is timed)."""

    def __init__(self, *flags: str) -> None:
        import subprocess
        import sys

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "plainmcp", "run", str(HELD), *flags],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, message: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def read(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def initialize(self, version: str) -> None:
        params = {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "0"},
        }
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        assert self.read()["id"] == 1
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


def _hold(n: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 10 + n,
        "method": "tools/call",
        "params": {"name": "hold", "arguments": {"n": n}, "_meta": {"progressToken": n}},
    }


STOPPED = {"code": -32603, "message": "The server shut down before the call finished; call again"}


def test_over_stdio_calls_outlasting_the_deadline_are_answered_with_an_error_then_it_exits() -> (
    None
):
    server = StdioServer("--shutdown-deadline", "0.5")
    try:
        server.initialize(VERSION)
        for n in range(3):
            server.send(_hold(n))
        assert sorted(server.read()["params"]["progressToken"] for _ in range(3)) == [0, 1, 2]
        server.proc.send_signal(signal.SIGTERM)  # never released
        got = [server.read() for _ in range(3)]
        assert sorted(got, key=lambda m: m["id"]) == [
            {"jsonrpc": "2.0", "id": 10 + n, "error": STOPPED} for n in range(3)
        ]
        assert server.proc.wait(20) == 0
        assert server.proc.stdout is not None and server.proc.stdout.read() == b""
        assert server.proc.stderr is not None
        assert (
            server.proc.stderr.read()
            .decode()
            .splitlines()[-1]
            .endswith(
                " plainmcp WARNING shutdown: 3 call(s) still running after 0.5 s;"
                " answering them with an error"
            )
        )
    finally:
        server.close()


def test_over_stdio_a_batch_outlasting_the_deadline_is_answered_with_errors_in_its_array() -> None:
    server = StdioServer("--shutdown-deadline", "0.5")
    try:
        server.initialize("2025-03-26")
        server.send([_hold(0), _hold(1), {"jsonrpc": "2.0", "id": 20, "method": "ping"}])
        assert sorted(server.read()["params"]["progressToken"] for _ in range(2)) == [0, 1]
        server.proc.send_signal(signal.SIGTERM)
        assert sorted(server.read(), key=lambda m: m["id"]) == [
            {"jsonrpc": "2.0", "id": 10, "error": STOPPED},
            {"jsonrpc": "2.0", "id": 11, "error": STOPPED},
            {"jsonrpc": "2.0", "id": 20, "result": {}},
        ]
        assert server.proc.wait(20) == 0
    finally:
        server.close()


def test_workers_with_in_memory_sessions_are_refused_naming_the_fix() -> None:
    import subprocess
    import sys

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "plainmcp", "run", str(HELD), "--http", *flags]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    refused = run("--workers", "2")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "plainmcp run: --workers 2 with handshake sessions (2024-11-05 to 2025-11-25) in each"
        " worker's memory: a session's next request would reach another worker and get 404."
        " add --sessions redis://HOST:6379/0 (shared by every worker) or --sessions none"
        " (the stateless handshake mode; docs/deploy.md)\n"
    )
    same = run("--workers", "3", "--sessions", "memory")
    assert same.returncode == 2
    assert same.stderr.startswith("plainmcp run: --workers 3 with handshake sessions")
    bad = run("--sessions", "postgres://db")
    assert (bad.returncode, bad.stderr) == (
        2,
        "plainmcp run: --sessions must be memory, none or a Redis URL (redis://host:6379/0),"
        " not 'postgres://db'\n",
    )
    alone = subprocess.run(
        [sys.executable, "-m", "plainmcp", "run", str(HELD), "--sessions", "none"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (alone.returncode, alone.stderr) == (2, "plainmcp run: --sessions needs --http\n")


def test_workers_without_a_secret_share_one_made_at_start_for_request_state() -> None:
    """`--workers 3 --sessions none`, nothing on Redis and no PLAINMCP_STATE_SECRET: the parent
    makes one secret for its workers, so an input-required round one worker started is
    continued on another (each worker's own secret refused every such retry as tampered)."""
    from plainmcp.wire.request_state import ENV_SECRET

    assert ENV_SECRET not in os.environ  # what the test is about: no secret given
    with http_server(REFS, "--workers", "3", "--sessions", "none") as server:
        workers = pin_workers(server)
        turns = zip(workers, [*workers[1:], workers[0]], strict=True)  # each asks, the next answers
        for n, (asked_on, answered_on) in enumerate(turns):
            first = asked_on.call("confirm", arguments={"what": f"plan {n}"})
            assert first["resultType"] == "input_required"
            (key,) = first["inputRequests"]
            retry = answered_on.call(
                "confirm",
                arguments={"what": f"plan {n}"},
                inputResponses={key: {"action": "accept", "content": {"ok": True}}},
                requestState=first["requestState"],
            )
            assert Pinned.text(retry) == f"confirmed plan {n}: {{'ok': True}}"
        log = server.log()
    assert (
        f"plainmcp run: {ENV_SECRET} is not set: the 3 workers sign read_more refs and"
        f" requestState with a secret made for this run (set {ENV_SECRET} to keep them valid"
        " across restarts and hosts)\n"
    ) in log
    assert "Traceback" not in log, log


def test_workers_in_the_stateless_handshake_mode_serve_from_child_processes() -> None:
    with http_server(HELD, "--workers", "2", "--sessions", "none") as server:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "pid", "arguments": {}, "_meta": meta},
        }
        headers = {
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "pid",
        }
        reply = _post(server.port, body, headers)
        assert reply.status == 200
        served_by = json.loads(reply.read())["result"]["structuredContent"]
        assert served_by != server.proc.pid  # a worker answered, not the supervisor
        # A handshake client's initialize is answered without a session id: no session to lose.
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "0"},
            },
        }
        opened = _post(server.port, init, {})
        assert opened.status == 200
        assert opened.getheader("mcp-session-id") is None
        assert json.loads(opened.read())["result"]["protocolVersion"] == VERSION
        # The workers bound the request head as one process does.
        assert oversized_head(server.port) == (
            "HTTP/1.1 431 Request Header Fields Too Large",
            b"Request Header Fields Too Large: the request line and headers exceed 16384 bytes",
        )
