"""RateLimit: a token bucket per client, refusing tools/call with an isError result the model
reads and other requests with -32029; time comes from the injected clock."""

from __future__ import annotations

import pytest

from plainmcp import Server
from plainmcp.middleware import RateLimit
from plainmcp.testing import connect
from plainmcp.transports.http.security import Principal
from tests.conftest import Session
from tests.middleware.clock import Clock

pytestmark = pytest.mark.anyio

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def limited_app(limit: RateLimit) -> Server:
    app = Server("limited", middleware=[limit])

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    @app.prompt
    def greet() -> str:
        return "Hello"

    return app


async def test_a_client_past_its_burst_gets_an_error_the_model_reads_until_it_refills() -> None:
    clock = Clock()
    # Three: the client's tools/list after the first structured result (for the output
    # schema `data` is checked against) takes a token too.
    app = limited_app(RateLimit(rate=2, burst=3, clock=clock))
    async with connect(app) as client:
        assert (await client.call_tool("add", {"a": 1, "b": 1})).text == "2"
        assert (await client.call_tool("add", {"a": 1, "b": 2})).text == "3"
        refused = await client.call_tool("add", {"a": 1, "b": 3})
        assert refused.is_error
        assert refused.text == "Rate limit exceeded: try again in 0.5 seconds."
        clock.advance(0.5)
        assert (await client.call_tool("add", {"a": 1, "b": 4})).text == "5"


async def test_other_requests_are_refused_with_a_json_rpc_error() -> None:
    clock = Clock()
    async with Session(limited_app(RateLimit(rate=0.25, burst=1, clock=clock))) as s:
        await s.initialize()  # never limited
        assert "result" in await s.request("prompts/get", {"name": "greet"})
        reply = await s.request("prompts/get", {"name": "greet"})
        assert reply["error"] == {
            "code": -32029,
            "message": "Rate limit exceeded: try again in 4 seconds.",
            "data": {"retryAfterSeconds": 4.0},
        }
        assert "result" in await s.request("ping")  # never limited


async def test_each_session_has_its_own_bucket() -> None:
    app = limited_app(RateLimit(rate=1, burst=1, clock=Clock()))
    async with connect(app) as first, connect(app) as second:
        assert (await first.call_tool("add", {"a": 1, "b": 1})).text == "2"
        assert (await first.call_tool("add", {"a": 1, "b": 1})).is_error
        assert (await second.call_tool("add", {"a": 1, "b": 1})).text == "2"


async def test_a_principal_is_limited_across_its_requests_and_sessions() -> None:
    app = limited_app(RateLimit(rate=1, burst=1, clock=Clock()))
    replies = []
    for _ in range(2):
        async with Session(app, revision_hint="2026-07-28") as s:
            s.conn.principal = Principal(subject="alice")
            replies.append(
                await s.request(
                    "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": META}
                )
            )
    assert replies[0]["result"]["content"] == [{"type": "text", "text": "2"}]
    assert replies[1]["result"]["isError"] is True


def test_methods_limits_only_those_named() -> None:
    limit = RateLimit(rate=1, burst=1, methods=["tools/call"])
    assert [limit.limited(m) for m in ("tools/call", "prompts/get", "initialize")] == [
        True,
        False,
        False,
    ]


def test_refilled_buckets_are_forgotten_when_there_are_too_many() -> None:
    clock = Clock()
    limit = RateLimit(rate=1, burst=1, clock=clock, max_clients=2)
    assert limit.take("a") == 0.0
    assert limit.take("b") == 0.0
    clock.advance(1)
    assert limit.take("c") == 0.0
    assert sorted(limit._buckets) == ["c"]
    assert limit.take("c") == 1.0


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="rate must be positive and burst at least 1"):
        RateLimit(rate=0, burst=1)
