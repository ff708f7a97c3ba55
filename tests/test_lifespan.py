"""The lifespan (lifespan.py) with the in-memory client: entered once before the first request,
exited once at the end whatever happened, its state typed in the Context."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import anyio
import pytest

from plainmcp import Context, Server
from plainmcp.lifespan import LifespanError, hooks
from plainmcp.testing import call, connect

pytestmark = pytest.mark.anyio


@dataclass
class Pool:
    url: str
    open: bool = True


def pooled_app(events: list[str], *, fail: bool = False) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[Pool]:
        events.append(f"enter {app.name}")
        if fail:
            raise ConnectionError("database unreachable")
        pool = Pool("db://main")
        try:
            yield pool
        finally:
            pool.open = False
            events.append("exit")

    app = Server("pooled", lifespan=lifespan)

    @app.tool
    def url(ctx: Context) -> str:
        events.append("tool")
        return ctx.lifespan(Pool).url

    @app.tool
    async def broken(ctx: Context) -> str:
        assert ctx.lifespan(Pool).open
        raise ValueError("the tool broke")

    @app.resource("pool://url")
    def resource_url(ctx: Context) -> str:
        return ctx.lifespan(Pool).url

    @app.prompt
    def ask(ctx: Context) -> str:
        return f"Query {ctx.lifespan(Pool).url}"

    return app


async def test_the_lifespan_is_entered_before_the_first_request_and_exited_at_the_end() -> None:
    events: list[str] = []
    app = pooled_app(events)
    async with connect(app) as client:
        assert events == ["enter pooled"]
        result = await client.call_tool("url")
        assert result.text == "db://main"
        read = await client.request("resources/read", {"uri": "pool://url"})
        assert read["contents"][0]["text"] == "db://main"
        got = await client.request("prompts/get", {"name": "ask"})
        assert got["messages"][0]["content"]["text"] == "Query db://main"
    assert events == ["enter pooled", "tool", "exit"]


async def test_a_tool_that_raises_leaves_the_lifespan_running_and_it_exits_once() -> None:
    events: list[str] = []
    async with connect(pooled_app(events)) as client:
        failed = await client.call_tool("broken")
        assert failed.is_error and failed.text == "Tool 'broken' failed: ValueError: the tool broke"
        assert (await client.call_tool("url")).text == "db://main"
    assert events == ["enter pooled", "tool", "exit"]


async def test_an_error_in_the_client_block_still_exits_the_lifespan() -> None:
    events: list[str] = []
    with pytest.raises(KeyError):
        async with connect(pooled_app(events)):
            raise KeyError("the test broke")
    assert events == ["enter pooled", "exit"]


async def test_a_failing_start_up_is_an_error_before_any_request() -> None:
    events: list[str] = []
    with pytest.raises(LifespanError) as raised:
        async with connect(pooled_app(events, fail=True)):
            pytest.fail("the session must not open")
    assert str(raised.value) == (
        "the lifespan of server 'pooled' failed to start: ConnectionError: database unreachable"
    )
    assert isinstance(raised.value.__cause__, ConnectionError)
    assert events == ["enter pooled"]


async def test_a_client_inside_another_shares_the_running_lifespan() -> None:
    events: list[str] = []
    app = pooled_app(events)
    async with connect(app) as outer:
        async with connect(app) as inner:
            assert (await inner.call_tool("url")).text == "db://main"
        assert events == ["enter pooled", "tool"]
        assert (await outer.call_tool("url")).text == "db://main"
    assert events == ["enter pooled", "tool", "tool", "exit"]


def test_each_synchronous_testing_call_runs_the_lifespan_around_it() -> None:
    events: list[str] = []
    app = pooled_app(events)
    assert call(app, "url").text == "db://main"
    assert call(app, "url").text == "db://main"
    assert events == ["enter pooled", "tool", "exit"] * 2


async def test_a_bare_async_generator_is_a_lifespan() -> None:
    async def lifespan(app: Server) -> AsyncIterator[Pool]:
        yield Pool("db://generator")

    app = Server("gen", lifespan=lifespan)

    @app.tool
    def url(ctx: Context) -> str:
        return ctx.lifespan(Pool).url

    async with connect(app) as client:
        assert (await client.call_tool("url")).text == "db://generator"


async def test_startup_and_shutdown_functions_make_a_lifespan() -> None:
    events: list[str] = []

    async def startup(app: Server) -> Pool:
        events.append("startup")
        return Pool("db://hooks")

    def shutdown(pool: Pool) -> None:
        events.append(f"shutdown {pool.url}")

    app = Server("hooked", lifespan=hooks(startup, shutdown))

    @app.tool
    def url(ctx: Context) -> str:
        return ctx.lifespan(Pool).url

    async with connect(app) as client:
        assert (await client.call_tool("url")).text == "db://hooks"
    assert events == ["startup", "shutdown db://hooks"]


async def test_reading_the_lifespan_as_another_type_is_a_tool_error() -> None:
    app = Server("typed", lifespan=hooks(lambda app: Pool("db://x")))

    @app.tool
    def wrong(ctx: Context) -> str:
        return str(ctx.lifespan(str))

    @app.tool
    def untyped(ctx: Context) -> str:
        state = ctx.lifespan()
        return f"{type(state).__name__} {state.url}"

    async with connect(app) as client:
        assert (await client.call_tool("wrong")).text == (
            "Tool 'wrong' failed: TypeError: the lifespan yielded Pool, not str"
        )
        assert (await client.call_tool("untyped")).text == "Pool db://x"


async def test_a_server_without_a_lifespan_says_so_when_a_tool_reads_it() -> None:
    app = Server("plain")

    @app.tool
    def state(ctx: Context) -> str:
        return str(ctx.lifespan())

    async with connect(app) as client:
        assert (await client.call_tool("state")).text == (
            "Tool 'state' failed: NotRunning: the server declares no lifespan:"
            " Server(..., lifespan=fn)"
        )


async def test_the_lifespan_context_runs_it_for_a_host_of_its_own() -> None:
    events: list[str] = []
    app = pooled_app(events)
    async with app.lifespan_context() as pool:
        assert pool == Pool("db://main")
        async with connect(app) as client:  # shares it
            assert (await client.call_tool("url")).text == "db://main"
        assert events == ["enter pooled", "tool"]
        await anyio.lowlevel.checkpoint()
    assert events == ["enter pooled", "tool", "exit"]
