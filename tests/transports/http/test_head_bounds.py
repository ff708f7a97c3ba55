"""The bounds on the request head, over real sockets against a real uvicorn server (in this
test's event loop, with the protocol classes plainmcp serves with).

Each server records what it read from each connection, so a test waits for the server to have
read what was sent (events, no sleeps) and asserts how much of an oversized head it took in.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest
import uvicorn

from plainmcp import Server
from plainmcp.transports.http.head_bounds import BoundedH11, protocol
from plainmcp.transports.http.head_bounds_httptools import BoundedHttpTools
from plainmcp.transports.http.serve import server_config
from tests.transports.http.asgi import meta

pytestmark = pytest.mark.anyio

READ_SIZE = 256 * 1024
"""The most asyncio's transports read from a socket at once (`max_size`)."""
REFUSED_SIZE = b"Request Header Fields Too Large: the request line and headers exceed 16384 bytes"
REFUSED_COUNT = b"Request Header Fields Too Large: more than 100 header fields"
OPENING = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "


@dataclass
class Reads:
    """Bytes each server-side connection read (by the client's port), and which closed."""

    read: dict[int, int] = field(default_factory=dict)
    closed: set[int] = field(default_factory=set)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def note(self, transport: Any, n: int | None) -> None:
        port = transport.get_extra_info("peername")[1]
        if n is None:
            self.closed.add(port)
        else:
            self.read[port] = self.read.get(port, 0) + n
        self.changed.set()

    async def until(self, done: Callable[[], bool]) -> None:
        while not done():
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 10)

    async def caught_up(self, port: int, sent: int) -> None:
        """Until the server read all `sent` bytes of that connection, or closed it."""
        await self.until(lambda: self.read.get(port) == sent or port in self.closed)


READS = Reads()


class CountingHttpTools(BoundedHttpTools):
    def data_received(self, data: bytes) -> None:
        READS.note(self.transport, len(data))
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        READS.note(self.transport, None)
        super().connection_lost(exc)


class CountingH11(BoundedH11):
    def data_received(self, data: bytes) -> None:
        READS.note(self.transport, len(data))
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        READS.note(self.transport, None)
        super().connection_lost(exc)


PROTOCOLS = {"httptools": CountingHttpTools, "h11": CountingH11}


@pytest.fixture(params=sorted(PROTOCOLS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_server() -> Server:
    app = Server("bounds", "1.0.0")

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    return app


@contextlib.asynccontextmanager
async def served(kind: str, **options: Any) -> AsyncIterator[int]:
    """A uvicorn server of `make_server()`'s app on a free port, with plainmcp's config."""
    global READS
    READS = Reads()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port: int = sock.getsockname()[1]
    config = server_config(make_server().http_app(sessions=None, **options), lifespan="off")
    config.http = PROTOCOLS[kind]
    server = uvicorn.Server(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    try:
        yield port
    finally:
        server.should_exit = True
        await task
        sock.close()


CALL = orjson.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta()},
    }
)
CALL_HEAD = (
    b"Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n"
    b"Mcp-Method: tools/call\r\nMcp-Name: add\r\n"
)
ANSWER = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": 5,
        "isError": False,
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bounds", "version": "1.0.0"}},
    },
}


def call_request(extra: bytes = b"", body: bytes = CALL) -> bytes:
    """POST /mcp calling add(2, 3) at 2026-07-28, with `extra` header lines."""
    length = b"Content-Length: " + str(len(body)).encode() + b"\r\n"
    return b"POST /mcp HTTP/1.1\r\n" + CALL_HEAD + length + extra + b"\r\n" + body


def padded(size: int) -> bytes:
    """The call's request with one more header field, its head exactly `size` bytes."""
    bare = len(call_request(b"X-Pad: \r\n")) - len(CALL)
    return call_request(b"X-Pad: " + b"a" * (size - bare) + b"\r\n")


class Client:
    """One connection, on a plain socket: a server that refuses a head resets the connection
    while the client still sends, and what it answered before is still read from the socket
    (asyncio's streams would drop it for the reset)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.socket()
        self.sock.setblocking(False)
        self.buffer = b""
        self.loop = asyncio.get_running_loop()

    async def __aenter__(self) -> Client:
        await self.loop.sock_connect(self.sock, ("127.0.0.1", self.port))
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.sock.close()

    @property
    def me(self) -> int:
        """The client's port: the server's records are by it."""
        port: int = self.sock.getsockname()[1]
        return port

    async def send(self, data: bytes) -> bool:
        """False once the server has closed the connection."""
        try:
            await self.loop.sock_sendall(self.sock, data)
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

    async def response(self) -> tuple[int, dict[str, str], bytes]:
        while b"\r\n\r\n" not in self.buffer:
            await self._more()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status_line, *lines = head.decode().split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.lower()] = value.strip()
        length = int(headers["content-length"])
        while len(self.buffer) < length:
            await self._more()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return int(status_line.split(" ", 2)[1]), headers, body

    async def _more(self) -> None:
        data = await asyncio.wait_for(self.loop.sock_recv(self.sock, 65536), 10)
        if not data:
            raise ConnectionError(f"closed, with {self.buffer!r} unanswered")
        self.buffer += data


async def exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    async with Client(port) as client:
        await client.send(request)
        return await client.response()


def refused(answer: tuple[int, dict[str, str], bytes], body: bytes) -> None:
    status, headers, text = answer
    assert (status, text) == (431, body)
    assert headers["connection"] == "close"
    assert headers["content-type"] == "text/plain; charset=utf-8"


def answered(answer: tuple[int, dict[str, str], bytes]) -> None:
    assert (answer[0], orjson.loads(answer[2])) == (200, ANSWER)


# --- the protocol plainmcp serves with ---------------------------------------------------------


def test_plainmcp_serves_with_the_bounded_httptools_protocol() -> None:
    web = make_server().http_app()
    assert protocol() is BoundedHttpTools
    assert server_config(web).http is BoundedHttpTools
    assert (web.max_header_bytes, web.max_headers) == (16384, 100)


# --- size --------------------------------------------------------------------------------------


async def test_a_head_growing_past_the_bound_is_refused_431_having_read_no_more(
    kind: str,
) -> None:
    chunk = b"a" * 4096
    async with served(kind) as port, Client(port) as client:
        me = client.me
        await client.send(OPENING)
        sent = len(OPENING)
        while me not in READS.closed:
            assert sent < 1024 * 1024, f"the server read {sent} bytes of one head"
            await client.send(chunk)
            sent += len(chunk)
            await READS.caught_up(me, sent)
        refused(await client.response(), REFUSED_SIZE)
    # The chunk that passed 16384 bytes was the last one read: 4 chunks after the opening.
    assert READS.read[me] == sent == len(OPENING) + 4 * 4096


async def test_a_64_mib_header_sent_at_once_costs_the_server_one_read(kind: str) -> None:
    piece = b"a" * (1024 * 1024)
    async with served(kind) as port, Client(port) as client:
        me = client.me
        await client.send(OPENING)
        for _ in range(64):
            if not await client.send(piece):
                break
        await READS.until(lambda: me in READS.closed)
        refused(await client.response(), REFUSED_SIZE)
    # What it read before the head passed the bound (< 16384 bytes), then one read at most.
    assert READS.read[me] <= 16384 + READ_SIZE


async def test_a_slow_64_mib_header_does_not_hold_up_a_concurrent_request(kind: str) -> None:
    events: list[str] = []
    chunk = b"a" * 4096
    async with served(kind) as port, Client(port) as other, Client(port) as slow:
        me = slow.me
        await slow.send(OPENING)
        sent = len(OPENING)
        while me not in READS.closed and sent < 64 * 1024 * 1024:
            await slow.send(chunk)
            sent += len(chunk)
            await READS.caught_up(me, sent)
            events.append(f"slow: {sent} sent" + (", refused" if me in READS.closed else ""))
            await other.send(call_request())  # the same keep-alive connection each time
            answered(await other.response())
            events.append("other: answered")
        refused(await slow.response(), REFUSED_SIZE)
        await other.send(call_request())
        answered(await other.response())
        events.append("other: answered")
    n = len(OPENING)
    assert events == [
        f"slow: {n + 4096} sent",
        "other: answered",
        f"slow: {n + 2 * 4096} sent",
        "other: answered",
        f"slow: {n + 3 * 4096} sent",
        "other: answered",
        f"slow: {n + 4 * 4096} sent, refused",
        "other: answered",
        "other: answered",
    ]


async def test_a_head_of_exactly_the_bound_is_served_and_one_byte_more_is_not(
    kind: str,
) -> None:
    async with served(kind) as port:
        answered(await exchange(port, padded(16384)))
        refused(await exchange(port, padded(16385)), REFUSED_SIZE)


async def test_the_bound_counts_each_request_of_a_connection_on_its_own(kind: str) -> None:
    async with served(kind) as port, Client(port) as client:
        for _ in range(5):  # 5 heads of 10,000 bytes: 50,000 in all on one connection
            await client.send(padded(10_000))
            answered(await client.response())


async def test_the_next_head_is_bounded_after_a_response_sent_before_its_body(
    kind: str,
) -> None:
    """A request answered before its body arrived (406: the app reads no body then) ends when
    the body has been read, unanswered by uvicorn: the next request's head is bounded anyway."""
    body = b"{}" * 50
    head = call_request(body=body)[: -len(body)].replace(b"Accept: application/json, ", b"Accept: ")
    chunk = b"a" * 4096
    async with served(kind) as port, Client(port) as client:
        me = client.me
        await client.send(head)
        status, _, _ = await client.response()
        assert status == 406
        await client.send(body)  # read by the server after its response
        await client.send(OPENING)
        sent = len(head) + len(body) + len(OPENING)
        while me not in READS.closed:
            assert sent < 1024 * 1024, f"the server read {sent} bytes of one head"
            await client.send(chunk)
            sent += len(chunk)
            await READS.caught_up(me, sent)
        refused(await client.response(), REFUSED_SIZE)


async def test_a_body_is_not_part_of_the_head(kind: str) -> None:
    body = CALL[:-1] + b" " * 100_000 + b"}"  # 100 KB of whitespace in the JSON
    async with served(kind) as port:
        answered(await exchange(port, call_request(body=body)))


async def test_the_bounds_are_the_apps_settings(kind: str) -> None:
    async with served(kind, max_header_bytes=2000, max_headers=10) as port:
        answered(await exchange(port, padded(2000)))
        refused(
            await exchange(port, padded(2001)),
            b"Request Header Fields Too Large: the request line and headers exceed 2000 bytes",
        )
        extra = b"".join(b"X-%d: v\r\n" % i for i in range(4))  # with the call's 7: 11
        refused(
            await exchange(port, call_request(extra)),
            b"Request Header Fields Too Large: more than 10 header fields",
        )


# --- count -------------------------------------------------------------------------------------


async def test_more_than_100_header_fields_are_refused_431(kind: str) -> None:
    fields = len(CALL_HEAD.split(b"\r\n")) - 1 + 1  # and Content-Length
    async with served(kind) as port:
        up_to = b"".join(b"X-%d: v\r\n" % i for i in range(100 - fields))
        answered(await exchange(port, call_request(up_to)))
        refused(await exchange(port, call_request(up_to + b"X-One-More: v\r\n")), REFUSED_COUNT)
