"""Bad input from servers: each ends the call it hurts with a clear exception, never a hang."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from plainmcp.client import Client, ConnectionClosed, ProtocolViolation, RequestTimeout

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parent / "servers" / "misbehaving.py"
HANDSHAKE = "2025-11-25"
TOO_LARGE = "The server sent a message over the client's limit of 1000 bytes (max_message_size)"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_malformed_line_fails_the_call_and_closes_the_connection() -> None:
    async with Client.stdio(sys.executable, str(SERVER), "garbage", protocol=HANDSHAKE) as client:
        with pytest.raises(ProtocolViolation) as caught:
            await client.call_tool("any")
        assert caught.value.message == (
            "The server sent an invalid message (Parse error: invalid literal, expected 'true':"
            " line 1 column 1 (char 0)): b'this is not json'"
        )
        with pytest.raises(ProtocolViolation):  # the connection stays closed
            await client.call_tool("any")


async def test_a_reply_to_an_unknown_id_ends_in_a_timeout_that_names_it() -> None:
    async with Client.stdio(sys.executable, str(SERVER), "wrong-id", protocol=HANDSHAKE) as client:
        with pytest.raises(RequestTimeout) as caught:
            await client.call_tool("any", timeout=0.5)
    assert caught.value.code == -32001
    assert caught.value.message == (
        "No answer to tools/call (id 2) within 0.5 s; meanwhile it answered unknown ids [999]"
    )


async def test_the_client_wide_request_timeout_applies_to_every_call() -> None:
    async with Client.stdio(
        sys.executable, str(SERVER), "wrong-id", protocol=HANDSHAKE, request_timeout=0.5
    ) as client:
        with pytest.raises(RequestTimeout, match=r"^No answer to tools/call \(id 2\) within 0.5 s"):
            await client.call_tool("any")


async def test_a_server_that_dies_mid_call_raises_connection_closed_with_its_exit_code() -> None:
    async with Client.stdio(sys.executable, str(SERVER), "die", protocol=HANDSHAKE) as client:
        with pytest.raises(ConnectionClosed) as caught:
            await client.call_tool("any")
    assert (caught.value.returncode, caught.value.message) == (
        7,
        "The server closed the connection (exit code 7)",
    )


@pytest.mark.parametrize("mode", ["huge", "endless"])
async def test_a_line_over_the_size_limit_is_refused(mode: str) -> None:
    async with Client.stdio(
        sys.executable, str(SERVER), mode, protocol=HANDSHAKE, max_message_size=1000
    ) as client:
        with pytest.raises(ProtocolViolation) as caught:
            await client.call_tool("any")
    assert caught.value.message == TOO_LARGE


async def test_auto_takes_a_server_that_never_answers_discover_as_a_handshake_server() -> None:
    async with Client.stdio(
        sys.executable, str(SERVER), "discover-silent", discover_timeout=0.5
    ) as client:
        assert (client.protocol_version, client.server_info.name) == (HANDSHAKE, "misbehaving")
        assert (await client.call_tool("any")).text == "ok"


async def test_auto_takes_a_server_refusing_discover_as_a_handshake_server() -> None:
    async with Client.stdio(sys.executable, str(SERVER), "ok") as client:
        assert (client.protocol_version, client.server_info.name) == (HANDSHAKE, "misbehaving")


# --- over HTTP -----------------------------------------------------------------------------


def answering(body: bytes, content_type: str = "application/json") -> httpx2.MockTransport:
    """An HTTP server answering initialize properly and every later POST with `body`."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        if b'"initialize"' in request.content:
            init = (
                b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25",'
                b'"capabilities":{},"serverInfo":{"name":"mock","version":"0"}}}'
            )
            return httpx2.Response(200, content=init, headers={"content-type": content_type})
        if request.method == "DELETE" or b'"id"' not in request.content:
            return httpx2.Response(202)
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    return httpx2.MockTransport(handle)


async def test_an_http_answer_over_the_size_limit_fails_that_call_only() -> None:
    body = b'{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"' + b"x" * 5000
    body += b'"}]}}'
    async with Client.http(
        "http://mock/mcp",
        transport=answering(body),
        protocol=HANDSHAKE,
        listen=False,
        max_message_size=1000,
    ) as client:
        with pytest.raises(ProtocolViolation) as caught:
            await client.call_tool("any")
    assert caught.value.message == TOO_LARGE


async def test_a_malformed_http_answer_fails_that_call() -> None:
    async with Client.http(
        "http://mock/mcp", transport=answering(b"{not json"), protocol=HANDSHAKE, listen=False
    ) as client:
        with anyio.fail_after(5), pytest.raises(ProtocolViolation) as caught:
            await client.call_tool("any")
    assert caught.value.message.startswith("The server sent an invalid message (Parse error")
