"""Client.http: against plainmcp's own ASGI app in-process (httpx2's ASGITransport) and against
the official Python SDK's server over uvicorn (tests/client/sdk_server.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from plainmcp import Context, Server, Text
from plainmcp.client import Client, LogMessage, McpError, Progress, SessionExpired
from plainmcp.transports.http.app import HttpApp
from tests.http_server import HttpServer, http_server

pytestmark = pytest.mark.anyio

SDK_SERVER = Path(__file__).parent / "sdk_server.py"
URL = "http://127.0.0.1/mcp"
HANDSHAKE = "2025-11-25"  # these tests pin the session; test_http_stateless.py: 2026-07-28

app = Server("http-client-test", version="0.3.0", continuation=None)


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress and logging each step."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n)
        await ctx.info(f"counted {i}")
    return f"counted to {n}"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Recording(httpx2.AsyncBaseTransport):
    """The ASGI transport, noting each request's method and headers."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.seen: list[tuple[str, dict[str, str]]] = []
        self.got = anyio.Event()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.seen.append((request.method, dict(request.headers)))
        if request.method == "GET":
            self.got.set()
        return await self.inner.handle_async_request(request)


@pytest.fixture
async def served() -> AsyncIterator[tuple[HttpApp, Recording]]:
    http_app = app.http_app()
    async with http_app.lifespan():
        yield http_app, Recording(httpx2.ASGITransport(http_app))


def session_headers(seen: list[tuple[str, dict[str, str]]]) -> list[tuple[str, Any, Any]]:
    return [(m, h.get("mcp-session-id"), h.get("mcp-protocol-version")) for m, h in seen]


async def test_calls_over_the_asgi_app_reuse_one_session_and_delete_it_at_close(
    served: tuple[HttpApp, Recording],
) -> None:
    http_app, recording = served
    async with Client.http(URL, protocol=HANDSHAKE, transport=recording, listen=False) as client:
        assert (client.protocol_version, client.server_info.name) == ("2025-11-25", app.name)
        assert [(t.name, t.description) for t in await client.list_tools()] == [
            ("add", "Add two integers."),
            ("count", "Count to n, reporting progress and logging each step."),
        ]
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert (result.content, result.structured, result.is_error) == (
            [Text("5")],
            {"result": 5},
            False,
        )
        [session] = http_app.sessions
    assert len(http_app.sessions) == 0  # the DELETE ended it
    sid, v = session.id, "2025-11-25"
    assert session_headers(recording.seen) == [
        ("POST", None, None),  # initialize
        ("POST", sid, v),  # notifications/initialized
        ("POST", sid, v),  # tools/list
        ("POST", sid, v),  # tools/call
        ("DELETE", sid, v),
    ]


async def test_progress_and_log_notifications_arrive_on_the_calls_sse_answer(
    served: tuple[HttpApp, Recording],
) -> None:
    _, recording = served
    heard: list[object] = []
    async with Client.http(
        URL,
        protocol=HANDSHAKE,
        transport=recording,
        listen=False,
        on_progress=heard.append,
        on_log=heard.append,
    ) as client:
        result = await client.call_tool("count", {"n": 2})
    assert result.text == "counted to 2"
    assert heard == [
        Progress(1, 2, token=2),
        LogMessage("info", "counted 1"),
        Progress(2, 2, token=2),
        LogMessage("info", "counted 2"),
    ]


async def test_a_forgotten_session_answers_404_and_the_client_says_it_expired(
    served: tuple[HttpApp, Recording],
) -> None:
    http_app, recording = served
    async with Client.http(URL, protocol=HANDSHAKE, transport=recording, listen=False) as client:
        [session] = http_app.sessions
        http_app.sessions.end(session)
        with pytest.raises(SessionExpired) as caught:
            await client.list_tools()
        assert caught.value.message == (
            f"The server no longer knows session {session.id!r} (HTTP 404):"
            " open a new Client to start another"
        )
        with pytest.raises(SessionExpired):  # the client stays closed
            await client.ping()
    assert [m for m, _ in recording.seen] == ["POST", "POST", "POST"]  # no DELETE after a 404


async def test_the_get_stream_is_opened_in_the_session_and_ended_by_the_delete(
    served: tuple[HttpApp, Recording],
) -> None:
    http_app, recording = served
    async with Client.http(URL, protocol=HANDSHAKE, transport=recording) as client:
        await recording.got.wait()
        [session] = http_app.sessions
        assert (await client.call_tool("add", {"a": 1, "b": 1})).text == "2"
    assert len(http_app.sessions) == 0
    [get] = [h for m, h in recording.seen if m == "GET"]
    assert (get["accept"], get["mcp-session-id"]) == ("text/event-stream", session.id)


async def test_a_bearer_token_and_extra_headers_go_with_every_request(
    served: tuple[HttpApp, Recording],
) -> None:
    _, recording = served
    async with Client.http(
        URL,
        protocol=HANDSHAKE,
        transport=recording,
        listen=False,
        auth="s3cret",
        headers={"x-trace": "t1"},
    ) as client:
        await client.ping()
    assert [(h["authorization"], h["x-trace"]) for _, h in recording.seen] == [
        ("Bearer s3cret", "t1")
    ] * 4


async def test_an_httpx2_auth_object_signs_the_requests(
    served: tuple[HttpApp, Recording],
) -> None:
    _, recording = served
    async with Client.http(
        URL, protocol=HANDSHAKE, transport=recording, listen=False, auth=httpx2.BasicAuth("u", "p")
    ) as client:
        await client.ping()
    assert {h["authorization"] for _, h in recording.seen} == {"Basic dTpw"}


async def test_a_refused_initialize_raises_the_servers_error() -> None:
    http_app = app.http_app(allowed_hosts=["example.com"])
    async with http_app.lifespan():
        with pytest.raises(McpError) as caught:
            async with Client.http(
                "http://other.test/mcp",
                protocol=HANDSHAKE,
                transport=httpx2.ASGITransport(http_app),
            ):
                pass
    assert caught.value.message == "HTTP 421: Misdirected Request: this Host is not served here"


# --- the official SDK's server over uvicorn -------------------------------------------------


@pytest.fixture(scope="module")
def sdk() -> Iterator[HttpServer]:
    with http_server(SDK_SERVER, script=True) as server:
        yield server


async def test_sdk_server_tools_progress_and_log(sdk: HttpServer) -> None:
    heard: list[object] = []
    async with Client.http(
        sdk.url, protocol=HANDSHAKE, on_progress=heard.append, on_log=heard.append
    ) as client:
        assert (client.protocol_version, client.server_info.name) == ("2025-11-25", "sdk-http")
        assert client.server_info.version == "1.2.3"
        assert [t.name for t in await client.list_tools()] == ["add", "count", "greet"]
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert (result.content, result.structured) == ([Text("5")], {"result": 5})
        counted = await client.request("tools/call", {"name": "count", "arguments": {"n": 2}})
    assert counted == {
        "content": [{"type": "text", "text": "counted to 2"}],
        "structuredContent": {"result": "counted to 2"},
        "isError": False,
    }
    assert heard == [
        Progress(1, 2, "step 1", token=4),
        LogMessage("info", "counted 1"),
        Progress(2, 2, "step 2", token=4),
        LogMessage("info", "counted 2"),
    ]


async def test_sdk_servers_elicitation_is_answered_by_post_as_over_stdio(
    sdk: HttpServer,
) -> None:
    """The client offers no elicitation, so it answers "method not found" (a POSTed response);
    the SDK's tool passes that error on as the call's."""
    async with Client.http(sdk.url, protocol=HANDSHAKE) as client:
        with pytest.raises(McpError) as caught:
            await client.call_tool("greet", {})
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
    assert (caught.value.code, caught.value.message) == (
        -32601,
        "Method not found: elicitation/create",
    )


async def test_sdk_server_forgets_the_session_deleted_at_close(sdk: HttpServer) -> None:
    recording = Recording(httpx2.AsyncHTTPTransport())
    async with Client.http(
        sdk.url, protocol=HANDSHAKE, transport=recording, listen=False
    ) as client:
        await client.ping()
    sid = recording.seen[1][1]["mcp-session-id"]
    assert session_headers(recording.seen) == [
        ("POST", None, None),
        ("POST", sid, "2025-11-25"),
        ("POST", sid, "2025-11-25"),
        ("DELETE", sid, "2025-11-25"),
    ]
    async with httpx2.AsyncClient() as http:
        after = await http.post(
            sdk.url,
            content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
            headers={
                "mcp-session-id": sid,
                "mcp-protocol-version": "2025-11-25",
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
            },
        )
    assert after.status_code == 404
