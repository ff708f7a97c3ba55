"""from_asgi runs the app's lifespan inside the server's, and hands its state to requests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fastapi import FastAPI, Request

from plainmcp import Client
from plainmcp.lifespan import LifespanError
from plainmcp.openapi import from_asgi

pytestmark = pytest.mark.anyio


async def test_the_apps_lifespan_runs_and_its_state_reaches_requests() -> None:
    events: list[str] = []

    @asynccontextmanager
    async def lifespan(api: FastAPI) -> AsyncIterator[dict[str, Any]]:
        events.append("startup")
        yield {"greeting": "hello"}
        events.append("shutdown")

    api = FastAPI(lifespan=lifespan)

    @api.get("/greet", operation_id="greet")
    def greet(request: Request) -> str:
        return f"{request.state.greeting}, {len(events)} event(s) so far"

    app = from_asgi(api, include="greet")
    async with Client.memory(app) as client:
        result = await client.call_tool("greet", {})
        assert events == ["startup"]
    assert events == ["startup", "shutdown"]
    with pytest.raises(KeyError):  # the body's own error, not wrapped by the app's lifespan
        async with Client.memory(from_asgi(api, include="greet")):
            raise KeyError("mine")
    assert events == ["startup", "shutdown", "startup", "shutdown"]
    assert (result.is_error, result.text) == (False, "hello, 1 event(s) so far")


async def test_a_failed_startup_stops_the_server() -> None:
    @asynccontextmanager
    async def lifespan(api: FastAPI) -> AsyncIterator[None]:
        raise RuntimeError("no database")
        yield

    api = FastAPI(lifespan=lifespan)
    api.get("/x", operation_id="x")(lambda: 1)
    with pytest.raises(LifespanError) as failed:
        async with Client.memory(from_asgi(api, include="x")):
            pass
    cause = failed.value.__cause__
    assert (type(cause).__name__, str(cause)) == ("AppLifespanError", "RuntimeError: no database")


async def test_an_app_without_a_lifespan_is_served_as_it_is() -> None:
    async def bare(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise RuntimeError("only http")
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"bare"})

    document = {
        "openapi": "3.1.0",
        "info": {"title": "bare", "version": "1"},
        "paths": {
            "/": {"get": {"operationId": "root", "responses": {"200": {"description": "ok"}}}}
        },
    }
    async with Client.memory(from_asgi(bare, document=document, include="*")) as client:
        result = await client.call_tool("root", {})
    assert result.text == "bare"
