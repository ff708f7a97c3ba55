"""The official Python SDK client (PyPI `mcp`) traces its calls and puts `traceparent` in
`params._meta` by itself: over Streamable HTTP (uvicorn in this process, so both sides report
to one tracer provider), plainmcp's server span is the child of the client's span and carries
the session and network attributes."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator

import pytest
import uvicorn
from mcp import Client
from opentelemetry.trace import SpanKind

from plainmcp import Server, Telemetry
from plainmcp.transports.http.app import HttpApp
from tests.otel_sdk import Sdk, global_sdk

pytestmark = pytest.mark.anyio


@pytest.fixture
def sdk() -> Iterator[Sdk]:
    yield from global_sdk()


@pytest.fixture
async def served(sdk: Sdk) -> AsyncIterator[tuple[HttpApp, str, int]]:
    app = Server("traced", telemetry=Telemetry(meter_provider=sdk.meters))

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    web = app.http_app()
    # Listening before uvicorn starts: the client's connections wait in the backlog.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(web, lifespan="off", log_level="warning"))
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    try:
        yield web, f"http://127.0.0.1:{port}/mcp", port
    finally:
        server.should_exit = True
        await task
        sock.close()


async def test_the_server_span_is_the_child_of_the_sdk_clients_span(
    sdk: Sdk, served: tuple[HttpApp, str, int]
) -> None:
    web, url, port = served
    async with Client(url, mode="legacy") as client:
        [session] = list(web.sessions)
        result = await client.call_tool("add", {"a": 2, "b": 3})
        assert result.structured_content == {"result": 5}
    spans = sdk.spans()
    client_span = next(s for s in spans if s.kind is SpanKind.CLIENT and "tools/call" in s.name)
    server_span = next(s for s in spans if s.kind is SpanKind.SERVER and "tools/call" in s.name)
    assert client_span.name == "MCP send tools/call add"  # the SDK's own name for it
    assert server_span.name == "tools/call add"
    assert client_span.context is not None and server_span.parent is not None
    assert server_span.parent.is_remote
    assert server_span.parent.span_id == client_span.context.span_id
    assert server_span.parent.trace_id == client_span.context.trace_id
    attributes = dict(server_span.attributes or {})
    client_port = attributes.pop("client.port")
    assert isinstance(client_port, int) and 0 < client_port < 65536 and client_port != port
    assert attributes == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": (client_span.attributes or {})["jsonrpc.request.id"],
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "network.protocol.version": "1.1",
        "client.address": "127.0.0.1",
        "mcp.session.id": session.id,
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-11-25",
    }
    initialize = next(s for s in spans if s.kind is SpanKind.SERVER and s.name == "initialize")
    assert (initialize.attributes or {})["mcp.session.id"] == session.id
    [ended] = sdk.points("mcp.server.session.duration")
    assert dict(ended.attributes) == {
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "network.protocol.version": "1.1",
    }
    assert ended.count == 1


async def test_a_stateless_sdk_call_is_traced_too(
    sdk: Sdk, served: tuple[HttpApp, str, int]
) -> None:
    _, url, _ = served
    async with Client(url, mode="2026-07-28") as client:
        result = await client.call_tool("add", {"a": 1, "b": 1})
        # 2026-07-28 carries any JSON value as structured content: the int itself.
        assert result.structured_content == 2
    spans = sdk.spans()
    client_span = next(s for s in spans if s.kind is SpanKind.CLIENT and "tools/call" in s.name)
    server_span = next(s for s in spans if s.kind is SpanKind.SERVER and "tools/call" in s.name)
    assert client_span.context is not None and server_span.parent is not None
    assert server_span.parent.span_id == client_span.context.span_id
    attributes = dict(server_span.attributes or {})
    assert attributes["mcp.protocol.version"] == "2026-07-28"
    assert "mcp.session.id" not in attributes  # no session in 2026-07-28
    # A lone stateless request's connection is not a session.
    assert sdk.points("mcp.server.session.duration") == []
