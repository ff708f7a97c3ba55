"""Middleware over Streamable HTTP (in-process ASGI): the same order, timing and refusals as
in memory and over stdio, for a session and for 2026-07-28 stateless requests."""

from __future__ import annotations

import logging

import pytest

from plainmcp import Server
from plainmcp.middleware import RateLimit, Timing
from tests.middleware.test_base import Recorder
from tests.transports.http.asgi import STATELESS, meta, request, stateless_headers
from tests.transports.http.test_app import in_session, open_session, rpc

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 0.25  # every reading is a quarter second after the last
        return self.now


def make_app(events: list[str]) -> Server:
    app = Server(
        "http-test",
        "1.0.0",
        middleware=[
            Recorder("outer", events),
            Timing(clock=Clock()),
            RateLimit(rate=0.001, burst=1, methods={"tools/call"}, clock=lambda: 0.0),
        ],
    )

    @app.tool
    async def add(a: int, b: int) -> int:
        events.append("add ran")
        return a + b

    return app


async def test_a_session_call_goes_through_the_middleware_in_order_then_is_rate_limited(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events: list[str] = []
    http = make_app(events).http_app()
    session = await open_session(http)
    events.clear()
    caplog.set_level(logging.INFO, logger="plainmcp.requests")
    first = await request(
        http,
        body=rpc(2, "tools/call", name="add", arguments={"a": 2, "b": 3}),
        headers=in_session(session),
    )
    assert first.json()["result"]["content"] == [{"type": "text", "text": "5"}]
    assert events == [
        "outer request tools/call add",
        "outer call tool add {'a': 2, 'b': 3}",
        "add ran",
        "outer call done 5",
        "outer request done CallResult",
    ]
    assert [r.getMessage() for r in caplog.records] == [
        "method=tools/call target=add duration_ms=250.0 outcome=ok"
    ]
    events.clear()
    second = await request(
        http,
        body=rpc(3, "tools/call", name="add", arguments={"a": 1, "b": 1}),
        headers=in_session(session),
    )
    result = second.json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Rate limit exceeded: try again in")
    assert "add ran" not in events


async def test_a_stateless_call_goes_through_the_middleware_too() -> None:
    events: list[str] = []
    http = make_app(events).http_app()
    call = await request(
        http,
        body=rpc(7, "tools/call", name="add", arguments={"a": 4, "b": 5}, _meta=meta()),
        headers=stateless_headers("tools/call", "add"),
        revision=STATELESS,
    )
    assert call.json()["result"]["content"] == [{"type": "text", "text": "9"}]
    assert events == [
        "outer request tools/call add",
        "outer call tool add {'a': 4, 'b': 5}",
        "add ran",
        "outer call done 9",
        "outer request done CallResult",
    ]
