"""Spans and metrics after the OpenTelemetry semantic conventions for MCP (gen-ai/mcp.md).

One SERVER span per request, named `{mcp.method.name} {target}`, whose parent is the trace
context the client put in `params._meta` (W3C `traceparent`, `tracestate`, `baggage`); the
histograms `mcp.server.operation.duration` and `mcp.server.session.duration`. Imported only
when a Server is made with `telemetry=` (it imports opentelemetry-api); dispatch.py and the
connection's open and close are the only places that call it.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Awaitable, Callable, Container, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import orjson
from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.context import Context
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.propagators.textmap import Getter
from opentelemetry.trace import Link, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from plainmcp.telemetry import TRANSPORT, Telemetry, TransportAttributes
from plainmcp.version import __version__
from plainmcp.wire.meta import PROTOCOL_VERSION
from plainmcp.wire.methods import METHODS

if TYPE_CHECKING:
    from plainmcp.connection import Connection
    from plainmcp.wire.jsonrpc import Request

    Answer = Callable[[Any, Connection, Request], Awaitable[dict[str, Any]]]

BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The bucket boundaries (seconds) the conventions give both duration histograms."""

OPERATION_METRIC_KEYS = (
    "mcp.method.name",
    "error.type",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
    "rpc.response.status_code",
    "mcp.protocol.version",
    "network.transport",
    "network.protocol.name",
    "network.protocol.version",
)
"""The span attributes `mcp.server.operation.duration` carries: the conventions leave out the
high-cardinality ones (request and session ids, client address, resource URI)."""

SESSION_METRIC_KEYS = (
    "network.transport",
    "network.protocol.name",
    "network.protocol.version",
)


_ATTRIBUTES = {
    "tool": "gen_ai.tool.name",
    "prompt": "gen_ai.prompt.name",
    "resource": "mcp.resource.uri",
}
"""The span attribute of what a request names, by the method table's `Target.kind`."""


class Finds(Protocol):
    """What a span reads of the server's Components: does it have the tool or prompt a
    request names (named here: components.py holds these instruments)."""

    def find_tool(self, name: str) -> object | None: ...
    @property
    def prompts(self) -> Container[str]: ...


@dataclass(frozen=True, slots=True)
class _Target:
    param: str
    attribute: str
    named: bool
    """The span name carries it (tools and prompts: low cardinality; URIs only on request)."""
    tool: bool
    """A tool call: `execute_tool`, its arguments and its result."""


_TARGETS = {
    method.name: _Target(
        named.param, _ATTRIBUTES[named.kind], named.kind != "resource", named.kind == "tool"
    )
    for method in METHODS.values()
    if (named := method.named) is not None
}
"""What each method names, read from the method table once."""


def _registered(core: Finds, target: _Target, name: str) -> bool:
    """The tool or prompt a request names is one the server has."""
    if target.tool:
        return core.find_tool(name) is not None
    return name in core.prompts


def _api_only(provider: Any) -> bool:
    """A provider of the OpenTelemetry API package itself (its proxy or no-op): an SDK's, or
    any real one, lives in another module."""
    return type(provider).__module__.startswith(("opentelemetry.trace", "opentelemetry.metrics"))


class _MetaGetter(Getter[Mapping[str, Any]]):
    """Reads `params._meta`: only string values count (anything else is a bad carrier)."""

    def get(self, carrier: Mapping[str, Any], key: str) -> list[str] | None:
        value = carrier.get(key)
        return [value] if isinstance(value, str) else None

    def keys(self, carrier: Mapping[str, Any]) -> list[str]:
        return [key for key in carrier if isinstance(key, str)]


_GETTER = _MetaGetter()
_W3C = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])


class Instrumentation:
    """A Server's tracer and histograms, and the sessions it is timing."""

    look_clock: Callable[[], float] = staticmethod(time.monotonic)
    """Seconds, for when `recording` looks at the providers again (tests replace it)."""

    def __init__(self, options: Telemetry) -> None:
        self.options = options
        self.clock = options.clock
        self.tracer = trace.get_tracer(
            "plainmcp", __version__, tracer_provider=options.tracer_provider
        )
        meter = metrics.get_meter("plainmcp", __version__, meter_provider=options.meter_provider)
        self.operation_duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="MCP request duration as observed on the receiver from the time it was"
            " received until the result is sent.",
            explicit_bucket_boundaries_advisory=BUCKETS,
        )
        self.session_duration = meter.create_histogram(
            "mcp.server.session.duration",
            unit="s",
            description="The duration of the MCP session as observed on the MCP server.",
            explicit_bucket_boundaries_advisory=BUCKETS,
        )
        self._recording = False
        self._next_check = float("-inf")
        self._sessions: weakref.WeakKeyDictionary[
            Connection, tuple[float, TransportAttributes | None]
        ] = weakref.WeakKeyDictionary()

    def recording(self) -> bool:
        """Whether any provider would record. The API's own providers (the default proxies and
        the no-op ones) never do, so with none set up a request costs no span. Looking the
        providers up costs microseconds (the API reads the environment), so until one records
        it is looked at again at most once a second (by `look_clock`); once one does, for good
        (a global provider, once set, stays)."""
        if self._recording:
            return True
        now = self.look_clock()
        if now < self._next_check:
            return False
        self._next_check = now + 1.0
        tracer_provider = self.options.tracer_provider or trace.get_tracer_provider()
        meter_provider = self.options.meter_provider or metrics.get_meter_provider()
        self._recording = not (_api_only(tracer_provider) and _api_only(meter_provider))
        return self._recording

    # --- requests --------------------------------------------------------------------------

    async def serve(
        self, core: Finds, conn: Connection, request: Request, answer: Answer
    ) -> dict[str, Any]:
        """Answer `request` inside its span (current while the handler runs, so spans a
        tool starts are its children), then record the outcome and the duration."""
        started = self.clock()
        method, params = request.method, request.params
        attributes: dict[str, Any] = {"mcp.method.name": method}
        if request.id is not None:
            attributes["jsonrpc.request.id"] = str(request.id)
        transport = TRANSPORT.get()
        if transport is not None:
            attributes.update(transport)
        name = method
        target = _TARGETS.get(method)
        unknown: str | None = None
        if target is not None:
            value = params.get(target.param)
            if isinstance(value, str):
                attributes[target.attribute] = value
                if target.named or self.options.resource_uri_in_span_name:
                    name = f"{method} {value}"
                if target.named and not _registered(core, target, value):
                    unknown = target.attribute  # on the span, never a metric series
        tool_call = target is not None and target.tool
        if tool_call:
            attributes["gen_ai.operation.name"] = "execute_tool"
            arguments = params.get("arguments")
            if self.options.record_arguments and isinstance(arguments, dict):
                attributes["gen_ai.tool.call.arguments"] = _json(arguments)
        meta = params.get("_meta")
        parent = _parent(meta) if isinstance(meta, dict) else None
        links = None
        if parent is not None:
            # The conventions: the client's span is the parent; the transport's (an HTTP
            # server span, say) is linked.
            ambient = trace.get_current_span().get_span_context()
            if ambient.is_valid:
                links = [Link(ambient)]
        span = self.tracer.start_span(
            name, context=parent, kind=SpanKind.SERVER, attributes=attributes, links=links
        )
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        try:
            reply = await answer(core, conn, request)
        except BaseException:
            # Cancelled (by the client or the transport closing): no reply is sent.
            otel_context.detach(token)
            attributes["error.type"] = "cancelled"
            span.set_attribute("error.type", "cancelled")
            span.set_status(Status(StatusCode.ERROR, "cancelled"))
            span.end()
            self._record(attributes, started, unknown)
            raise
        otel_context.detach(token)
        outcome = _outcome(tool_call, reply, self.options.record_results)
        version = _protocol_version(conn, meta)
        if version is not None:
            outcome["mcp.protocol.version"] = version
        span.set_attributes(outcome)
        attributes.update(outcome)
        error = reply.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            span.set_status(Status(StatusCode.ERROR, message if isinstance(message, str) else None))
        elif "error.type" in outcome:
            span.set_status(Status(StatusCode.ERROR))
        span.end()
        self._record(attributes, started, unknown)
        return reply

    def _record(
        self, attributes: Mapping[str, Any], started: float, unknown: str | None = None
    ) -> None:
        """One duration point. `unknown`: the attribute holding a tool or prompt name the
        server does not have, left out: clients choose such names freely, and each would be a
        metric series of its own."""
        self.operation_duration.record(
            self.clock() - started,
            {
                key: attributes[key]
                for key in OPERATION_METRIC_KEYS
                if key in attributes and key != unknown
            },
        )

    # --- sessions --------------------------------------------------------------------------

    def opened(self, conn: Connection) -> None:
        """A connection began: its session's clock starts (with what the transport said)."""
        self._sessions[conn] = (self.clock(), TRANSPORT.get())

    def closed(self, conn: Connection) -> None:
        """A connection ended: a session (one that completed initialize) is recorded; the
        connection of a lone 2026-07-28 request is not a session."""
        entry = self._sessions.pop(conn, None)
        revision = conn.session.revision
        if entry is None or revision is None:
            return
        started, transport = entry
        attributes: dict[str, Any] = {"mcp.protocol.version": revision.version}
        if transport is not None:
            attributes.update({k: transport[k] for k in SESSION_METRIC_KEYS if k in transport})
        self.session_duration.record(self.clock() - started, attributes)


def _parent(meta: Mapping[str, Any]) -> Context | None:
    """The client's trace context from `_meta`, or None (then the ambient context is the
    parent) when it carries no valid `traceparent`. Bad values are ignored, never raised."""
    if "traceparent" not in meta:
        return None
    try:
        extracted = _W3C.extract(meta, getter=_GETTER)
    except Exception:
        return None
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        return None
    return extracted


def _outcome(tool_call: bool, reply: Mapping[str, Any], record_results: bool) -> dict[str, Any]:
    """error.type (the JSON-RPC code, or `tool_error` for an isError result), the code as
    rpc.response.status_code, and the opted-in tool result."""
    error = reply.get("error")
    if isinstance(error, dict):
        code = str(error.get("code"))
        return {"error.type": code, "rpc.response.status_code": code}
    result = reply.get("result")
    if not tool_call or not isinstance(result, dict):
        return {}
    if result.get("isError") is True:
        return {"error.type": "tool_error"}
    if record_results:
        value = result.get("structuredContent", result.get("content"))
        if value is not None:
            return {"gen_ai.tool.call.result": _json(value)}
    return {}


def _protocol_version(conn: Connection, meta: Any) -> str | None:
    """The revision the request was served for: its own `_meta` (2026-07-28), else its
    session's (known once initialize has been answered)."""
    if isinstance(meta, dict):
        version = meta.get(PROTOCOL_VERSION)
        if isinstance(version, str):
            return version
    revision = conn.session.revision
    return revision.version if revision is not None else None


def _json(value: Any) -> str:
    """A JSON string (the conventions allow one where an attribute cannot be structured)."""
    try:
        return orjson.dumps(value, default=repr).decode()
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)
