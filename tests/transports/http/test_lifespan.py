"""The HTTP app's lifespan in process: the ASGI lifespan scope (what uvicorn sends) runs the
server's lifespan from startup to shutdown, and a Starlette host that mounts the app runs it
with `lifespan=http_app.lifespan` (Starlette sends mounted apps no lifespan events)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from plainmcp import Context, Server
from tests.transports.http.asgi import meta, request, stateless_headers

pytestmark = pytest.mark.anyio


def probe(events: list[str], *, fail: bool = False) -> Server:
    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[str]:
        events.append("enter")
        if fail:
            raise ConnectionError("database unreachable")
        try:
            yield "pool"
        finally:
            events.append("exit")

    app = Server("asgi-lifespan", lifespan=lifespan)

    @app.tool
    def state(ctx: Context) -> str:
        return ctx.lifespan(str)

    @app.tool
    def boom() -> str:
        raise ValueError("the tool broke")

    return app


@contextlib.asynccontextmanager
async def lifespan_scope(
    app: Any, raised: list[Exception] | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """The ASGI lifespan protocol as a server speaks it: the block gets (to_app, from_app);
    what the app raises goes to `raised` (uvicorn logs it)."""
    to_app, app_receives = anyio.create_memory_object_stream[dict[str, Any]](4)
    app_sends, from_app = anyio.create_memory_object_stream[dict[str, Any]](4)
    scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}

    async def run() -> None:
        try:
            await app(scope, app_receives.receive, app_sends.send)
        except Exception as exc:
            if raised is None:
                raise
            raised.append(exc)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run)
        yield to_app, from_app


async def call(app: Any, name: str) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "_meta": meta()},
    }
    reply = await request(app, body=body, headers=stateless_headers("tools/call", name))
    result: dict[str, Any] = reply.json()["result"]
    return result


async def test_the_asgi_lifespan_runs_the_servers_lifespan_from_startup_to_shutdown() -> None:
    events: list[str] = []
    http_app = probe(events).http_app()
    async with lifespan_scope(http_app) as (to_app, from_app):
        await to_app.send({"type": "lifespan.startup"})
        assert await from_app.receive() == {"type": "lifespan.startup.complete"}
        assert events == ["enter"]
        assert (await call(http_app, "boom"))["isError"] is True
        assert (await call(http_app, "state"))["content"] == [{"type": "text", "text": "pool"}]
        await to_app.send({"type": "lifespan.shutdown"})
        assert await from_app.receive() == {"type": "lifespan.shutdown.complete"}
    assert events == ["enter", "exit"]


async def test_a_failing_start_up_is_reported_as_startup_failed() -> None:
    events: list[str] = []
    http_app = probe(events, fail=True).http_app()
    async with lifespan_scope(http_app) as (to_app, from_app):
        await to_app.send({"type": "lifespan.startup"})
        assert await from_app.receive() == {
            "type": "lifespan.startup.failed",
            "message": "the lifespan of server 'asgi-lifespan' failed to start:"
            " ConnectionError: database unreachable",
        }
    assert events == ["enter"]


async def test_starlette_runs_the_mounted_apps_lifespan_given_as_its_own() -> None:
    events: list[str] = []
    http_app = probe(events).http_app()
    host = Starlette(routes=[Mount("/", app=http_app)], lifespan=http_app.lifespan)
    async with lifespan_scope(host) as (to_app, from_app):
        await to_app.send({"type": "lifespan.startup"})
        assert await from_app.receive() == {"type": "lifespan.startup.complete"}
        assert events == ["enter"]
        assert (await call(host, "boom"))["isError"] is True
        assert (await call(host, "state"))["content"] == [{"type": "text", "text": "pool"}]
        await to_app.send({"type": "lifespan.shutdown"})
        assert await from_app.receive() == {"type": "lifespan.shutdown.complete"}
    assert events == ["enter", "exit"]


async def test_starlette_reports_a_failing_start_up_of_the_mounted_app() -> None:
    events: list[str] = []
    http_app = probe(events, fail=True).http_app()
    host = Starlette(routes=[Mount("/", app=http_app)], lifespan=http_app.lifespan)
    raised: list[Exception] = []
    async with lifespan_scope(host, raised) as (to_app, from_app):
        await to_app.send({"type": "lifespan.startup"})
        failed = await from_app.receive()
    assert failed["type"] == "lifespan.startup.failed"
    assert "the lifespan of server 'asgi-lifespan' failed to start" in failed["message"]
    assert [type(e).__name__ for e in raised] == ["LifespanError"]  # Starlette re-raises it
    assert events == ["enter"]


async def test_a_mounted_app_without_its_lifespan_tells_the_tool_how_to_run_it() -> None:
    events: list[str] = []
    http_app = probe(events).http_app()
    host = Starlette(routes=[Mount("/", app=http_app)])
    async with lifespan_scope(host) as (to_app, from_app):
        await to_app.send({"type": "lifespan.startup"})
        assert await from_app.receive() == {"type": "lifespan.startup.complete"}
        result = await call(host, "state")
        await to_app.send({"type": "lifespan.shutdown"})
        assert await from_app.receive() == {"type": "lifespan.shutdown.complete"}
    assert result["content"][0]["text"] == (
        "Tool 'state' failed: NotRunning: the server's lifespan is not running: serve it with"
        " app.run(), an HttpApp whose host runs its lifespan (Starlette:"
        " lifespan=http_app.lifespan), or Client.memory(app)"
    )
    assert events == []
