"""The OpenTelemetry SDK wired to in-memory readers, for the telemetry tests.

The global tracer provider can be set once per process (the official SDK client traces through
it), so it is set here once and every test clears the exporter it reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class CountingProcessor(SpanProcessor):
    """Counts spans started anywhere in the process (work the SDK did)."""

    def __init__(self) -> None:
        self.started = 0

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        self.started += 1


@dataclass
class Sdk:
    provider: TracerProvider
    exporter: InMemorySpanExporter
    counter: CountingProcessor
    reader: InMemoryMetricReader = field(default_factory=InMemoryMetricReader)

    def __post_init__(self) -> None:
        self.meters = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def points(self, name: str) -> list[Any]:
        """The data points of one metric (histogram points: count, sum, attributes)."""
        data = self.reader.get_metrics_data()
        found = []
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        assert metric.unit == "s"
                        found.extend(metric.data.data_points)
        return found


_SDK: Sdk | None = None


def global_sdk() -> Iterator[Sdk]:
    """The process's SDK (made and installed as the global tracer provider on first use),
    cleared for the test; a fresh metric reader each time."""
    global _SDK
    if _SDK is None:
        provider = TracerProvider()
        exporter = InMemorySpanExporter()
        counter = CountingProcessor()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        provider.add_span_processor(counter)
        trace.set_tracer_provider(provider)
        _SDK = Sdk(provider, exporter, counter)
    _SDK.exporter.clear()
    _SDK.counter.started = 0
    _SDK.reader = InMemoryMetricReader()
    _SDK.meters = MeterProvider(metric_readers=[_SDK.reader])
    yield _SDK
    _SDK.exporter.clear()
