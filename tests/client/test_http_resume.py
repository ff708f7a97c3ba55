"""Client.http against scripted servers (httpx2.MockTransport) that do what the spec allows
and plainmcp's own server does not: a call's SSE stream closed after its priming event and
resumed by GET with Last-Event-ID after the server's `retry` (SEP-1699); a first request
refused with -32022 though its version is supported (SEP-2575); a notification answered 200
with a body instead of 202. Waits go through the client's injected `poll_sleep`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from plainmcp.client import Client, McpError

pytestmark = pytest.mark.anyio
URL = "http://mock/mcp"
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "mock", "version": "0"},
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def sse(*events: str) -> httpx2.Response:
    return httpx2.Response(
        200, content="".join(events).encode(), headers={"content-type": "text/event-stream"}
    )


def reply(request_id: Any, result: dict[str, Any]) -> str:
    return f"data: {json.dumps({'jsonrpc': '2.0', 'id': request_id, 'result': result})}\n\n"


class Resuming:
    """Answers tools/call with a stream that gives an id and `retry` and closes; each GET
    after it gives one more event, the reply on the `gets`-th."""

    def __init__(self, gets: int, retry: str = "retry: 500\n") -> None:
        self.gets = gets
        self.retry = retry
        self.seen: list[tuple[str, str | None]] = []
        self.call_id: Any = None

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.seen.append((request.method, request.headers.get("last-event-id")))
        if request.method == "DELETE":
            return httpx2.Response(204)
        if request.method == "GET":
            n = sum(1 for method, _ in self.seen if method == "GET")
            if n < self.gets:
                return sse(f"id: e{n}\ndata: \n\n")
            text = {"content": [{"type": "text", "text": "resumed"}]}
            return sse(f"id: e{n}\n", reply(self.call_id, text))
        message = json.loads(request.content)
        if message.get("method") == "initialize":
            return httpx2.Response(
                200,
                json={"jsonrpc": "2.0", "id": message["id"], "result": INIT},
                headers={"mcp-session-id": "s1"},
            )
        if "id" not in message:
            return httpx2.Response(202)
        self.call_id = message["id"]
        return sse(f"id: e0\n{self.retry}data: \n\n")


class Sleeps:
    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


async def call_slow(handle: Callable[[httpx2.Request], httpx2.Response]) -> tuple[str, list[float]]:
    """The text of tools/call "slow" at 2025-11-25 (no GET stream of its own), and the
    client's waits; McpError as the client raises it."""
    sleeps = Sleeps()
    async with Client.http(
        URL,
        transport=httpx2.MockTransport(handle),
        protocol="2025-11-25",
        listen=False,
        poll_sleep=sleeps,
    ) as client:
        return (await client.call_tool("slow")).text, sleeps.seconds


async def test_a_stream_closed_before_its_reply_is_resumed_after_retry_with_last_event_id() -> None:
    server = Resuming(gets=2)
    assert await call_slow(server) == ("resumed", [0.5, 0.5])
    assert [s for s in server.seen if s[0] != "POST"] == [
        ("GET", "e0"),
        ("GET", "e1"),
        ("DELETE", None),
    ]


async def test_a_stream_without_retry_is_resumed_after_a_second() -> None:
    assert await call_slow(Resuming(gets=1, retry="")) == ("resumed", [1.0])


async def test_resuming_gives_up_after_three_reconnects_that_bring_nothing_new() -> None:
    server = Resuming(gets=99, retry="retry: 10\n")
    seen: list[str | None] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            seen.append(request.headers.get("last-event-id"))
            return sse(": nothing\n\n")  # no event id moves on
        return server(request)

    with pytest.raises(McpError) as caught:
        await call_slow(handle)
    assert caught.value.message == "The server ended its HTTP answer without a reply"
    assert seen == ["e0", "e0", "e0"]


def discover_refused_once(seen: list[str]) -> httpx2.MockTransport:
    """A 2026-07-28 server refusing the first request with -32022 though it lists 2026-07-28."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        message = json.loads(request.content)
        seen.append(message["method"])
        if len(seen) == 1:
            error = {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"},
            }
            return httpx2.Response(
                400, json={"jsonrpc": "2.0", "id": message["id"], "error": error}
            )
        result: dict[str, Any] = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "strict", "version": "1"}},
        }
        if message["method"] == "tools/list":
            result = {"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private"}
        return httpx2.Response(200, json={"jsonrpc": "2.0", "id": message["id"], "result": result})

    return httpx2.MockTransport(handle)


async def test_a_fixed_revision_refused_though_supported_is_asked_once_more() -> None:
    seen: list[str] = []
    async with Client.http(
        URL, transport=discover_refused_once(seen), protocol="2026-07-28"
    ) as client:
        assert (client.protocol_version, client.server_info.name) == ("2026-07-28", "strict")
        assert await client.list_tools() == []
    assert seen == ["server/discover", "server/discover", "tools/list"]


async def test_a_notification_answered_200_with_a_body_is_accepted() -> None:
    def handle(request: httpx2.Request) -> httpx2.Response:
        if request.method == "DELETE":
            return httpx2.Response(204)
        message = json.loads(request.content)
        if message.get("method") == "initialize":
            return httpx2.Response(
                200, json={"jsonrpc": "2.0", "id": message["id"], "result": INIT}
            )
        if "id" not in message:  # as 0.1.16's conformance mock does: 200, a body without an id
            return httpx2.Response(200, json={"jsonrpc": "2.0", "result": {}})
        return httpx2.Response(
            200, json={"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}
        )

    async with Client.http(
        URL, transport=httpx2.MockTransport(handle), protocol="2025-11-25", listen=False
    ) as client:
        assert await client.list_tools() == []
