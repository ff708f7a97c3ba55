"""Revision 2026-07-28 in memory: requests that carry their own `_meta` are served statelessly,
beside a handshake session on the same connection.

Every message the server writes is validated against the official schema of the era of the
request it belongs to (`EraSession`): a response at the era of its request (2026-07-28 when the
request carried `_meta` protocolVersion, else the session's), a progress notification at the era
of the request that holds its token. conftest's `Session` validates everything after a handshake
at the negotiated revision, which a stateless result on the same connection cannot pass.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from pydantic import BaseModel

from plainmcp import Context, Icon, Server, ToolError
from tests.conftest import HANDSHAKE_REVISIONS, Session, negotiated, validate

pytestmark = pytest.mark.anyio

STATELESS = "2026-07-28"
EXAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "mcp-schemas" / STATELESS
EXAMPLES = EXAMPLES / "examples"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
ALL_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def example(name: str) -> Any:
    """One official 2026-07-28 example message, e.g. "CallToolRequest/call-tool-request"."""
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def meta(**extra: Any) -> dict[str, Any]:
    """The `_meta` every 2026-07-28 request carries (plus `extra`, keys as given)."""
    out: dict[str, Any] = {
        PROTOCOL_VERSION: STATELESS,
        CLIENT_CAPABILITIES: {},
        CLIENT_INFO: {"name": "stateless-tests", "version": "0"},
    }
    out.update(extra)
    return out


# --- era-aware validation ------------------------------------------------------------------


class Eras:
    """Which revision each message a server writes is validated against."""

    def __init__(self, hint: str) -> None:
        self.hint = hint
        self.session: str | None = None
        self.methods: dict[Any, str] = {}
        self.of_request: dict[Any, str] = {}
        self.of_token: dict[Any, str] = {}
        self.last: str | None = None

    def sent(self, message: Any) -> None:
        for item in message if isinstance(message, list) else [message]:
            if not (isinstance(item, dict) and "method" in item and "id" in item):
                continue
            params = item.get("params")
            item_meta = params.get("_meta") if isinstance(params, dict) else None
            era = self.session or self.hint
            if isinstance(item_meta, dict) and PROTOCOL_VERSION in item_meta:
                era = STATELESS
            with contextlib.suppress(TypeError):
                self.methods[item["id"]] = item["method"]
                self.of_request[item["id"]] = era
                if isinstance(item_meta, dict) and "progressToken" in item_meta:
                    self.of_token[item_meta["progressToken"]] = era
            self.last = era

    def check(self, message: Any) -> None:
        settled = negotiated(message, self.methods)
        self.session = settled or self.session
        era = self.session or self.hint
        if settled is not None:
            era = settled
        elif isinstance(message, dict):
            params = message.get("params")
            if "method" not in message and message.get("id") in self.of_request:
                era = self.of_request[message["id"]]
            elif isinstance(params, dict) and params.get("progressToken") in self.of_token:
                era = self.of_token[params["progressToken"]]
            elif "method" in message and self.last is not None:
                era = self.last
        validate(message, era, self.methods)


class EraSession(Session):
    """conftest's Session, validating each message at the era of its request (see Eras)."""

    def __init__(self, server: Server, *, revision_hint: str = STATELESS) -> None:
        super().__init__(server, revision_hint=revision_hint)
        self.eras = Eras(revision_hint)

    def _remember(self, message: Any) -> None:
        self.eras.sent(message)
        super()._remember(message)

    async def _written(self, data: bytes) -> None:
        try:
            assert isinstance(data, bytes), f"transports get bytes, not {type(data).__name__}"
            assert b"\n" not in data, "a message must be one line"
            message = orjson.loads(data)
            self.revision = negotiated(message, self._methods) or self.revision
            self.eras.check(message)
        except (AssertionError, orjson.JSONDecodeError, ValueError) as exc:
            self.failures.append(f"{exc}\n  raw: {data[:600]!r}")
            message = {"__invalid__": data.decode(errors="replace")}
        self.messages.append(message)
        self._arrived.set()
        self._arrived = anyio.Event()

    async def initialize(self, version: str = "2025-11-25", **kwargs: Any) -> dict[str, Any]:
        if version in HANDSHAKE_REVISIONS:
            self.eras.hint = version
        return await super().initialize(version, **kwargs)

    async def modern(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        """A 2026-07-28 request (`_meta` added unless params carry one); the whole response."""
        params = dict(params or {})
        params.setdefault("_meta", meta())
        return await self.request(method, params, **kw)

    async def modern_result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        reply = await self.modern(method, params)
        assert "result" in reply, f"{method} failed: {reply}"
        return reply["result"]


# --- the server ----------------------------------------------------------------------------


class Forecast(BaseModel):
    city: str
    high: float


def make_app(**settings: Any) -> Server:
    app = Server(
        "weather",
        version="2.0.0",
        title="Weather",
        instructions="Prefer get_weather for forecasts.",
        **settings,
    )

    @app.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @app.tool
    def letters(word: str) -> list[str]:
        """The letters of a word."""
        return list(word)

    @app.tool
    def forecast(city: str) -> Forecast:
        """Tomorrow's forecast."""
        return Forecast(city=city, high=21.5)

    @app.tool
    def refuse(city: str) -> str:
        """Always refuses."""
        raise ToolError(f"no forecast for {city}")

    @app.tool
    async def count(ctx: Context, steps: int) -> str:
        """Reports progress."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return "counted"

    @app.tool
    async def chatty(ctx: Context) -> str:
        """Logs at four levels."""
        await ctx.debug("d")
        await ctx.info("i")
        await ctx.warning("w")
        await ctx.error({"e": 1}, logger="db")
        return "logged"

    @app.tool
    async def hang() -> str:
        """Never returns."""
        await anyio.sleep_forever()
        return "unreachable"

    @app.resource("file:///project/src/main.rs", mime_type="text/x-rust")
    def main_rs() -> str:
        """The main file."""
        return 'fn main() {\n    println!("Hello world!");\n}'

    @app.resource("weather://{city}/today", mime_type="text/plain")
    def today(city: str) -> str:
        """Today's weather in a city."""
        return f"sunny in {city}"

    @app.prompt
    def brief(city: str) -> str:
        """A weather briefing."""
        return f"Brief me on {city}."

    return app


WEATHER_INFO = {SERVER_INFO: {"name": "weather", "version": "2.0.0", "title": "Weather"}}


# --- server/discover -----------------------------------------------------------------------


async def test_discover_names_every_version_and_the_stateless_capabilities() -> None:
    async with EraSession(make_app()) as s:
        reply = await s.modern("server/discover")
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "complete",
            "supportedVersions": ALL_VERSIONS,
            # changes are announced: a 2026-07-28 client hears them through subscriptions/listen
            "capabilities": {
                "logging": {},
                "tools": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": True},
                "prompts": {"listChanged": True},
                "completions": {},
            },
            "instructions": "Prefer get_weather for forecasts.",
            "ttlMs": 60000,
            "cacheScope": "public",
            "_meta": WEATHER_INFO,
        },
    }


async def test_the_official_discover_request_gets_the_official_result_shape() -> None:
    """DiscoverRequest/server-discover-request.json sent verbatim; the answer has exactly the
    fields of DiscoverResult/server-capabilities-discovery.json. Three differences, all by
    design: every version this dual-era server speaks is listed, `logging` is offered, and list
    changes and resource updates are announced (subscriptions/listen delivers them)."""
    expected = example("DiscoverResult/server-capabilities-discovery")
    app = Server(
        "ExampleServer", version="1.0.0", instructions=expected["instructions"], list_ttl_ms=3600000
    )
    app.add_tool(get_weather)
    app.add_resource(main_rs, "file:///project/src/main.rs", mime_type="text/x-rust")
    async with EraSession(app) as s:
        request = example("DiscoverRequest/server-discover-request")
        await s.send(request)
        reply = await s.response("discover-1")
    expected["supportedVersions"] = ALL_VERSIONS
    expected["capabilities"] = {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
    }
    assert reply == {"jsonrpc": "2.0", "id": "discover-1", "result": expected}


async def test_discover_without_meta_is_invalid_params_in_both_eras() -> None:
    async with EraSession(make_app()) as s:
        for params in (None, {}, {"_meta": {}}, {"_meta": {CLIENT_CAPABILITIES: {}}}):
            reply = await s.request("server/discover", params)
            assert reply["error"] == {
                "code": -32602,
                "message": f"Invalid params: _meta must carry {PROTOCOL_VERSION}",
            }
        assert (await s.modern_result("server/discover"))["resultType"] == "complete"
        await s.initialize()
        reply = await s.request("server/discover")
        assert reply["error"]["code"] == -32602
        assert (await s.modern_result("server/discover"))["supportedVersions"] == ALL_VERSIONS


# --- the official example vectors ----------------------------------------------------------


def get_weather(location: str) -> str:
    """Get current weather information for a location"""
    return f"Current weather in {location}:\nTemperature: 72°F\nConditions: Partly cloudy"


def main_rs() -> str:
    return 'fn main() {\n    println!("Hello world!");\n}'


async def test_the_official_call_tool_request_gets_the_official_response() -> None:
    app = Server("ExampleServer", version="1.0.0", continuation=None)
    app.add_tool(get_weather)
    async with EraSession(app) as s:
        await s.send(example("CallToolRequest/call-tool-request"))
        reply = await s.response("call-tool-example")
    expected = example("CallToolResultResponse/call-tool-result-response")
    expected["result"]["_meta"] = {SERVER_INFO: {"name": "ExampleServer", "version": "1.0.0"}}
    assert reply == expected


async def test_the_official_list_tools_request_pages_with_ttl_and_scope() -> None:
    """ListToolsRequest/list-tools-request.json verbatim; the first page is
    ListToolsResult/tools-list-with-cursor-and-ttl.json but for the (opaque) cursor."""
    expected = example("ListToolsResult/tools-list-with-cursor-and-ttl")
    app = Server(
        "ExampleServer", version="1.0.0", page_size=1, list_ttl_ms=300000, continuation=None
    )
    definition = expected["tools"][0]
    app.add_tool(
        get_weather,
        title=definition["title"],
        input_schema=definition["inputSchema"],
        icons=[
            Icon("https://example.com/weather-icon.png", mime_type="image/png", sizes=("48x48",))
        ],
    )
    app.add_tool(main_rs, name="second")
    async with EraSession(app) as s:
        await s.send(example("ListToolsRequest/list-tools-request"))
        first = (await s.response("list-tools-example"))["result"]
        cursor = first.pop("nextCursor")
        expected.pop("nextCursor")
        expected["_meta"] = {SERVER_INFO: {"name": "ExampleServer", "version": "1.0.0"}}
        assert first == expected
        assert isinstance(cursor, str)
        second = await s.modern_result("tools/list", {"cursor": cursor})
    # every page carries its own freshness hint, and one scope for the whole list
    assert [t["name"] for t in second["tools"]] == ["second"]
    assert (second["ttlMs"], second["cacheScope"]) == (300000, "public")
    assert "nextCursor" not in second


async def test_the_official_read_resource_request_gets_the_official_result() -> None:
    app = Server("ExampleServer", version="1.0.0", read_ttl_ms=60000, cache_scope="private")
    app.add_resource(main_rs, "file:///project/src/main.rs", mime_type="text/x-rust")
    async with EraSession(app) as s:
        await s.send(example("ReadResourceRequest/read-resource-request"))
        reply = await s.response("read-resource-example")
    expected = example("ReadResourceResult/file-resource-contents")
    expected["_meta"] = {SERVER_INFO: {"name": "ExampleServer", "version": "1.0.0"}}
    assert reply == {"jsonrpc": "2.0", "id": "read-resource-example", "result": expected}


async def test_the_official_error_examples() -> None:
    async with EraSession(make_app()) as s:
        reply = await s.modern("tools/call", {"name": "invalid_tool_name", "arguments": {}})
        assert reply["error"] == example("InvalidParamsError/unknown-tool")
        reply = await s.modern("prompts/get", {"name": "invalid_prompt_name"})
        assert reply["error"] == example("InvalidParamsError/unknown-prompt")
        # UnsupportedProtocolVersionError/unsupported-version.json, but for the message (which
        # names the version) and the list (the versions a request's _meta may name)
        reply = await s.modern("tools/list", {"_meta": meta(**{PROTOCOL_VERSION: "1900-01-01"})})
        expected = example("UnsupportedProtocolVersionError/unsupported-version")
        expected["id"] = reply["id"]
        expected["error"]["message"] = "Unsupported protocol version: 1900-01-01"
        expected["error"]["data"]["supported"] = [STATELESS]
        assert reply == expected


async def test_the_official_progress_log_and_cancel_examples() -> None:
    progress = example("ProgressNotification/progress-message")
    logged = example("LoggingMessageNotification/log-database-connection-failed")
    app = Server("ExampleServer", version="1.0.0", continuation=None)

    @app.tool
    async def migrate(ctx: Context) -> str:
        p = progress["params"]
        await ctx.report_progress(p["progress"], p["total"], p["message"])
        entry = logged["params"]
        await ctx.log(entry["level"], entry["data"], logger=entry["logger"])
        return "done"

    @app.tool
    async def hang() -> str:
        await anyio.sleep_forever()
        return "unreachable"

    async with EraSession(app) as s:
        params = {
            "name": "migrate",
            "_meta": meta(progressToken="oivaizmir", **{LOG_LEVEL: "error"}),
        }
        reply = await s.request("tools/call", params)
        assert reply["result"]["content"] == [{"type": "text", "text": "done"}]
        notes = [m for m in s.messages if "method" in m]
        assert notes == [progress, logged]

        await s.start("tools/call", {"name": "hang", "_meta": meta()}, id="123")
        await s.quiet(0.05)
        await s.send(example("CancelledNotification/user-requested-cancellation"))
        assert await s.quiet(0.3) == []
        assert (await s.modern_result("tools/call", {"name": "migrate"}))["isError"] is False


# --- lists, reads and their freshness hints ------------------------------------------------

TOOL_NAMES = ["add", "letters", "forecast", "refuse", "count", "chatty", "hang", "read_more"]


@pytest.mark.parametrize(
    ("settings", "list_ttl", "read_ttl", "scope"),
    [
        ({}, 60000, 0, "public"),
        ({"list_ttl_ms": 5000, "read_ttl_ms": 250, "cache_scope": "private"}, 5000, 250, "private"),
        ({"list_ttl_ms": 0, "read_ttl_ms": 0}, 0, 0, "public"),
    ],
)
async def test_lists_and_reads_carry_result_type_ttl_scope_and_server_info(
    settings: dict[str, Any], list_ttl: int, read_ttl: int, scope: str
) -> None:
    hints = {"resultType": "complete", "cacheScope": scope, "_meta": WEATHER_INFO}
    async with EraSession(make_app(**settings)) as s:
        tools = await s.modern_result("tools/list")
        assert [t["name"] for t in tools.pop("tools")] == TOOL_NAMES
        assert tools == {**hints, "ttlMs": list_ttl}

        assert await s.modern_result("prompts/list") == {
            "prompts": [
                {
                    "name": "brief",
                    "description": "A weather briefing.",
                    "arguments": [{"name": "city", "required": True}],
                }
            ],
            **hints,
            "ttlMs": list_ttl,
        }
        assert await s.modern_result("resources/list") == {
            "resources": [
                {
                    "uri": "file:///project/src/main.rs",
                    "name": "main_rs",
                    "description": "The main file.",
                    "mimeType": "text/x-rust",
                }
            ],
            **hints,
            "ttlMs": list_ttl,
        }
        assert await s.modern_result("resources/templates/list") == {
            "resourceTemplates": [
                {
                    "uriTemplate": "weather://{city}/today",
                    "name": "today",
                    "description": "Today's weather in a city.",
                    "mimeType": "text/plain",
                }
            ],
            **hints,
            "ttlMs": list_ttl,
        }
        assert await s.modern_result("resources/read", {"uri": "weather://paris/today"}) == {
            "contents": [
                {"uri": "weather://paris/today", "mimeType": "text/plain", "text": "sunny in paris"}
            ],
            **hints,
            "ttlMs": read_ttl,
        }
        discovered = await s.modern_result("server/discover")
        assert (discovered["ttlMs"], discovered["cacheScope"]) == (list_ttl, scope)

        # results that are not cacheable carry resultType and serverInfo, but no hints
        for method, params in (
            ("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}),
            ("prompts/get", {"name": "brief", "arguments": {"city": "Rome"}}),
            (
                "completion/complete",
                {
                    "ref": {"type": "ref/prompt", "name": "brief"},
                    "argument": {"name": "city", "value": "R"},
                },
            ),
        ):
            result = await s.modern_result(method, params)
            assert result["resultType"] == "complete", method
            assert result["_meta"] == WEATHER_INFO, method
            assert "ttlMs" not in result and "cacheScope" not in result, method


def test_negative_ttls_are_refused() -> None:
    with pytest.raises(ValueError, match="list_ttl_ms and read_ttl_ms must be >= 0"):
        Server("x", list_ttl_ms=-1)
    with pytest.raises(ValueError, match="list_ttl_ms and read_ttl_ms must be >= 0"):
        Server("x", read_ttl_ms=-1)


async def test_tools_list_order_is_deterministic() -> None:
    """Registration order, the same on every request, every connection and every era, and
    again after a tool is removed and registered anew (it goes to the end)."""
    app = make_app()
    async with EraSession(app) as a, EraSession(app) as b:
        first = await a.modern_result("tools/list")
        assert await a.modern_result("tools/list") == first
        assert await b.modern_result("tools/list") == first
        await b.initialize()
        legacy = await b.result("tools/list")
        assert [t["name"] for t in legacy["tools"]] == TOOL_NAMES
        adder = app.tools["add"]
        app.remove_tool("add")
        app.add_tool(adder.fn)
        moved = [t["name"] for t in (await a.modern_result("tools/list"))["tools"]]
        assert moved == [*TOOL_NAMES[1:-1], "add", "read_more"]  # the continuation stays last


# --- structured output, natural at 2026-07-28, wrapped for 2025-11-25 --------------------

ADD_INPUT = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
LETTERS_INPUT = {
    "type": "object",
    "properties": {"word": {"type": "string"}},
    "required": ["word"],
    "additionalProperties": False,
}
LETTERS_OUTPUT = {"type": "array", "items": {"type": "string"}}
FORECAST_OUTPUT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "high": {"type": "number"}},
    "required": ["city", "high"],
}


def wrapped(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"result": schema}, "required": ["result"]}


async def test_one_connection_serves_both_eras_each_its_own_shape() -> None:
    """A handshake session at 2025-11-25 and stateless requests interleaved on one connection:
    the same tools, natural output schemas and values for 2026-07-28, wrapped for 2025-11-25."""
    app = make_app()
    async with EraSession(app) as s:
        # a stateless request before the handshake does not start a session
        natural = await s.modern_result("tools/list")
        assert s.conn.session.revision is None
        init = await s.initialize("2025-11-25")
        assert init["protocolVersion"] == "2025-11-25"
        assert init["capabilities"]["tools"] == {"listChanged": True}
        legacy = await s.result("tools/list")
        assert await s.modern_result("tools/list") == natural

        defs = {t["name"]: t for t in natural["tools"]}
        assert defs["add"] == {
            "name": "add",
            "description": "Add two integers.",
            "inputSchema": ADD_INPUT,
            "outputSchema": {"type": "integer"},
        }
        assert defs["letters"]["outputSchema"] == LETTERS_OUTPUT
        assert defs["forecast"]["outputSchema"] == FORECAST_OUTPUT
        assert "outputSchema" not in defs["refuse"]
        assert set(legacy) == {"tools"}  # no resultType, ttlMs, cacheScope or _meta
        old = {t["name"]: t for t in legacy["tools"]}
        assert old["add"]["outputSchema"] == wrapped({"type": "integer"})
        assert old["letters"]["outputSchema"] == wrapped(LETTERS_OUTPUT)
        assert old["forecast"]["outputSchema"] == FORECAST_OUTPUT
        assert {k: v for k, v in old["add"].items() if k != "outputSchema"} == {
            k: v for k, v in defs["add"].items() if k != "outputSchema"
        }

        add = {"name": "add", "arguments": {"a": 2, "b": 3}}
        letters = {"name": "letters", "arguments": {"word": "ab"}}
        assert await s.modern_result("tools/call", add) == {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": 5,
            "isError": False,
            "resultType": "complete",
            "_meta": WEATHER_INFO,
        }
        assert await s.result("tools/call", add) == {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": {"result": 5},
            "isError": False,
        }
        assert await s.modern_result("tools/call", letters) == {
            "content": [{"type": "text", "text": '["a","b"]'}],
            "structuredContent": ["a", "b"],
            "isError": False,
            "resultType": "complete",
            "_meta": WEATHER_INFO,
        }
        assert await s.result("tools/call", letters) == {
            "content": [{"type": "text", "text": '["a","b"]'}],
            "structuredContent": {"result": ["a", "b"]},
            "isError": False,
        }
        oslo = {"name": "forecast", "arguments": {"city": "Oslo"}}
        value = {"city": "Oslo", "high": 21.5}
        text = [{"type": "text", "text": '{"city":"Oslo","high":21.5}'}]
        assert await s.modern_result("tools/call", oslo) == {
            "content": text,
            "structuredContent": value,
            "isError": False,
            "resultType": "complete",
            "_meta": WEATHER_INFO,
        }
        assert await s.result("tools/call", oslo) == {
            "content": text,
            "structuredContent": value,
            "isError": False,
        }

        # removed methods are gone only for the request that names 2026-07-28
        assert await s.result("ping") == {}
        assert (await s.modern("ping"))["error"]["code"] == -32601
        # and the session is untouched by them
        assert (
            s.conn.session.revision is not None and s.conn.session.revision.version == "2025-11-25"
        )


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
async def test_older_sessions_beside_stateless_requests(version: str) -> None:
    async with EraSession(make_app()) as s:
        await s.initialize(version)
        add = {"name": "add", "arguments": {"a": 2, "b": 3}}
        old = await s.result("tools/call", add)
        if version == "2025-06-18":
            assert old["structuredContent"] == {"result": 5}
        else:
            assert "structuredContent" not in old
        assert old["content"] == [{"type": "text", "text": "5"}]
        new = await s.modern_result("tools/call", add)
        assert (new["structuredContent"], new["resultType"]) == (5, "complete")
        assert (await s.modern_result("server/discover"))["supportedVersions"] == ALL_VERSIONS


async def test_error_results_at_2026() -> None:
    app = make_app()

    @app.tool
    def halve(n: int) -> int:
        """Half of an even number."""
        if n % 2:
            raise ToolError(f"{n} is odd")
        return n // 2

    @app.tool
    def broken() -> int:
        raise RuntimeError("disk on fire")

    async with EraSession(app) as s:
        done = {"resultType": "complete", "_meta": WEATHER_INFO}
        assert await s.modern_result(
            "tools/call", {"name": "refuse", "arguments": {"city": "Oslo"}}
        ) == {
            "content": [{"type": "text", "text": "no forecast for Oslo"}],
            "isError": True,
            **done,
        }
        # an error result carries no structuredContent, even where the tool has a schema
        assert await s.modern_result("tools/call", {"name": "halve", "arguments": {"n": 3}}) == {
            "content": [{"type": "text", "text": "3 is odd"}],
            "isError": True,
            **done,
        }
        assert await s.modern_result("tools/call", {"name": "halve", "arguments": {"n": 4}}) == {
            "content": [{"type": "text", "text": "2"}],
            "structuredContent": 2,
            "isError": False,
            **done,
        }
        failed = await s.modern_result("tools/call", {"name": "broken"})
        assert failed["isError"] is True and "structuredContent" not in failed
        assert failed["resultType"] == "complete"
        # argument validation failures are error results too, not JSON-RPC errors
        bad = await s.modern_result("tools/call", {"name": "add", "arguments": {"a": "x"}})
        assert bad["isError"] is True and bad["resultType"] == "complete"
        assert bad["_meta"] == WEATHER_INFO


# --- errors --------------------------------------------------------------------------------

NOT_A_STRING = f"Invalid params: {PROTOCOL_VERSION} must be a string"
NO_CAPABILITIES = f"Invalid params: _meta must carry {CLIENT_CAPABILITIES} (an object)"
BAD_LEVEL = (
    f"Invalid params: {LOG_LEVEL} must be one of"
    " debug, info, notice, warning, error, critical, alert, emergency"
)


def without(key: str) -> dict[str, Any]:
    out = meta()
    del out[key]
    return out


@pytest.mark.parametrize(
    ("params", "error"),
    [
        pytest.param(
            {"_meta": {CLIENT_CAPABILITIES: {}}},
            {
                "code": -32602,
                "message": "Server not initialized: send initialize before tools/list",
            },
            id="no-protocolVersion",
        ),
        pytest.param(
            {"_meta": without(CLIENT_CAPABILITIES)},
            {"code": -32602, "message": NO_CAPABILITIES},
            id="no-clientCapabilities",
        ),
        pytest.param(
            {"_meta": meta(**{CLIENT_CAPABILITIES: []})},
            {"code": -32602, "message": NO_CAPABILITIES},
            id="clientCapabilities-array",
        ),
        pytest.param(
            {"_meta": meta(**{CLIENT_CAPABILITIES: None})},
            {"code": -32602, "message": NO_CAPABILITIES},
            id="clientCapabilities-null",
        ),
        pytest.param(
            {"_meta": meta(**{PROTOCOL_VERSION: 20260728})},
            {"code": -32602, "message": NOT_A_STRING},
            id="protocolVersion-number",
        ),
        pytest.param(
            {"_meta": meta(**{PROTOCOL_VERSION: None})},
            {"code": -32602, "message": NOT_A_STRING},
            id="protocolVersion-null",
        ),
        pytest.param(
            {"_meta": meta(**{PROTOCOL_VERSION: "2027-01-01"})},
            {
                "code": -32022,
                "message": "Unsupported protocol version: 2027-01-01",
                "data": {"supported": [STATELESS], "requested": "2027-01-01"},
            },
            id="unsupported",
        ),
        pytest.param(
            {"_meta": meta(**{PROTOCOL_VERSION: "2025-11-25"})},
            {
                "code": -32022,
                "message": "Unsupported protocol version: 2025-11-25",
                "data": {"supported": [STATELESS], "requested": "2025-11-25"},
            },
            id="handshake-version-in-meta",
        ),
        pytest.param(
            {"_meta": meta(**{LOG_LEVEL: "verbose"})},
            {"code": -32602, "message": BAD_LEVEL},
            id="bad-logLevel",
        ),
        pytest.param(
            {"_meta": meta(**{LOG_LEVEL: 3})},
            {"code": -32602, "message": BAD_LEVEL},
            id="logLevel-number",
        ),
        pytest.param(
            {"_meta": meta(progressToken=1.5)},
            {
                "code": -32602,
                "message": "Invalid params: _meta.progressToken must be a string or an integer",
            },
            id="bad-progressToken",
        ),
        pytest.param(
            {"_meta": "2026-07-28"},
            {"code": -32602, "message": "Invalid params: _meta must be an object"},
            id="meta-not-an-object",
        ),
    ],
)
async def test_bad_meta_gets_the_spec_error_and_the_next_request_works(
    params: dict[str, Any], error: dict[str, Any]
) -> None:
    async with EraSession(make_app()) as s:
        reply = await s.request("tools/list", params, id="bad")
        assert reply == {"jsonrpc": "2.0", "id": "bad", "error": error}
        assert (await s.modern_result("tools/list"))["resultType"] == "complete"
        assert s.conn.session.revision is None


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("initialize", {"protocolVersion": STATELESS, "capabilities": {}, "clientInfo": {}}),
        ("ping", {}),
        ("logging/setLevel", {"level": "debug"}),
        ("resources/subscribe", {"uri": "file:///project/src/main.rs"}),
        ("resources/unsubscribe", {"uri": "file:///project/src/main.rs"}),
    ],
)
async def test_methods_removed_in_2026_are_not_found(method: str, params: dict[str, Any]) -> None:
    async with EraSession(make_app()) as s:
        reply = await s.modern(method, params)
        assert reply["error"] == {
            "code": -32601,
            "message": f"Method not found: {method} is not part of protocol revision 2026-07-28",
        }
        assert (
            await s.modern_result("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        )["structuredContent"] == 3
        # the refused initialize started no session: a real one still can
        assert (await s.initialize("2025-11-25"))["protocolVersion"] == "2025-11-25"
        assert await s.result("ping") == {}


async def test_unknown_methods_tools_and_resources() -> None:
    async with EraSession(make_app()) as s:
        reply = await s.modern("tools/frobnicate")
        assert reply["error"] == {"code": -32601, "message": "Method not found: tools/frobnicate"}
        reply = await s.modern("tools/call", {"name": "nope", "arguments": {}})
        assert reply["error"] == {"code": -32602, "message": "Unknown tool: nope"}
        reply = await s.modern("tools/call", {"arguments": {}})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid params: name must be a string",
        }
        reply = await s.modern("resources/read", {"uri": "weather://nowhere"})
        assert reply["error"] == {
            "code": -32602,
            "message": "Resource not found: weather://nowhere",
            "data": {"uri": "weather://nowhere"},
        }
        assert (await s.modern_result("resources/read", {"uri": "weather://rome/today"}))[
            "contents"
        ][0]["text"] == "sunny in rome"
        # the same read in a handshake session keeps its own code
        await s.initialize("2025-11-25")
        reply = await s.request("resources/read", {"uri": "weather://nowhere"})
        assert reply["error"] == {
            "code": -32002,
            "message": "Resource not found: weather://nowhere",
            "data": {"uri": "weather://nowhere"},
        }


def one_tool_server(name: str, **options: Any) -> Server:
    """A server with no payload guards and one tool, `one`, returning 1."""
    app = Server(name, payload_limits=None, **options)

    @app.tool
    def one() -> int:
        return 1

    return app


async def test_a_capability_the_server_lacks_is_method_not_found() -> None:
    async with EraSession(one_tool_server("bare")) as s:
        discovered = await s.modern_result("server/discover")
        assert "prompts" not in discovered["capabilities"]
        reply = await s.modern("prompts/list")
        assert reply["error"] == {"code": -32601, "message": "Method not found: prompts/list"}
        assert (await s.modern_result("tools/call", {"name": "one"}))["structuredContent"] == 1


async def test_what_is_offered_follows_registrations_made_while_serving() -> None:
    """The capability names a stateless request is served with are cached by what decides
    them: a prompt added later makes prompts/list and completion/complete available."""
    app = one_tool_server("growing")
    async with EraSession(app) as s:
        reply = await s.modern("prompts/list")
        assert reply["error"] == {"code": -32601, "message": "Method not found: prompts/list"}

        @app.prompt
        def greet(name: str) -> str:
            return f"Hello {name}"

        listed = await s.modern_result("prompts/list")
        assert [p["name"] for p in listed["prompts"]] == ["greet"]
        ref = {"type": "ref/prompt", "name": "greet"}
        done = await s.modern_result(
            "completion/complete", {"ref": ref, "argument": {"name": "name", "value": ""}}
        )
        assert done["completion"]["values"] == []
        app.prompts.remove("greet")
        reply = await s.modern("prompts/list")
        assert reply["error"] == {"code": -32601, "message": "Method not found: prompts/list"}


async def test_server_info_in_results_follows_changed_attributes() -> None:
    app = one_tool_server("renamed", version="1.0.0")
    async with EraSession(app) as s:
        first = await s.modern_result("tools/call", {"name": "one"})
        assert first["_meta"][SERVER_INFO] == {"name": "renamed", "version": "1.0.0"}
        app.version = "1.1.0"
        app.title = "Renamed"
        second = await s.modern_result("tools/call", {"name": "one"})
        assert second["_meta"][SERVER_INFO] == {
            "name": "renamed",
            "version": "1.1.0",
            "title": "Renamed",
        }


# --- progress, logging and cancellation at 2026-07-28 --------------------------------------


def calls(s: Session, method: str, since: int) -> list[dict[str, Any]]:
    return [m for m in s.messages[since:] if isinstance(m, dict) and m.get("method") == method]


async def test_progress_goes_out_only_for_a_request_with_a_token() -> None:
    async with EraSession(make_app()) as s:
        count = {"name": "count", "arguments": {"steps": 2}}
        start = len(s.messages)
        await s.modern_result("tools/call", {**count, "_meta": meta(progressToken="p-1")})
        assert calls(s, "notifications/progress", start) == [
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "p-1", "progress": 1, "total": 2, "message": "step 1"},
            },
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "p-1", "progress": 2, "total": 2, "message": "step 2"},
            },
        ]
        start = len(s.messages)
        await s.modern_result("tools/call", {**count, "_meta": meta(progressToken=7)})
        tokens = [n["params"]["progressToken"] for n in calls(s, "notifications/progress", start)]
        assert tokens == [7, 7]
        start = len(s.messages)
        assert (await s.modern_result("tools/call", count))["content"][0]["text"] == "counted"
        assert calls(s, "notifications/progress", start) == []


def log_entries(s: Session, since: int) -> list[tuple[str, Any]]:
    return [
        (n["params"]["level"], n["params"]["data"])
        for n in calls(s, "notifications/message", since)
    ]


ALL_FOUR = [("debug", "d"), ("info", "i"), ("warning", "w"), ("error", {"e": 1})]


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (None, []),
        ("debug", ALL_FOUR),
        ("info", ALL_FOUR[1:]),
        ("warning", ALL_FOUR[2:]),
        ("error", ALL_FOUR[3:]),
        ("emergency", []),
    ],
)
async def test_logging_only_when_the_request_names_a_level(
    level: str | None, expected: list[tuple[str, Any]]
) -> None:
    async with EraSession(make_app()) as s:
        extra = {} if level is None else {LOG_LEVEL: level}
        result = await s.modern_result("tools/call", {"name": "chatty", "_meta": meta(**extra)})
        assert result["content"] == [{"type": "text", "text": "logged"}]
        assert log_entries(s, 0) == expected
        if expected and expected[-1][0] == "error":
            assert calls(s, "notifications/message", 0)[-1]["params"] == {
                "level": "error",
                "logger": "db",
                "data": {"e": 1},
            }


async def test_a_session_log_level_and_a_request_log_level_do_not_mix() -> None:
    async with EraSession(make_app()) as s:
        await s.initialize("2025-11-25")
        await s.modern_result("tools/call", {"name": "chatty"})
        assert log_entries(s, 0) == []  # the session asked for nothing; nor did the request
        start = len(s.messages)
        await s.call("chatty")
        assert log_entries(s, start) == ALL_FOUR  # a handshake session before setLevel: all
        assert await s.result("logging/setLevel", {"level": "error"}) == {}
        start = len(s.messages)
        await s.modern_result(
            "tools/call", {"name": "chatty", "_meta": meta(**{LOG_LEVEL: "info"})}
        )
        assert log_entries(s, start) == ALL_FOUR[1:]
        start = len(s.messages)
        await s.call("chatty")
        assert log_entries(s, start) == ALL_FOUR[3:]


async def test_cancelling_a_running_stateless_call_sends_no_response() -> None:
    async with EraSession(make_app()) as s:
        await s.start("tools/call", {"name": "hang", "_meta": meta()}, id="h-1")
        await s.start("tools/call", {"name": "hang", "_meta": meta()}, id=41)
        await s.quiet(0.05)
        assert s.conn.busy
        await s.notify(
            "notifications/cancelled", {"requestId": "h-1", "reason": "no longer needed"}
        )
        await s.notify("notifications/cancelled", {"requestId": 41})
        assert await s.quiet(0.3) == []
        assert not s.conn.busy
        # the ids are free again, and the connection serves on
        reply = await s.modern(
            "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}, id="h-1"
        )
        assert reply["result"]["structuredContent"] == 2
        # a cancel for an unknown or finished id is ignored
        await s.notify("notifications/cancelled", {"requestId": "h-1"})
        assert await s.quiet(0.1) == []
