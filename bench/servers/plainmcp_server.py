"""Benchmark fixture: plainmcp, through its public API.

stdio: python plainmcp_server.py     (or: python -m plainmcp run plainmcp_server.py)
HTTP:  python -m plainmcp run plainmcp_server.py --http --port PORT
       python plainmcp_server.py --http PORT    (the same through app.run)

The payload guards are off: the 4 MiB image and the 10,000-row structured result go out inline,
as they do from the other servers.
"""

import logging
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixtures import LONG_TEXT, http_port, long, png, rows, watchdog

from plainmcp import Context, Image, PayloadLimits, Server

NO_LIMITS = PayloadLimits(
    text_block=None, text_result=None, structured=None, binary_block=None, binary_result=None
)

# PLAINMCP_BENCH_TELEMETRY=1: telemetry on, with no OpenTelemetry SDK set up (the cost of the
# option alone; needs opentelemetry-api in the bench venv). The variants import what they use
# only when chosen, as a server that does not use a feature never imports it.
TELEMETRY = None
if os.environ.get("PLAINMCP_BENCH_TELEMETRY"):
    from plainmcp import Telemetry

    TELEMETRY = Telemetry()
# PLAINMCP_BENCH_LONG_TEXT=1 (the features scenario): the server's limits are the defaults, as
# read_more sizes its parts to them; every tool but long_text_cut keeps the guards off.
LONG = bool(os.environ.get("PLAINMCP_BENCH_LONG_TEXT"))
app = Server(
    "bench-plainmcp",
    payload_limits=PayloadLimits() if LONG else NO_LIMITS,
    telemetry=TELEMETRY,
)
tool = app.tool(limits=NO_LIMITS) if LONG else app.tool  # the main rows: as before
inline_tool = app.tool(inline=True, limits=NO_LIMITS) if LONG else app.tool(inline=True)


# PLAINMCP_BENCH_MIDDLEWARE=noop or timing: one middleware around every request and call (Timing
# writes its line per request to /dev/null, so the row measures the middleware, not a terminal).
MIDDLEWARE = os.environ.get("PLAINMCP_BENCH_MIDDLEWARE")
if MIDDLEWARE:
    from plainmcp.middleware import CallInfo, Middleware, NextCall, NextRequest, RequestInfo, Timing

    class Noop(Middleware):
        """Passes both hooks through: what one middleware costs by being there."""

        async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
            return await call_next(request)

        async def on_call(self, call: CallInfo, call_next: NextCall) -> Any:
            return await call_next(call)

    if MIDDLEWARE == "noop":
        app.add_middleware(Noop())
    elif MIDDLEWARE == "timing":
        logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))  # noqa: SIM115
        app.add_middleware(Timing())
    else:
        raise SystemExit(f"PLAINMCP_BENCH_MIDDLEWARE takes noop or timing, not {MIDDLEWARE!r}")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def add_async(a: int, b: int) -> int:
    """Add two integers (a coroutine: no worker thread)."""
    return a + b


@inline_tool
def add_inline(a: int, b: int) -> int:
    """Add two integers (inline=True: on the event loop, as the other servers run a def tool)."""
    return a + b


@app.tool(task="required")
async def add_task(a: int, b: int, ctx: Context) -> int:
    """Add two integers as a task, however soon done (the `tasks` scenario, beside `add`)."""
    await ctx.become_task()
    return a + b


@tool
def echo_text(text: str) -> str:
    """Return the text unchanged."""
    return text


@tool
def big_image() -> Image:
    """A 4 MiB PNG."""
    return Image(png())


@tool
def many_rows(n: int) -> list[dict]:
    """n small records as structured output."""
    return rows(n)


if LONG:
    # The continuation's scenario (not registered otherwise, so start-up rows stay as they were):
    # the same 150,000 characters inline (the guards off, as for every tool above) and cut to
    # the default limits, read back through read_more.

    @tool
    def long_text() -> str:
        """150,000 characters, inline."""
        return long(LONG_TEXT)

    @app.tool
    def long_text_cut() -> str:
        """150,000 characters, cut to the default limits; the rest through read_more."""
        return long(LONG_TEXT)


# PLAINMCP_BENCH_MOUNT=1 (the features scenario): every tool above served through a mount, with
# no namespace so their names stay: a hub with the same settings mounts `app` (issue 28).
served = app
if os.environ.get("PLAINMCP_BENCH_MOUNT"):
    served = Server(
        "bench-hub", payload_limits=PayloadLimits() if LONG else NO_LIMITS, telemetry=TELEMETRY
    )
    served.mount(app)

watchdog()

if __name__ == "__main__":
    port = http_port(sys.argv)
    if port is None:
        served.run()
    else:
        served.run(transport="http", port=port)  # type: ignore[arg-type]
