"""The proxy end to end: upstreams as real subprocesses, over stdio and Streamable HTTP
(uvicorn), a plainmcp one and the official Python SDK's; an upstream that dies mid-call; an
upstream at 2025-06-18 served to a 2026-07-28 client."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import anyio
import pytest

from plainmcp import Client, Text
from plainmcp.client import (
    CallToolResult,
    Elicitation,
    LogMessage,
    Progress,
    SamplingRequest,
    SamplingResult,
)
from plainmcp.lifespan import LifespanError
from plainmcp.proxy import proxy_server
from tests.http_server import http_server

pytestmark = pytest.mark.anyio

UPSTREAM = Path(__file__).parent / "servers" / "proxy_upstream.py"
SDK = Path(__file__).parents[1] / "client" / "servers" / "sdk_tools.py"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def shape(result: CallToolResult) -> tuple[list[Any], Any, bool]:
    return result.content, result.structured, result.is_error


async def test_an_upstream_that_dies_mid_call_is_reconnected() -> None:
    command = [sys.executable, str(UPSTREAM)]
    proxy = proxy_server(command)
    async with Client.memory(proxy) as client:
        assert [t.name for t in await client.list_tools()] == ["pid", "hold", "die", "read_more"]
        before = (await client.call_tool("pid")).structured
        died = await client.call_tool("die")
        assert (died.is_error, died.text) == (
            True,
            f"Upstream {' '.join(command)} closed the connection during the call (The server"
            " closed the connection (exit code 3)); the next call reconnects",
        )
        after = await client.call_tool("pid")
        assert after.is_error is False
        assert isinstance(after.structured, int) and after.structured != before


async def test_an_upstream_log_at_a_level_no_revision_has_is_relayed_as_info() -> None:
    misbehaving = Path(__file__).parents[1] / "client" / "servers" / "misbehaving.py"
    proxy = proxy_server([sys.executable, str(misbehaving), "bad-log-level"])
    logs: list[tuple[str, str | None, Any]] = []

    async def on_log(message: LogMessage) -> None:
        logs.append((message.level, message.logger, message.data))

    async with Client.memory(proxy, on_log=on_log, log_level="debug") as client:
        for _ in range(2):  # the session goes on
            with anyio.fail_after(10):
                assert (await client.call_tool("any")).text == "ok"
    assert logs == [("info", "up", "too loud")] * 2


async def test_every_call_in_flight_gets_the_error_once() -> None:
    command = [sys.executable, str(UPSTREAM)]
    proxy = proxy_server(command)
    held: list[CallToolResult] = []
    holding = anyio.Event()
    async with Client.memory(proxy) as client:

        async def hold() -> None:
            held.append(await client.call_tool("hold", on_progress=lambda p: holding.set()))

        async with anyio.create_task_group() as tg:
            tg.start_soon(hold)
            await holding.wait()
            died = await client.call_tool("die")
        message = (
            f"Upstream {' '.join(command)} closed the connection during the call (The server"
            " closed the connection (exit code 3)); the next call reconnects"
        )
        assert [(r.is_error, r.text) for r in (*held, died)] == [(True, message)] * 2
        assert (await client.call_tool("pid")).is_error is False


async def test_an_upstream_that_cannot_be_reached_fails_each_call_until_it_can() -> None:
    commands = [[sys.executable, str(UPSTREAM)], ["/nonexistent/upstream"]]
    commands.append(commands[0])

    def connect(**options: Any) -> AbstractAsyncContextManager[Client]:
        command = commands.pop(0)
        return Client.stdio(command[0], *command[1:], **options)

    proxy = proxy_server(connect)
    async with Client.memory(proxy) as client:
        assert (await client.call_tool("die")).is_error
        unavailable = await client.call_tool("pid")
        assert unavailable.is_error
        assert unavailable.text.startswith("Upstream connect is unavailable (connecting failed: ")
        assert unavailable.text.endswith("); the next call tries again")
        assert (await client.call_tool("pid")).is_error is False


async def test_an_upstream_that_cannot_start_fails_the_start_up() -> None:
    proxy = proxy_server(["/nonexistent/upstream"])
    with pytest.raises(LifespanError):
        async with Client.memory(proxy):
            pass


async def test_an_http_upstream_is_served() -> None:
    with http_server(UPSTREAM) as served:
        proxy = proxy_server(served.url)
        async with Client.memory(proxy) as client, Client.http(served.url) as direct:
            listed = await client.list_tools()
            assert (listed[:-1], listed[-1].name) == (await direct.list_tools(), "read_more")
            pid = (await direct.call_tool("pid")).structured
            assert shape(await client.call_tool("pid")) == ([Text(str(pid))], pid, False)


def sdk(protocol: str = "auto") -> Any:
    def connect(**options: Any) -> AbstractAsyncContextManager[Client]:
        return Client.stdio(sys.executable, str(SDK), "stdio", protocol=protocol, **options)

    return connect


async def test_the_official_sdks_server_gives_the_same_tools_and_results() -> None:
    proxy = proxy_server(sdk(), continuation=None)
    heard: list[object] = []
    async with (
        sdk()() as direct,
        Client.memory(proxy, on_log=heard.append) as client,
    ):
        assert await client.list_tools() == await direct.list_tools()
        assert shape(await client.call_tool("add", {"a": 2, "b": 40})) == shape(
            await direct.call_tool("add", {"a": 2, "b": 40})
        )
        counted = await client.call_tool("count", {"n": 2}, on_progress=heard.append)
        assert shape(counted) == ([Text("counted to 2")], {"result": "counted to 2"}, False)
    assert heard == [
        Progress(1, 2, "step 1", token=ANY),
        LogMessage("info", "counted 1"),
        Progress(2, 2, "step 2", token=ANY),
        LogMessage("info", "counted 2"),
    ]


async def test_the_official_sdks_questions_reach_the_proxys_client() -> None:
    def elicit(request: Elicitation) -> dict[str, Any]:
        return {"name": "Ada"}

    def sample(request: SamplingRequest) -> SamplingResult:
        return SamplingResult(f"{request.prompt}: Paris", model="stand-in")

    answers: dict[str, Any] = {"elicit": elicit, "sample": sample, "roots": ["file:///work"]}
    proxy = proxy_server(sdk("2025-11-25"), continuation=None)
    async with (
        sdk("2025-11-25")(**answers) as direct,
        Client.memory(proxy, protocol="2025-11-25", **answers) as client,
    ):
        for name, arguments in (
            ("greet", {}),
            ("ask_model", {"prompt": "Capital?"}),
            ("roots", {}),
        ):
            through = await client.call_tool(name, arguments)
            assert shape(through) == shape(await direct.call_tool(name, arguments))
            assert through.is_error is False
        assert (await client.call_tool("greet")).text == "Hello, Ada!"


async def test_an_upstream_at_2025_06_18_is_served_to_a_2026_07_28_client() -> None:
    opened: list[Client] = []

    @contextlib.asynccontextmanager
    async def connect(**options: Any) -> AsyncIterator[Client]:
        async with sdk("2025-06-18")(**options) as upstream:
            opened.append(upstream)
            yield upstream

    proxy = proxy_server(connect, continuation=None)
    async with Client.memory(proxy, protocol="2026-07-28") as client:
        assert (client.protocol_version, opened[0].protocol_version) == (
            "2026-07-28",
            "2025-06-18",
        )
        added = await client.call_tool("add", {"a": 1, "b": 2})
        assert shape(added) == ([Text("3")], {"result": 3}, False)
