"""OpenTelemetry after the MCP semantic conventions: spans, their parent, the metrics, and
no cost when telemetry is off (src/plainmcp/instrumentation.py, telemetry.py)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import orjson
import pytest
from opentelemetry import baggage, trace
from opentelemetry.trace import SpanKind, StatusCode

from plainmcp import Server, Telemetry
from plainmcp.client import Client, McpError
from tests.otel_sdk import Sdk, global_sdk
from tests.transports.test_stdio import Pipes

pytestmark = pytest.mark.anyio

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{CLIENT_SPAN}-01"

HANDSHAKE = "2025-11-25"  # the spans and attributes below are a session's


class Steps:
    """A clock that advances a quarter second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


@pytest.fixture
def sdk() -> Iterator[Sdk]:
    yield from global_sdk()


def traced_app(sdk: Sdk, **options: object) -> Server:
    telemetry = Telemetry(meter_provider=sdk.meters, clock=Steps(), **options)  # type: ignore[arg-type]
    app = Server("traced", telemetry=telemetry)

    @app.tool
    def add(a: int, b: int) -> int:
        """Add; the tool's own span is a child of the request's."""
        with trace.get_tracer("tool").start_as_current_span("inside add"):
            return a + b

    @app.tool
    def fail() -> str:
        raise ValueError("no luck")

    @app.tool
    def who() -> str:
        return str(baggage.get_baggage("user"))

    @app.prompt
    def greet(name: str) -> str:
        return f"Hello {name}"

    @app.resource("note://today")
    def today() -> str:
        return "sunny"

    return app


async def test_a_traced_tool_call_is_one_server_span_whose_parent_is_the_callers(
    sdk: Sdk,
) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        result = await client.request(
            "tools/call",
            {
                "name": "add",
                "arguments": {"a": 1, "b": 2},
                "_meta": {"traceparent": TRACEPARENT, "tracestate": "rojo=00f067aa0ba902b7"},
            },
        )
    assert result["structuredContent"] == {"result": 3}
    spans = {span.name: span for span in sdk.spans()}
    assert sorted(spans) == ["initialize", "inside add", "tools/call add"]
    call = spans["tools/call add"]
    assert call.kind is SpanKind.SERVER
    assert dict(call.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "2",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-11-25",
    }
    assert call.status.status_code is StatusCode.UNSET
    assert call.parent is not None and call.parent.is_remote
    assert (f"{call.parent.trace_id:032x}", f"{call.parent.span_id:016x}") == (
        TRACE_ID,
        CLIENT_SPAN,
    )
    assert call.context is not None and f"{call.context.trace_id:032x}" == TRACE_ID
    assert call.context.trace_state.to_header() == "rojo=00f067aa0ba902b7"
    assert call.links == ()
    # The sync tool ran in a worker thread, still inside the request's span.
    inner = spans["inside add"]
    assert inner.parent is not None and inner.parent.span_id == call.context.span_id
    # No traceparent: a root span of its own trace.
    initialize = spans["initialize"]
    assert initialize.parent is None
    assert dict(initialize.attributes or {}) == {
        "mcp.method.name": "initialize",
        "jsonrpc.request.id": "1",
        "mcp.protocol.version": "2025-11-25",
    }


async def test_a_protocol_error_records_its_json_rpc_code(sdk: Sdk) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        with pytest.raises(McpError):
            await client.request("tools/call", {"name": "nope", "arguments": {}})
    span = next(s for s in sdk.spans() if s.name == "tools/call nope")
    assert dict(span.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "2",
        "gen_ai.tool.name": "nope",
        "gen_ai.operation.name": "execute_tool",
        "error.type": "-32602",
        "rpc.response.status_code": "-32602",
        "mcp.protocol.version": "2025-11-25",
    }
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == "Unknown tool: nope"
    # The duration metric leaves the made-up name out (one series per name a client invents).
    (point,) = [
        p
        for p in sdk.points("mcp.server.operation.duration")
        if p.attributes.get("error.type") == "-32602"
    ]
    assert dict(point.attributes) == {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "error.type": "-32602",
        "rpc.response.status_code": "-32602",
        "mcp.protocol.version": "2025-11-25",
    }


async def test_an_is_error_result_is_a_tool_error(sdk: Sdk) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        result = await client.request("tools/call", {"name": "fail", "arguments": {}})
    assert result["isError"] is True
    span = next(s for s in sdk.spans() if s.name == "tools/call fail")
    assert (span.attributes or {})["error.type"] == "tool_error"
    assert "rpc.response.status_code" not in (span.attributes or {})
    assert span.status.status_code is StatusCode.ERROR


async def test_prompts_and_resources_name_their_target_as_the_conventions_say(sdk: Sdk) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        await client.request("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})
        await client.request("resources/read", {"uri": "note://today"})
        await client.request("tools/list", {})
    spans = {span.name: dict(span.attributes or {}) for span in sdk.spans()}
    assert spans["prompts/get greet"]["gen_ai.prompt.name"] == "greet"
    # A URI is not in the span name unless asked for (high cardinality), only an attribute.
    assert spans["resources/read"]["mcp.resource.uri"] == "note://today"
    assert "gen_ai.operation.name" not in spans["prompts/get greet"]
    assert spans["tools/list"]["mcp.method.name"] == "tools/list"

    named = traced_app(sdk, resource_uri_in_span_name=True)
    async with Client.memory(named, protocol=HANDSHAKE) as client:
        await client.request("resources/read", {"uri": "note://today"})
    assert "resources/read note://today" in [span.name for span in sdk.spans()]


async def test_subscribe_and_unsubscribe_spans_name_their_resource(sdk: Sdk) -> None:
    app = traced_app(sdk, resource_uri_in_span_name=True)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        await client.request("resources/subscribe", {"uri": "note://today"})
        await client.request("resources/unsubscribe", {"uri": "note://today"})
    spans = {span.name: dict(span.attributes or {}) for span in sdk.spans()}
    for method in ("resources/subscribe", "resources/unsubscribe"):
        attributes = spans[f"{method} note://today"]
        assert attributes["mcp.resource.uri"] == "note://today"
        assert "gen_ai.operation.name" not in attributes


async def test_baggage_from_meta_reaches_the_tool(sdk: Sdk) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        result = await client.request(
            "tools/call",
            {"name": "who", "_meta": {"traceparent": TRACEPARENT, "baggage": "user=alice"}},
        )
    assert result["content"] == [{"type": "text", "text": "alice"}]


async def test_bad_trace_context_is_ignored_not_an_error(sdk: Sdk) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        for bad in (7, "00-zz-zz-01", ["x"], f"00-{'0' * 32}-{CLIENT_SPAN}-01"):
            result = await client.request(
                "tools/call",
                {"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": {"traceparent": bad}},
            )
            assert result["structuredContent"] == {"result": 2}
    calls = [s for s in sdk.spans() if s.name == "tools/call add"]
    assert [span.parent for span in calls] == [None] * 4


async def test_arguments_and_results_are_recorded_only_when_asked_for(sdk: Sdk) -> None:
    call = {"name": "add", "arguments": {"a": 2, "b": 3}}
    async with Client.memory(traced_app(sdk), protocol=HANDSHAKE) as client:
        await client.request("tools/call", call)
    async with Client.memory(
        traced_app(sdk, record_arguments=True, record_results=True), protocol=HANDSHAKE
    ) as client:
        await client.request("tools/call", call)
    plain, recorded = (dict(s.attributes or {}) for s in sdk.spans() if s.name == "tools/call add")
    assert "gen_ai.tool.call.arguments" not in plain
    assert "gen_ai.tool.call.result" not in plain
    assert recorded["gen_ai.tool.call.arguments"] == '{"a":2,"b":3}'
    assert recorded["gen_ai.tool.call.result"] == '{"result":5}'


async def test_operation_and_session_durations(sdk: Sdk) -> None:
    app = traced_app(sdk)
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        await client.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        await client.request("tools/call", {"name": "fail", "arguments": {}})
    operations = {
        tuple(sorted(point.attributes.items())): (point.count, point.sum)
        for point in sdk.points("mcp.server.operation.duration")
    }
    # The clock advances 0.25 s per reading: each request reads it twice.
    assert operations == {
        (("mcp.method.name", "initialize"), ("mcp.protocol.version", "2025-11-25")): (1, 0.25),
        (
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "add"),
            ("mcp.method.name", "tools/call"),
            ("mcp.protocol.version", "2025-11-25"),
        ): (1, 0.25),
        (
            ("error.type", "tool_error"),
            ("gen_ai.operation.name", "execute_tool"),
            ("gen_ai.tool.name", "fail"),
            ("mcp.method.name", "tools/call"),
            ("mcp.protocol.version", "2025-11-25"),
        ): (1, 0.25),
    }
    [session] = sdk.points("mcp.server.session.duration")
    assert dict(session.attributes) == {"mcp.protocol.version": "2025-11-25"}
    # Opened at 0.25; three requests read the clock six times; closed at 2.0.
    assert (session.count, session.sum) == (1, 1.75)
    assert list(session.explicit_bounds) == [
        0.01,
        0.02,
        0.05,
        0.1,
        0.2,
        0.5,
        1,
        2,
        5,
        10,
        30,
        60,
        120,
        300,
    ]


async def test_no_span_and_no_sdk_work_when_telemetry_is_off(sdk: Sdk) -> None:
    app = Server("plain")

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    assert app._instruments is None
    async with Client.memory(app, protocol=HANDSHAKE) as client:
        await client.request(
            "tools/call",
            {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": {"traceparent": TRACEPARENT}},
        )
    assert sdk.spans() == []
    assert sdk.counter.started == 0


def test_import_plainmcp_does_not_import_opentelemetry() -> None:
    code = (
        "import sys, plainmcp, plainmcp.server, plainmcp.transports.stdio;"
        "import plainmcp.transports.http;"
        "plainmcp.Server('x');"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def test_telemetry_without_the_api_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['opentelemetry'] = None\n"
        "import plainmcp\n"
        "try:\n"
        "    plainmcp.Server('x', telemetry=plainmcp.Telemetry())\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == (
        "Server(telemetry=...) needs the OpenTelemetry API: pip install 'plainmcp[otel]'\n"
    )


def test_over_stdio_the_transport_is_a_pipe(sdk: Sdk) -> None:
    app = traced_app(sdk)
    pipes = Pipes(app)
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
    }
    call = {
        "jsonrpc": "2.0",
        "id": "c-7",
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
    }
    pipes.write(orjson.dumps(init) + b"\n" + orjson.dumps(call) + b"\n")
    assert [m["id"] for m in pipes.finish()] == [1, "c-7"]
    span = next(s for s in sdk.spans() if s.name == "tools/call add")
    assert dict(span.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "c-7",
        "network.transport": "pipe",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": "2025-06-18",
    }
    [session] = sdk.points("mcp.server.session.duration")
    assert dict(session.attributes) == {
        "mcp.protocol.version": "2025-06-18",
        "network.transport": "pipe",
    }


def test_telemetry_with_no_provider_set_up_costs_no_span_until_one_is() -> None:
    """Server(telemetry=Telemetry()) before the application sets up any SDK: the API's own
    providers record nothing, so no request is served inside a span; once a provider is set,
    requests are, from the next look at the providers (at most a second later)."""
    code = """
import anyio
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from plainmcp import Client, Server, Telemetry
from plainmcp.instrumentation import Instrumentation

served = []
original = Instrumentation.serve
def serve(self, *args):
    served.append(args[2].method)
    return original(self, *args)
Instrumentation.serve = serve

now = [0.0]
Instrumentation.look_clock = staticmethod(lambda: now[0])

app = Server("otel", telemetry=Telemetry())

@app.tool
def add(a: int, b: int) -> int:
    return a + b

async def main() -> None:
    async with Client.memory(app, protocol="2025-11-25") as client:
        print((await client.call_tool("add", {"a": 1, "b": 2})).text, served)
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        print((await client.call_tool("add", {"a": 2, "b": 2})).text, served)
        now[0] = 1.5  # the next look at the providers
        print((await client.call_tool("add", {"a": 3, "b": 2})).text, served)
        print([span.name for span in exporter.get_finished_spans()])

anyio.run(main)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "3 []\n4 []\n5 ['tools/call']\n['tools/call add']\n"
