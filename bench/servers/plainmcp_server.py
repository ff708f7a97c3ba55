"""Benchmark fixture: plainmcp, through its public API.

stdio: python plainmcp_server.py     (or: python -m plainmcp run plainmcp_server.py)
HTTP:  python -m plainmcp run plainmcp_server.py --http --port PORT
       python plainmcp_server.py --http PORT    (the same through app.run)

The payload guards are off: the 4 MiB image and the 10,000-row structured result go out inline,
as they do from the other servers.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixtures import http_port, png, rows, watchdog

from plainmcp import Image, PayloadLimits, Server, Telemetry

NO_LIMITS = PayloadLimits(
    text_block=None, text_result=None, structured=None, binary_block=None, binary_result=None
)

# PLAINMCP_BENCH_TELEMETRY=1: telemetry on, with no OpenTelemetry SDK set up (the cost of the
# option alone; needs opentelemetry-api in the bench venv).
TELEMETRY = Telemetry() if os.environ.get("PLAINMCP_BENCH_TELEMETRY") else None
app = Server("bench-plainmcp", payload_limits=NO_LIMITS, telemetry=TELEMETRY)


@app.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool
async def add_async(a: int, b: int) -> int:
    """Add two integers (a coroutine: no worker thread)."""
    return a + b


@app.tool
def echo_text(text: str) -> str:
    """Return the text unchanged."""
    return text


@app.tool
def big_image() -> Image:
    """A 4 MiB PNG."""
    return Image(png())


@app.tool
def many_rows(n: int) -> list[dict]:
    """n small records as structured output."""
    return rows(n)


watchdog()

if __name__ == "__main__":
    port = http_port(sys.argv)
    if port is None:
        app.run()
    else:
        app.run(transport="http", port=port)  # type: ignore[arg-type]
