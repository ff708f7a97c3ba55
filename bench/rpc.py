"""The benchmark's own MCP client side: raw JSON-RPC over stdio pipes and over HTTP/1.1.

No MCP library is imported here, so one client measures every server the same way. Every
process started here is tracked and stopped by its pid.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import selectors
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HANDSHAKE_VERSION = "2025-11-25"
STATELESS_VERSION = "2026-07-28"
CLIENT_INFO = {"name": "plainmcp-bench", "version": "1"}
STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}
TICKS = os.sysconf("SC_CLK_TCK")


class BenchError(Exception):
    """A server misbehaved or did not answer in time; the run records it and goes on."""


# --- processes --------------------------------------------------------------------------------

_STARTED: dict[int, subprocess.Popen[bytes]] = {}


def start(
    argv: list[str], log: Path, *, pipes: bool, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a server; its stderr (and stdout, without pipes) goes to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as sink:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if pipes else subprocess.DEVNULL,
            stdout=subprocess.PIPE if pipes else sink,
            stderr=sink,
            bufsize=0,
            env=env,
        )
    _STARTED[proc.pid] = proc
    return proc


def stop(proc: subprocess.Popen[bytes], grace: float = 2.0) -> None:
    """Close stdin, then SIGTERM, then SIGKILL, each to this pid only."""
    try:
        if proc.stdin is not None and not proc.stdin.closed:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.5)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
    except ProcessLookupError:
        pass
    finally:
        if proc.stdout is not None and not proc.stdout.closed:
            proc.stdout.close()
        _STARTED.pop(proc.pid, None)


def stop_all() -> None:
    for proc in list(_STARTED.values()):
        stop(proc, grace=1.0)


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak) of a process, in KiB."""
    found: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(rest.split()[0])
    except OSError:
        pass
    return found


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process (all its threads), from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# --- messages -----------------------------------------------------------------------------------


def call_bytes(rid: int, tool: str, args: dict[str, Any], *, stateless: bool = False) -> bytes:
    params: dict[str, Any] = {"name": tool, "arguments": args}
    if stateless:
        params["_meta"] = STATELESS_META
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


def initialize_bytes(
    rid: int, version: str = HANDSHAKE_VERSION, client: str | None = None
) -> bytes:
    info = CLIENT_INFO if client is None else dict(CLIENT_INFO, name=client)
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": info}
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params})


INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def problem(message: dict[str, Any]) -> str | None:
    """Why a tools/call response is not a successful result (None when it is)."""
    if "error" in message:
        error = message["error"] or {}
        return f"error {error.get('code')}: {str(error.get('message'))[:100]}"
    result = message.get("result")
    if not isinstance(result, dict):
        return "no result object"
    if result.get("isError"):
        first = (result.get("content") or [{}])[0]
        return f"isError: {str(first.get('text'))[:100]}"
    return None


# --- stdio ----------------------------------------------------------------------------------------


_RESULT_OPENING = re.compile(rb'\{"jsonrpc":"2\.0","id":(\d+),"result":\{')


class RawReply:
    """A large response left undecoded: its id and its line."""

    __slots__ = ("id", "line")

    def __init__(self, rid: int, line: bytes) -> None:
        self.id = rid
        self.line = line

    def get(self, key: str, default: Any = None) -> Any:
        return self.id if key == "id" else default


class StdioPeer:
    """A server process on pipes, driven without threads through one selector."""

    def __init__(self, name: str, argv: list[str], log: Path, env: dict[str, str] | None = None):
        self.name = name
        self.spawned = time.perf_counter()
        self.proc = start(argv, log, pipes=True, env=env)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.pid = self.proc.pid
        self.rfd = self.proc.stdout.fileno()
        self.wfd = self.proc.stdin.fileno()
        os.set_blocking(self.rfd, False)
        os.set_blocking(self.wfd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.rfd, selectors.EVENT_READ)
        self.writing = False
        self.pending_out = bytearray()
        self.partial = bytearray()
        self.eof = False
        self.received = 0
        self.next_id = 1
        self.server_requests = 0

    def close(self) -> None:
        self.selector.close()
        stop(self.proc)

    def _flush(self) -> None:
        while self.pending_out:
            try:
                n = os.write(self.wfd, self.pending_out)
            except BlockingIOError:
                break
            except OSError as exc:
                raise BenchError(f"{self.name}: cannot write to the server ({exc})") from None
            del self.pending_out[:n]
        if bool(self.pending_out) != self.writing:
            self.writing = not self.writing
            if self.writing:
                self.selector.register(self.wfd, selectors.EVENT_WRITE)
            else:
                self.selector.unregister(self.wfd)

    def send(self, data: bytes) -> None:
        self.pending_out += data
        self.pending_out += b"\n"
        self._flush()

    def _read(self) -> list[bytes]:
        lines: list[bytes] = []
        while True:
            try:
                chunk = os.read(self.rfd, 1 << 22)
            except BlockingIOError:
                break
            if not chunk:
                self.eof = True
                break
            self.received += len(chunk)
            self.partial += chunk
            if b"\n" in chunk:
                *complete, rest = bytes(self.partial).split(b"\n")
                self.partial = bytearray(rest)
                lines.extend(line for line in complete if line.strip())
        return lines

    def wait(self, timeout: float, *, lazy: bool = False) -> list[dict[str, Any] | RawReply]:
        """Responses that arrive within `timeout` (requests from the server are refused).

        With `lazy`, a response over 256 KiB whose id opens the line is not decoded: it comes
        back as a RawReply, for a check that scans its bytes (decoding a 5.6 MB image response
        would cost the harness more than base64-encoding it costs the server).
        """
        lines: list[bytes] = []
        for key, _ in self.selector.select(timeout):
            if key.fd == self.rfd:
                lines += self._read()
            else:
                self._flush()
        if not lines:
            if self.eof:
                raise BenchError(f"{self.name}: the server closed stdout (exit {self.proc.poll()})")
            return []
        replies: list[dict[str, Any] | RawReply] = []
        for line in lines:
            if lazy and len(line) > 1 << 18:
                opening = _RESULT_OPENING.match(line)
                if opening:
                    replies.append(RawReply(int(opening[1]), line))
                    continue
            message = orjson.loads(line)
            if isinstance(message, dict) and "method" in message:
                if "id" in message:
                    self.server_requests += 1
                    refusal = {"code": -32601, "message": "the benchmark answers no requests"}
                    self.send(
                        orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "error": refusal})
                    )
                continue
            replies.append(message)
        return replies

    def request(self, data: bytes, rid: int, timeout: float = 30.0) -> dict[str, Any]:
        self.send(data)
        deadline = time.perf_counter() + timeout
        while (left := deadline - time.perf_counter()) > 0:
            for message in self.wait(min(left, 1.0)):
                if message.get("id") == rid:
                    return message
        raise BenchError(f"{self.name}: no answer to request {rid} within {timeout:.0f} s")

    def take_id(self) -> int:
        rid = self.next_id
        self.next_id += 1
        return rid

    def initialize(self, timeout: float = 60.0, client: str | None = None) -> dict[str, Any]:
        """The handshake; `client` is the clientInfo name to send (a host profile's, say)."""
        rid = self.take_id()
        reply = self.request(initialize_bytes(rid, client=client), rid, timeout)
        if "result" not in reply:
            raise BenchError(f"{self.name}: initialize failed: {reply.get('error')}")
        self.send(INITIALIZED)
        result: dict[str, Any] = reply["result"]
        return result

    def run_calls(
        self,
        make: Callable[[int], bytes],
        check: Callable[[int, Any], str | None],
        count: int,
        window: int,
        cap_s: float,
        *,
        lazy: bool = False,
    ) -> dict[str, Any]:
        """Keep `window` requests in flight until `count` are answered or `cap_s` has passed.

        Returns calls done, wall seconds, per-call latencies (ns), server CPU seconds, bytes
        received and the distinct failures seen.
        """
        in_flight: dict[int, int] = {}
        latencies: list[int] = []
        failures: dict[str, int] = {}
        sent = done = 0
        clock = time.perf_counter_ns
        cpu0 = cpu_seconds(self.pid)
        mine0 = time.process_time()
        bytes0 = self.received
        t0 = time.perf_counter()
        stop_at = t0 + cap_s
        capped = False
        while True:
            if sent < count and not capped:
                if time.perf_counter() >= stop_at:
                    capped = True
                else:
                    while sent < count and len(in_flight) < window:
                        rid = self.take_id()
                        self.pending_out += make(rid)
                        self.pending_out += b"\n"
                        in_flight[rid] = clock()
                        sent += 1
                    self._flush()
            if not in_flight:
                break
            if time.perf_counter() > stop_at + 120:
                raise BenchError(f"{self.name}: {len(in_flight)} calls unanswered after 120 s")
            for message in self.wait(0.5, lazy=lazy):
                rid = message.get("id")
                began = in_flight.pop(rid, None)
                if began is None:
                    continue
                latencies.append(clock() - began)
                done += 1
                why = check(rid, message)
                if why:
                    failures[why] = failures.get(why, 0) + 1
        wall = time.perf_counter() - t0
        cpu1 = cpu_seconds(self.pid)
        return {
            "done": done,
            "wall": wall,
            "latencies": latencies,
            "failures": failures,
            "capped": capped,
            "cpu": None if cpu0 is None or cpu1 is None else cpu1 - cpu0,
            "harness_cpu": time.process_time() - mine0,
            "bytes": self.received - bytes0,
        }


# --- HTTP -----------------------------------------------------------------------------------------


class HttpReply:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def message(self, rid: int) -> dict[str, Any] | None:
        """The JSON-RPC response with this id, from a JSON body or an SSE stream."""
        kind = self.headers.get("content-type", "")
        if kind.startswith("application/json"):
            found = orjson.loads(self.body)
            if isinstance(found, list):
                found = next((m for m in found if m.get("id") == rid), None)
            return found if isinstance(found, dict) else None
        if kind.startswith("text/event-stream"):
            for line in self.body.split(b"\n"):
                if line.startswith(b"data:") and line[5:].strip():
                    found = orjson.loads(line[5:])
                    if isinstance(found, dict) and found.get("id") == rid:
                        return found
        return None


class HttpConnection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection to 127.0.0.1 that sends a request and parses the
    reply (Content-Length, chunked or an SSE stream ended by the server); one request at a time.
    """

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[HttpReply] | None = None
        self.closed = False

    @classmethod
    async def open(cls, port: int) -> HttpConnection:
        loop = asyncio.get_running_loop()
        _, conn = await loop.create_connection(cls, "127.0.0.1", port)
        return conn

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no asyncio.Transport
        sock = transport.get_extra_info("socket")
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self._try_finish()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._try_finish()
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(BenchError("the server closed the connection"))

    def _try_finish(self) -> None:
        if self.waiter is None or self.waiter.done():
            return
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        lines = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        start = end + 4
        if "content-length" in headers:
            stop_at = start + int(headers["content-length"])
            if len(self.buffer) < stop_at:
                return
            body = bytes(self.buffer[start:stop_at])
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            at = start
            while True:
                eol = self.buffer.find(b"\r\n", at)
                if eol < 0:
                    return
                size = int(bytes(self.buffer[at:eol]).split(b";")[0], 16)
                if size == 0:
                    if self.buffer.find(b"\r\n", eol + 2) < 0:
                        return
                    stop_at = self.buffer.find(b"\r\n", eol + 2) + 2
                    break
                if len(self.buffer) < eol + 2 + size + 2:
                    return
                parts.append(bytes(self.buffer[eol + 2 : eol + 2 + size]))
                at = eol + 2 + size + 2
            body = b"".join(parts)
        elif status in (202, 204, 304) or status < 200:
            body, stop_at = b"", start
        elif self.closed:
            body, stop_at = bytes(self.buffer[start:]), len(self.buffer)
        else:
            return
        del self.buffer[:stop_at]
        self.waiter.set_result(HttpReply(status, headers, body))

    async def post(self, port: int, body: bytes, headers: dict[str, str]) -> HttpReply:
        if self.closed or self.transport is None:
            raise BenchError("the connection is closed")
        head = [f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(body)}\r\n"]
        head += [f"{key}: {value}\r\n" for key, value in headers.items()]
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write("".join(head).encode("latin-1") + b"\r\n" + body)
        self._try_finish()
        return await asyncio.wait_for(self.waiter, 30)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def http_session(conn: HttpConnection, port: int) -> dict[str, str]:
    """Initialize a handshake session; the headers every later request of it carries."""
    reply = await conn.post(port, initialize_bytes(0), JSON_HEADERS)
    message = reply.message(0)
    if reply.status != 200 or not message or "result" not in message:
        raise BenchError(f"HTTP initialize: status {reply.status}, {reply.body[:200]!r}")
    headers = dict(JSON_HEADERS)
    headers["MCP-Protocol-Version"] = message["result"].get("protocolVersion", HANDSHAKE_VERSION)
    if "mcp-session-id" in reply.headers:
        headers["Mcp-Session-Id"] = reply.headers["mcp-session-id"]
    done = await conn.post(port, INITIALIZED, headers)
    if done.status not in (200, 202, 204):
        raise BenchError(f"HTTP notifications/initialized: status {done.status}")
    return headers


STATELESS_HEADERS = dict(
    JSON_HEADERS,
    **{"MCP-Protocol-Version": STATELESS_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "add"},
)


async def http_load(
    port: int, pid: int, clients: int, count: int, cap_s: float, *, stateless: bool
) -> dict[str, Any]:
    """`clients` connections, each with its own session (or stateless requests), calling `add`
    one request at a time, until `count` calls are done or `cap_s` has passed."""
    latencies: list[int] = []
    failures: dict[str, int] = {}
    state = {"sent": 0, "capped": False}
    ready = asyncio.Event()
    mark: dict[str, float | None] = {}
    joined = 0

    async def client(index: int) -> None:
        nonlocal joined
        conn = await HttpConnection.open(port)
        try:
            headers = STATELESS_HEADERS if stateless else await http_session(conn, port)
            for i in range(20):  # warm-up, not timed
                rid = 1_000_000 * (index + 1) + i
                await conn.post(
                    port, call_bytes(rid, "add", {"a": rid, "b": 2}, stateless=stateless), headers
                )
            joined += 1
            if joined == clients:
                mark["mine0"] = time.process_time()
                mark["t0"] = time.perf_counter()
                mark["cpu0"] = cpu_seconds(pid)
                ready.set()
            await ready.wait()
            stop_at = (mark["t0"] or 0.0) + cap_s
            while state["sent"] < count:
                if time.perf_counter() > stop_at:
                    state["capped"] = True
                    break
                state["sent"] += 1
                rid = int(state["sent"])
                began = time.perf_counter_ns()
                reply = await conn.post(
                    port, call_bytes(rid, "add", {"a": rid, "b": 2}, stateless=stateless), headers
                )
                latencies.append(time.perf_counter_ns() - began)
                message = reply.message(rid)
                if reply.status != 200 or message is None:
                    why: str | None = f"HTTP {reply.status}: {reply.body[:80]!r}"
                else:
                    why = check_add(rid, message)
                if why:
                    failures[why] = failures.get(why, 0) + 1
        finally:
            conn.close()

    tasks = [asyncio.create_task(client(i)) for i in range(clients)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), cap_s + 120)
    finally:
        for task in tasks:
            task.cancel()
    wall = time.perf_counter() - (mark["t0"] or 0.0)
    harness_cpu = time.process_time() - (mark["mine0"] or 0.0)
    cpu1, cpu0 = cpu_seconds(pid), mark.get("cpu0")
    return {
        "done": len(latencies),
        "wall": wall,
        "latencies": latencies,
        "failures": failures,
        "capped": state["capped"],
        "cpu": None if cpu0 is None or cpu1 is None else cpu1 - cpu0,
        "harness_cpu": harness_cpu,
    }


def _resp(*words: str) -> bytes:
    return f"*{len(words)}\r\n".encode() + b"".join(
        f"${len(w.encode())}\r\n{w}\r\n".encode() for w in words
    )


async def _redis(port: int, *words: str) -> bytes:
    """One Redis command over RESP; the reply's payload (a bulk string's bytes, or the line)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(_resp(*words))
        await writer.drain()
        head = await reader.readline()
        if head.startswith(b"$"):
            return (await reader.readexactly(int(head[1:]) + 2))[:-2]
        if head.startswith(b"-"):
            raise BenchError(f"Redis: {head.decode().strip()}")
        return head.strip()
    finally:
        writer.close()


async def redis_commands_per_call(port: int, redis_port: int, calls: int = 200) -> Any:
    """(calls, {command: count}): what `calls` sequential `add` calls of one open session, made
    through `port`, cost in Redis (INFO commandstats, reset after the session opened)."""
    conn = await HttpConnection.open(port)
    try:
        headers = await http_session(conn, port)
        await _redis(redis_port, "CONFIG", "RESETSTAT")
        for rid in range(1, calls + 1):
            reply = await conn.post(port, call_bytes(rid, "add", {"a": rid, "b": 2}), headers)
            message = reply.message(rid)
            why = check_add(rid, message) if message is not None else f"HTTP {reply.status}"
            if why:
                raise BenchError(f"Redis probe call {rid}: {why}")
        stats = (await _redis(redis_port, "INFO", "commandstats")).decode()
    finally:
        conn.close()
    counted = {}
    for line in stats.splitlines():
        if line.startswith("cmdstat_"):
            name, values = line.removeprefix("cmdstat_").split(":", 1)
            fields = dict(part.split("=", 1) for part in values.split(","))
            if name not in ("info", "config|resetstat"):
                counted[name] = int(fields["calls"])
    return calls, counted


def run_async(coroutine: Any) -> Any:
    """Run the HTTP client side on uvloop when it is installed (plainmcp[http] brings it): the
    fastest servers are otherwise bounded by the harness, not by themselves."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


async def http_ready(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait until the server at `port` answers an initialize, or fail (also when it exits)."""
    deadline = time.perf_counter() + timeout
    last = "no answer"
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            raise BenchError(f"the HTTP server exited with status {proc.returncode}")
        try:
            conn = await HttpConnection.open(port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        try:
            await http_session(conn, port)
            return
        except (TimeoutError, BenchError, OSError, ValueError) as exc:
            last = str(exc)
            await asyncio.sleep(0.2)
        finally:
            conn.close()
    raise BenchError(f"the HTTP server did not come up within {timeout:.0f} s ({last})")


# --- checks ---------------------------------------------------------------------------------------


def check_add(rid: int, message: dict[str, Any]) -> str | None:
    """`add(a=rid, b=2)` answered rid + 2, as structured content or as text."""
    why = problem(message)
    if why:
        return why
    result = message["result"]
    want = rid + 2
    structured = result.get("structuredContent")
    if structured == want or (isinstance(structured, dict) and structured.get("result") == want):
        return None
    first = (result.get("content") or [{}])[0]
    if first.get("type") == "text" and first.get("text", "").strip() == str(want):
        return None
    return "wrong sum"


def check_image(size: int) -> Callable[[int, dict[str, Any]], str | None]:
    length = 4 * ((size + 2) // 3)

    def scan(line: bytes) -> str | None:
        """The same checks on the undecoded line; None only when all of them hold."""
        start = line.find(b'"data":"') + 8
        end = line.find(b'"', start)
        if (
            start < 8
            or end - start != length
            or not line.startswith(b"iVBORw0KGgo", start)
            or line.count(b'"type":"image"') != 1
            or b'"mimeType":"image/png"' not in line
            or b'"isError":true' in line
        ):
            return "undecided"
        return None

    def check(rid: int, message: Any) -> str | None:
        if isinstance(message, RawReply):
            if scan(message.line) is None:
                return None
            message = orjson.loads(message.line)  # let the full check say what is wrong
        why = problem(message)
        if why:
            return why
        images = [b for b in message["result"].get("content") or [] if b.get("type") == "image"]
        if len(images) != 1:
            return f"{len(images)} image blocks"
        if images[0].get("mimeType") != "image/png":
            return f"mimeType {images[0].get('mimeType')!r}"
        data = images[0].get("data") or ""
        if not data.startswith("iVBORw0KGgo") or len(data) != length:
            return f"not the PNG (base64 length {len(data)}, want {length})"
        return None

    return check


CUT = re.compile(r"…\[truncated: showing ([\d,]+) of ([\d,]+) characters")
MORE = re.compile(r"call the tool ([A-Za-z0-9_.-]+) with arguments (\{[^\n]*?\})\.")
"""The continuation's sentence, as every marker of a cut result words it (docs/results.md)."""


def read_whole(peer: StdioPeer, tool: str) -> tuple[str, int]:
    """Call `tool` and follow every "call the tool read_more" sentence until the text is whole:
    (the text, the number of calls). The first result's text block is its part up to the
    truncation marker; each continued part is its first block, the marker (if more remains) the
    second."""
    rid = peer.take_id()
    reply = peer.request(call_bytes(rid, tool, {}), rid)
    why = problem(reply)
    if why:
        raise BenchError(f"{tool}: {why}")
    blocks = [b.get("text", "") for b in reply["result"]["content"] if b.get("type") == "text"]
    first = blocks[0]
    cut = CUT.search(first)
    if cut is None:
        return first, 1
    parts, calls = [first[: int(cut.group(1).replace(",", ""))]], 1
    sentence = MORE.search(first)
    while sentence is not None:
        rid = peer.take_id()
        args = orjson.loads(sentence.group(2))
        reply = peer.request(call_bytes(rid, sentence.group(1), args), rid)
        calls += 1
        why = problem(reply)
        if why:
            raise BenchError(f"{sentence.group(1)}: {why}")
        blocks = [b.get("text", "") for b in reply["result"]["content"] if b.get("type") == "text"]
        parts.append(blocks[0])
        sentence = MORE.search(blocks[1]) if len(blocks) > 1 else None
        if calls > 100:
            raise BenchError("read_more did not finish in 100 calls")
    return "".join(parts), calls


def check_rows(n: int) -> Callable[[int, dict[str, Any]], str | None]:
    def check(rid: int, message: dict[str, Any]) -> str | None:
        why = problem(message)
        if why:
            return why
        structured = message["result"].get("structuredContent")
        if isinstance(structured, dict):
            structured = structured.get("result")
        if not isinstance(structured, list) or len(structured) != n:
            return "structuredContent is not the list of rows"
        if structured[-1] != {
            "id": n - 1,
            "name": f"row-{n - 1}",
            "value": (n - 1) * 0.5,
            "ok": (n - 1) % 2 == 0,
        }:
            return "the last row differs"
        return None

    return check


def add_maker(stateless: bool) -> Callable[[int], bytes]:
    """Encodes `add(a=rid, b=2)` with request id rid, cheaply (the harness's hot path)."""
    meta = b',"_meta":' + orjson.dumps(STATELESS_META) if stateless else b""
    template = (
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add",'
        b'"arguments":{"a":%d,"b":2}' + meta + b"}}"
    )

    def make(rid: int) -> bytes:
        return template % (rid, rid)

    return make
