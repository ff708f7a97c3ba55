"""Middleware around requests (the dispatcher) and around calls (invoke): order,
short-circuits, changed requests, error mapping, per revision."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from plainmcp import Context, Server, ToolError
from plainmcp.middleware import (
    CallInfo,
    CallResult,
    Middleware,
    NextCall,
    NextRequest,
    RequestInfo,
    RpcError,
    error_result,
)
from plainmcp.testing import connect
from tests.conftest import Session

pytestmark = pytest.mark.anyio

STATELESS = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
REVISIONS = ("2025-11-25", STATELESS)


class Recorder(Middleware):
    def __init__(self, name: str, events: list[str]) -> None:
        self.name = name
        self.events = events

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        self.events.append(f"{self.name} request {request.method} {request.target}")
        result = await call_next(request)
        self.events.append(f"{self.name} request done {type(result).__name__}")
        return result

    async def on_call(self, call: CallInfo, call_next: NextCall) -> Any:
        self.events.append(f"{self.name} call {call.kind} {call.name} {dict(call.arguments)}")
        value = await call_next(call)
        self.events.append(f"{self.name} call done {value!r}")
        return value


def make_app(events: list[str], *middleware: Middleware) -> Server:
    app = Server("mw", middleware=middleware, continuation=None)

    @app.tool
    def add(a: int, b: int) -> int:
        main = threading.current_thread() is threading.main_thread()
        events.append(f"add in {'main' if main else 'worker'}")
        return a + b

    @app.prompt
    def greet(who: str) -> str:
        return f"Hello {who}"

    @app.resource("app://{item}")
    async def item(item: str, ctx: Context) -> str:
        return f"item {item}"

    return app


async def request(s: Session, revision: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One request in `revision`: in its session, or carrying its own _meta (2026-07-28)."""
    if revision == STATELESS:
        params = {**params, "_meta": META}
    return await s.request(method, params)


async def session(app: Server, revision: str) -> Session:
    s = Session(app, revision_hint=revision)
    await s.__aenter__()
    if revision != STATELESS:
        await s.initialize(revision)
    return s


@pytest.mark.parametrize("revision", REVISIONS)
async def test_middleware_runs_in_the_order_given_around_requests_and_calls(revision: str) -> None:
    events: list[str] = []
    app = make_app(events, Recorder("outer", events), Recorder("inner", events))
    s = await session(app, revision)
    try:
        events.clear()
        reply = await request(
            s, revision, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}
        )
    finally:
        await s.__aexit__(None, None, None)
    assert reply["result"]["content"] == [{"type": "text", "text": "5"}]
    assert events == [
        "outer request tools/call add",
        "inner request tools/call add",
        "outer call tool add {'a': 2, 'b': 3}",
        "inner call tool add {'a': 2, 'b': 3}",
        "add in worker",
        "inner call done 5",
        "outer call done 5",
        "inner request done CallResult",
        "outer request done CallResult",
    ]


@pytest.mark.parametrize("revision", REVISIONS)
async def test_every_kind_of_request_and_call_goes_through(revision: str) -> None:
    events: list[str] = []
    app = make_app(events, Recorder("m", events))
    s = await session(app, revision)
    try:
        events.clear()
        got = await request(
            s, revision, "prompts/get", {"name": "greet", "arguments": {"who": "Ada"}}
        )
        read = await request(s, revision, "resources/read", {"uri": "app://7"})
        listed = await request(s, revision, "tools/list", {})
    finally:
        await s.__aexit__(None, None, None)
    assert got["result"]["messages"][0]["content"]["text"] == "Hello Ada"
    assert read["result"]["contents"][0]["text"] == "item 7"
    assert [t["name"] for t in listed["result"]["tools"]] == ["add"]
    assert events == [
        "m request prompts/get greet",
        "m call prompt greet {'who': 'Ada'}",
        "m call done 'Hello Ada'",
        "m request done Reply",
        "m request resources/read app://7",
        "m call resource app://7 {'item': '7'}",
        "m call done 'item 7'",
        "m request done Reply",
        "m request tools/list None",
        "m request done Reply",
    ]


class Refuse(Middleware):
    """Short-circuits: tools/call with an isError result, other methods with an error."""

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        if request.method == "tools/call":
            return error_result(f"no {request.target} today")
        if request.method == "prompts/get":
            raise RpcError(-32001, "prompts are closed")
        return await call_next(request)


@pytest.mark.parametrize("revision", REVISIONS)
async def test_a_request_middleware_short_circuits_with_a_result_or_an_error(revision: str) -> None:
    events: list[str] = []
    app = make_app(events, Refuse(), Recorder("inner", events))
    s = await session(app, revision)
    try:
        events.clear()
        called = await request(
            s, revision, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}
        )
        got = await request(
            s, revision, "prompts/get", {"name": "greet", "arguments": {"who": "x"}}
        )
    finally:
        await s.__aexit__(None, None, None)
    assert called["result"]["isError"] is True
    assert called["result"]["content"] == [{"type": "text", "text": "no add today"}]
    assert got["error"] == {"code": -32001, "message": "prompts are closed"}
    assert events == []


class Rewrite(Middleware):
    """Changes the request (b doubled) and the call (a + 100), and replaces a prompt's value."""

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        if request.method == "tools/call":
            arguments = dict(request.arguments or {})
            arguments["b"] = arguments["b"] * 2
            request.params = {**request.params, "arguments": arguments}
        return await call_next(request)

    async def on_call(self, call: CallInfo, call_next: NextCall) -> Any:
        if call.kind == "tool":
            call.arguments = {**call.arguments, "a": call.arguments["a"] + 100}
        if call.kind == "prompt":
            return "short-circuited prompt"
        return await call_next(call)


async def test_middleware_changes_the_request_and_the_call_and_short_circuits_a_call() -> None:
    events: list[str] = []
    async with connect(make_app(events, Rewrite())) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "105"
        got = await client.request("prompts/get", {"name": "greet", "arguments": {"who": "x"}})
    assert got["messages"][0]["content"]["text"] == "short-circuited prompt"
    assert events == ["add in worker"]


class Breaks(Middleware):
    def __init__(self, exc: Exception, where: str = "request") -> None:
        self.exc = exc
        self.where = where

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        if self.where == "request" and request.method != "initialize":
            raise self.exc
        return await call_next(request)

    async def on_call(self, call: CallInfo, call_next: NextCall) -> Any:
        if self.where == "call":
            raise self.exc
        return await call_next(call)


@pytest.mark.parametrize(
    ("exc", "where", "expected"),
    [
        (ToolError("quota used up"), "request", {"isError": True, "text": "quota used up"}),
        (ToolError("quota used up"), "call", {"isError": True, "text": "quota used up"}),
        (RpcError(-32002, "nope"), "request", {"error": {"code": -32002, "message": "nope"}}),
        (RuntimeError("bug"), "request", {"error": {"code": -32603, "message": "Internal error"}}),
    ],
)
async def test_what_a_middleware_raises_is_answered_by_the_error_policy(
    exc: Exception, where: str, expected: dict[str, Any]
) -> None:
    app = make_app([], Breaks(exc, where))
    async with Session(app) as s:
        await s.initialize()
        reply = await s.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
    if "error" in expected:
        assert reply["error"] == expected["error"]
    else:
        assert reply["result"]["isError"] is True
        assert reply["result"]["content"] == [{"type": "text", "text": expected["text"]}]


async def test_a_request_changed_into_an_invalid_one_is_refused_as_invalid_params() -> None:
    class Blank(Middleware):
        async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
            if request.method == "tools/call":
                request.params = {"arguments": {}}
            return await call_next(request)

    async with Session(make_app([], Blank())) as s:
        await s.initialize()
        reply = await s.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
    assert reply["error"] == {"code": -32602, "message": "Invalid params: name must be a string"}


async def test_a_middleware_that_answers_another_method_with_a_value_is_an_internal_error() -> None:
    class Wrong(Middleware):
        async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
            if request.method == "ping":
                return {"raw": "dict"}
            return await call_next(request)

    async with Session(make_app([], Wrong())) as s:
        await s.initialize()
        reply = await s.request("ping")
    assert reply["error"] == {"code": -32603, "message": "Internal error"}


async def test_request_facts_are_the_revision_independent_model() -> None:
    seen: list[tuple[Any, ...]] = []

    class Look(Middleware):
        async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
            result = await call_next(request)
            if request.method == "tools/call":
                assert isinstance(result, CallResult)
                seen.append(
                    (
                        request.revision,
                        request.stateless,
                        request.client_info.get("name"),
                        request.principal,
                        request.arguments,
                        result.is_error,
                    )
                )
            return result

    app = make_app([], Look())
    for revision in REVISIONS:
        s = await session(app, revision)
        try:
            await request(s, revision, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
        finally:
            await s.__aexit__(None, None, None)
    assert seen == [
        ("2025-11-25", False, "plainmcp-tests", None, {"a": 1, "b": 1}, False),
        (STATELESS, True, "t", None, {"a": 1, "b": 1}, False),
    ]


def test_a_middleware_must_subclass_middleware() -> None:
    with pytest.raises(TypeError, match="middleware must subclass Middleware, not object"):
        Server("x", middleware=[object()])  # type: ignore[list-item]


async def test_add_middleware_appends_inside_the_ones_given() -> None:
    events: list[str] = []
    app = make_app(events, Recorder("first", events))
    app.add_middleware(Recorder("second", events))
    async with connect(app) as client:
        events.clear()
        await client.ping()
    assert events == [
        "first request ping None",
        "second request ping None",
        "second request done Reply",
        "first request done Reply",
    ]
