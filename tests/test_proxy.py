"""The proxy (issue 28, part 1: plainmcp.proxy): an upstream's tools served as the proxy's own,
with their definitions kept, calls forwarded with progress, logs and cancellation, results
through the proxy's own pipeline, list changes followed and upstream faults as clear errors."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any
from unittest.mock import ANY

import anyio
import pytest

from plainmcp import Client, Contents, Context, PayloadLimits, Server, Text, ToolError, ToolResult
from plainmcp.client import Elicitation, LogMessage, McpError, Progress, SamplingRequest
from plainmcp.errors import ResourceError
from plainmcp.middleware.base import Middleware, NextRequest, RequestInfo
from plainmcp.proxy import connector, proxy_server
from plainmcp.wire.jsonrpc import RpcError
from tests.test_continuation import follow_text

pytestmark = pytest.mark.anyio


def upstream() -> Server:
    up = Server("upstream", continuation=None, page_size=2)

    @up.tool(
        title="Adder",
        annotations={"readOnlyHint": True, "idempotentHint": True},
        description="Add two integers.",
    )
    async def add(a: int, b: int, ctx: Context) -> int:
        await ctx.report_progress(1, 2, "half")
        await ctx.info("adding")
        return a + b

    @up.tool
    def hello(name: str) -> str:
        """Greet."""
        return f"hi {name}"

    @up.tool
    def fail() -> str:
        raise ToolError("no luck")

    return up


def memory(up: Server) -> Any:
    def connect(**options: Any) -> AbstractAsyncContextManager[Client]:
        return Client.memory(up, **options)

    return connect


async def test_tools_are_listed_with_their_definitions_across_pages() -> None:
    up = upstream()
    async with Client.memory(up) as direct:
        expected = await direct.list_tools()
    proxy = proxy_server(memory(up), continuation=None)
    async with Client.memory(proxy) as client:
        assert await client.list_tools() == expected
    assert [t.name for t in expected] == ["add", "hello", "fail"]
    assert expected[0].title == "Adder"
    assert expected[0].annotations == {"readOnlyHint": True, "idempotentHint": True}
    assert expected[0].output_schema == {"type": "integer"}


async def test_a_call_is_forwarded_with_its_progress_and_logs() -> None:
    heard: list[object] = []
    proxy = proxy_server(memory(upstream()))
    async with Client.memory(proxy, on_log=heard.append) as client:
        result = await client.call_tool("add", {"a": 2, "b": 3}, on_progress=heard.append)
        assert (result.content, result.structured, result.is_error) == ([Text("5")], 5, False)
        assert heard == [Progress(1, 2, "half", token=ANY), LogMessage("info", "adding")]


async def test_errors_are_clear_results_and_the_next_call_works() -> None:
    proxy = proxy_server(memory(upstream()))
    async with Client.memory(proxy) as client:
        failed = await client.call_tool("fail")
        assert (failed.text, failed.is_error) == ("no luck", True)
        bad = await client.call_tool("hello", {"nom": "x"})
        assert bad.is_error
        assert bad.text.splitlines()[0] == "Invalid arguments for tool 'hello':"
        assert (await client.call_tool("hello", {"name": "Ada"})).text == "hi Ada"


class Refuse(Middleware):
    """The upstream answers every tools/call with a JSON-RPC error."""

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        if request.method == "tools/call" and request.target == "hello":
            raise RpcError(-32000, "busy")
        return await call_next(request)


async def test_a_json_rpc_error_of_the_upstream_is_an_is_error_result() -> None:
    up = upstream()
    up.add_middleware(Refuse())
    proxy = proxy_server(memory(up))
    async with Client.memory(proxy) as client:
        result = await client.call_tool("hello", {"name": "x"})
        assert (result.text, result.is_error) == ("Upstream error -32000: busy", True)
        assert (await client.call_tool("add", {"a": 1, "b": 1})).structured == 2


async def test_an_upstream_change_is_relisted_and_announced() -> None:
    up = upstream()
    changed = anyio.Event()
    proxy = proxy_server(memory(up))
    async with Client.memory(proxy, on_list_changed=lambda kind: changed.set()) as client:
        await client.list_tools()
        up.remove_tool("fail")

        @up.tool
        def late() -> str:
            return "late"

        await changed.wait()
        while "late" not in proxy.tools:  # one list_changed may come per registry change
            changed = anyio.Event()
            await changed.wait()
        assert [t.name for t in await client.list_tools()] == [
            "add",
            "hello",
            "late",
            "read_more",
        ]
        assert (await client.call_tool("late")).text == "late"


async def test_a_cancelled_call_is_cancelled_upstream() -> None:
    up = upstream()
    started, stopped = anyio.Event(), anyio.Event()

    @up.tool
    async def wait() -> str:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            stopped.set()
        return "never"

    proxy = proxy_server(memory(up))
    async with Client.memory(proxy) as client:
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.call_tool, "wait")
            await started.wait()
            tg.cancel_scope.cancel()
        await stopped.wait()
        assert (await client.call_tool("hello", {"name": "Ada"})).text == "hi Ada"


async def test_a_big_result_is_cut_by_the_proxys_guards_and_read_whole() -> None:
    up = Server("unguarded", continuation=None, payload_limits=UNLIMITED)

    @up.tool
    def big() -> str:
        return TEXT

    proxy = proxy_server(memory(up))
    async with Client.memory(proxy) as client:
        first = await client.call_tool("big")
        assert len(first.text) <= 40_000  # the proxy's default limits: Claude Code's
        text, calls = await follow_text(client, first)
        assert (text, calls) == (TEXT, 3)


UNLIMITED = PayloadLimits(text_block=None, text_result=None, structured=None)
TEXT = "".join(f"line {i:06d}\n" for i in range(12_500))
"""150,000 characters that a cut in the wrong place would show."""


async def test_roots_of_a_handshake_client_reach_the_upstream() -> None:
    up = Server("upstream", continuation=None)

    @up.tool
    async def where(ctx: Context) -> ToolResult:
        roots = ", ".join(root.uri for root in await ctx.list_roots())
        return ToolResult(roots, meta={"upstream/own": 1})

    proxy = proxy_server(memory(up))
    async with Client.memory(proxy, protocol="2025-11-25", roots=["file:///work"]) as client:
        result = await client.call_tool("where")
        assert (result.content, result.meta) == ([Text("file:///work")], {"upstream/own": 1})
    async with Client.memory(proxy, protocol="2026-07-28", roots=["file:///work"]) as client:
        refused = await client.call_tool("where")
        assert (refused.is_error, refused.text) == (
            True,
            "Upstream error -32603: the proxy's client speaks 2026-07-28, which answers roots"
            " only in a retried request: not relayed to an upstream",
        )


async def test_elicitation_and_sampling_of_the_upstream_reach_the_client() -> None:
    up = Server("upstream", continuation=None)

    @up.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", NAME)
        reply = await ctx.sample("Capital of France?", max_tokens=5, system_prompt="Brief.")
        return f"{answer.action} {answer.content} {reply.model}: {reply.text}"

    heard: list[object] = []

    def elicit(request: Elicitation) -> dict[str, Any]:
        heard.append(request)
        return {"name": "Ada"}

    def sample(request: SamplingRequest) -> str:
        heard.append((request.prompt, request.max_tokens, request.system_prompt))
        return "Paris"

    proxy = proxy_server(memory(up))
    async with Client.memory(proxy, protocol="2025-11-25", elicit=elicit, sample=sample) as client:
        result = await client.call_tool("ask")
        assert result.text == "accept {'name': 'Ada'} unknown: Paris"
    assert heard == [
        Elicitation("Your name?", requested_schema=NAME),
        ("Capital of France?", 5, "Brief."),
    ]


NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def test_resources_are_listed_read_and_followed() -> None:
    up = Server("upstream", continuation=None, page_size=1)
    up.add_resource("sunny", "data://today", description="Today.", mime_type="text/plain")

    @up.resource("data://logo", mime_type="image/png")
    def logo() -> bytes:
        return b"\x89PNG"

    @up.resource("data://broken")
    def broken() -> str:
        raise ResourceError("not today", code=-32602)

    proxy = proxy_server(memory(up))
    changed = anyio.Event()
    async with (
        Client.memory(up) as direct,
        Client.memory(proxy, on_list_changed=lambda kind: changed.set()) as client,
    ):
        assert await client.list_resources() == await direct.list_resources()
        for uri in ("data://today", "data://logo"):
            through = (await client.read_resource(uri)).contents
            assert through == (await direct.read_resource(uri)).contents
        assert (await client.read_resource("data://today")).contents == [
            Contents("data://today", text="sunny", mime_type="text/plain")
        ]
        with pytest.raises(McpError) as refused:
            await client.read_resource("data://broken")
        assert (refused.value.code, refused.value.message) == (-32602, "not today")
        up.add_resource("late", "data://late")
        while "data://late" not in proxy_resources(proxy):
            await changed.wait()
            changed = anyio.Event()
        assert (await client.read_resource("data://late")).text == "late"


def test_an_upstream_is_a_url_a_command_or_a_function() -> None:
    with pytest.raises(ValueError, match="a stdio upstream is a command"):
        connector([])
    opened = connector(["python", "server.py"])
    assert callable(opened) and callable(connector("http://127.0.0.1:1/mcp"))


def proxy_resources(proxy: Server) -> list[str]:
    return [item.uri for item in proxy.core.resources.resources]
