"""Timing: one structured line per request, with its duration read from the injected clock."""

from __future__ import annotations

import logging

import pytest

from plainmcp import McpError, Server, ToolError
from plainmcp.middleware import Timing
from plainmcp.testing import connect
from tests.conftest import Session
from tests.middleware.clock import Clock

pytestmark = pytest.mark.anyio

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def timed_app(clock: Clock) -> Server:
    app = Server("timed", middleware=[Timing(clock=clock)])

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    @app.tool
    def refuse() -> str:
        raise ToolError("no")

    @app.prompt
    def greet(who: str) -> str:
        return f"Hello {who}"

    return app


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "plainmcp.requests"]


async def test_each_request_is_one_line_with_method_target_duration_and_outcome(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="plainmcp.requests")
    clock = Clock(step=0.25)  # every request takes 250 ms
    async with connect(timed_app(clock)) as client:
        await client.call_tool("add", {"a": 1, "b": 2})
        await client.call_tool("refuse")
        with pytest.raises(McpError):
            await client.call_tool("missing")
        await client.request("prompts/get", {"name": "greet", "arguments": {"who": "a b"}})
    assert lines(caplog) == [
        "method=initialize duration_ms=250.0 outcome=ok",
        "method=tools/call target=add duration_ms=250.0 outcome=ok",
        "method=tools/list duration_ms=250.0 outcome=ok",  # the client's, for add's schema
        "method=tools/call target=refuse duration_ms=250.0 outcome=tool_error",
        'method=tools/call target=missing duration_ms=250.0 outcome="error -32602"',
        "method=prompts/get target=greet duration_ms=250.0 outcome=ok",
    ]
    record = next(r for r in caplog.records if "target=add" in r.getMessage())
    assert record.mcp == {  # type: ignore[attr-defined]
        "method": "tools/call",
        "target": "add",
        "duration_ms": 250.0,
        "outcome": "ok",
    }


async def test_a_stateless_request_is_timed_the_same_way(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="plainmcp.requests")
    async with Session(timed_app(Clock(step=0.0015)), revision_hint="2026-07-28") as s:
        reply = await s.request(
            "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}
        )
    assert reply["result"]["content"] == [{"type": "text", "text": "3"}]
    assert lines(caplog) == ["method=tools/call target=add duration_ms=1.5 outcome=ok"]


async def test_a_target_of_more_than_plain_characters_is_quoted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="plainmcp.requests")
    app = Server("quoted", middleware=[Timing(clock=Clock())])
    app.add_resource("hello", 'note://a"b')
    async with connect(app) as client:
        await client.request("resources/read", {"uri": 'note://a"b'})
    assert (
        lines(caplog)[-1]
        == 'method=resources/read target="note://a\\"b" duration_ms=0.0 outcome=ok'
    )
