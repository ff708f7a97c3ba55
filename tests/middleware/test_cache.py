"""ResultCache: the tools declared cacheable answer from the cache until the entry expires,
keyed by tool, canonical arguments and principal; one entry serves every revision."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import PayloadLimits, ResourceLink, Server, ToolError
from plainmcp.middleware import ResultCache
from plainmcp.testing import connect
from plainmcp.transports.http.security import Principal
from tests.conftest import Session
from tests.middleware.clock import Clock

pytestmark = pytest.mark.anyio

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def cached_app(cache: ResultCache, calls: list[str]) -> Server:
    app = Server("cached", middleware=[cache])

    @app.tool
    def forecast(city: str, days: int = 1) -> dict[str, Any]:
        calls.append(city)
        return {"city": city, "days": days, "n": len(calls)}

    @app.tool
    def fresh(city: str) -> str:
        calls.append(city)
        return f"{city} {len(calls)}"

    @app.tool
    def flaky() -> str:
        calls.append("flaky")
        raise ToolError("try later")

    return app


async def test_a_cacheable_tool_answers_from_the_cache_until_its_ttl_passes() -> None:
    clock, calls = Clock(), []
    cache = ResultCache({"forecast": 60}, clock=clock)
    async with connect(cached_app(cache, calls)) as client:
        first = await client.call_tool("forecast", {"city": "Oslo", "days": 2})
        again = await client.call_tool("forecast", {"days": 2, "city": "Oslo"})  # key order
        other = await client.call_tool("forecast", {"city": "Rome"})
        clock.advance(60)
        expired = await client.call_tool("forecast", {"city": "Oslo", "days": 2})
    assert first.structured == again.structured == {"city": "Oslo", "days": 2, "n": 1}
    assert other.structured == {"city": "Rome", "days": 1, "n": 2}
    assert expired.structured == {"city": "Oslo", "days": 2, "n": 3}
    assert calls == ["Oslo", "Rome", "Oslo"]


async def test_tools_not_declared_and_error_results_are_not_cached() -> None:
    calls: list[str] = []
    cache = ResultCache({"forecast": 60, "flaky": 60}, clock=Clock())
    async with connect(cached_app(cache, calls)) as client:
        assert (await client.call_tool("fresh", {"city": "Oslo"})).text == "Oslo 1"
        assert (await client.call_tool("fresh", {"city": "Oslo"})).text == "Oslo 2"
        assert (await client.call_tool("flaky")).is_error
        assert (await client.call_tool("flaky")).is_error
    assert calls == ["Oslo", "Oslo", "flaky", "flaky"]
    assert len(cache) == 0


async def test_one_entry_serves_a_handshake_session_and_a_stateless_request() -> None:
    calls: list[str] = []
    app = cached_app(ResultCache({"forecast": 60}, clock=Clock()), calls)
    async with Session(app) as s:
        await s.initialize("2025-06-18")
        session_result = await s.call("forecast", {"city": "Oslo"})
    async with Session(app, revision_hint="2026-07-28") as s:
        reply = await s.request(
            "tools/call", {"name": "forecast", "arguments": {"city": "Oslo"}, "_meta": META}
        )
    assert session_result["structuredContent"] == {"city": "Oslo", "days": 1, "n": 1}
    assert reply["result"]["structuredContent"] == {"city": "Oslo", "days": 1, "n": 1}
    assert reply["result"]["resultType"] == "complete"
    assert calls == ["Oslo"]


async def test_principals_do_not_share_entries() -> None:
    calls: list[str] = []
    app = cached_app(ResultCache({"forecast": 60}, clock=Clock()), calls)
    found = []
    for who in ("alice", "bob", "alice"):
        async with Session(app, revision_hint="2026-07-28") as s:
            s.conn.principal = Principal(subject=who)
            reply = await s.request(
                "tools/call", {"name": "forecast", "arguments": {"city": "Oslo"}, "_meta": META}
            )
            found.append(reply["result"]["structuredContent"]["n"])
    assert found == [1, 2, 1]


async def test_the_least_recently_used_entry_goes_first() -> None:
    calls: list[str] = []
    cache = ResultCache({"forecast": 60}, clock=Clock(), max_entries=2)
    async with connect(cached_app(cache, calls)) as client:
        for city in ("A", "B", "A", "C", "A", "B"):
            await client.call_tool("forecast", {"city": city})
    assert calls == ["A", "B", "C", "B"]


async def test_a_result_linking_an_offloaded_payload_is_not_cached() -> None:
    # The blob store may drop the payload before the entry would expire: a cached link to it
    # would point at nothing, so such results are served fresh every time.
    calls: list[str] = []
    cache = ResultCache({"report": 60, "pointer": 60}, clock=Clock())
    app = Server("offloading", middleware=[cache], payload_limits=PayloadLimits(text_block=1000))

    @app.tool
    def report() -> str:
        calls.append("report")
        return f"call {len(calls)}: " + "word " * 400

    @app.tool
    def pointer() -> ResourceLink:
        calls.append("pointer")
        return ResourceLink(uri=f"notes://{len(calls)}", name="note")

    async with connect(app) as client:
        first = await client.request("tools/call", {"name": "report"})
        second = await client.request("tools/call", {"name": "report"})
        linked = [await client.request("tools/call", {"name": "pointer"}) for _ in range(2)]
    links = [
        [b["uri"] for b in r["content"] if b["type"] == "resource_link"] for r in (first, second)
    ]
    assert all(len(uris) == 1 and uris[0].startswith("plainmcp://blob/") for uris in links)
    assert links[0] != links[1]
    assert first["content"][0]["text"].startswith("call 1: ")
    assert second["content"][0]["text"].startswith("call 2: ")
    # A link to anything else is cached as any result.
    assert [r["content"][0]["uri"] for r in linked] == ["notes://3", "notes://3"]
    assert calls == ["report", "report", "pointer"]
    assert len(cache) == 1


def test_a_ttl_must_be_positive() -> None:
    with pytest.raises(ValueError, match="cache ttl of tool 'x' must be positive, not 0"):
        ResultCache({"x": 0})
