"""OpenTelemetry options (`Server(telemetry=Telemetry())`) and what transports tell it.

This module stays light: it never imports opentelemetry. The instrumentation that does
(instrumentation.py) is imported when a Server is made with telemetry, so a server without it
pays one None check per request and `import plainmcp` loads no part of OpenTelemetry.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plainmcp.instrumentation import Instrumentation

TransportAttributes = Mapping[str, str | int]

TRANSPORT: ContextVar[TransportAttributes | None] = ContextVar("plainmcp_transport", default=None)
"""What the transport serving the current request knows about it, as semantic-convention
attributes (network.*, client.*, mcp.session.id). Set by transports only when telemetry is on;
requests' tasks inherit it."""


@dataclass(frozen=True, slots=True)
class Telemetry:
    """Traces and metrics after the OpenTelemetry semantic conventions for MCP
    (docs/operations.md, "Telemetry"). Needs `pip install 'plainmcp[otel]'`.

    Providers default to the global ones the application set up (`trace.set_tracer_provider`,
    `metrics.set_meter_provider`); without any, the OpenTelemetry API records nothing.
    """

    record_arguments: bool = False
    """Record a tool call's arguments as `gen_ai.tool.call.arguments` (JSON). Off by default:
    arguments may carry personal or secret data."""

    record_results: bool = False
    """Record a successful tool call's result as `gen_ai.tool.call.result` (JSON of its
    structured content, else of its content blocks). Off by default, for the same reason."""

    resource_uri_in_span_name: bool = False
    """Name resources/read and (un)subscribe spans `{method} {uri}`. Off by default, as the
    conventions advise (URIs make span names high-cardinality); the URI is always recorded
    as `mcp.resource.uri`."""

    tracer_provider: Any = None
    """An opentelemetry TracerProvider; None: the global one."""

    meter_provider: Any = None
    """An opentelemetry MeterProvider; None: the global one."""

    clock: Callable[[], float] = time.perf_counter
    """Seconds, for the duration histograms (tests pass their own)."""


def instrument(options: Telemetry) -> Instrumentation:
    """The instrumentation a Server with `options` serves through; imports opentelemetry."""
    try:
        from plainmcp.instrumentation import Instrumentation
    except ImportError as exc:
        if exc.name is None or not exc.name.startswith("opentelemetry"):
            raise
        raise ImportError(
            "Server(telemetry=...) needs the OpenTelemetry API: pip install 'plainmcp[otel]'",
            name=exc.name,
        ) from exc
    return Instrumentation(options)


def http_attributes(scope: Mapping[str, Any], session_id: str | None) -> dict[str, str | int]:
    """The attributes an ASGI HTTP request gives: TCP, HTTP and its version, the client's
    address and port (as the ASGI server saw them), and the MCP session when there is one."""
    attributes: dict[str, str | int] = {"network.transport": "tcp", "network.protocol.name": "http"}
    version = scope.get("http_version")
    if isinstance(version, str) and version:
        attributes["network.protocol.version"] = version
    client = scope.get("client")
    if isinstance(client, list | tuple) and len(client) == 2:
        host, port = client
        if isinstance(host, str) and host:
            attributes["client.address"] = host
            if isinstance(port, int) and not isinstance(port, bool):
                attributes["client.port"] = port
    if session_id:
        attributes["mcp.session.id"] = session_id
    return attributes


STDIO_ATTRIBUTES: TransportAttributes = {"network.transport": "pipe"}
"""stdio is a pair of pipes; it has no session id and no network peer."""
