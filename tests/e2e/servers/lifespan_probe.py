"""A server with a lifespan and middleware, for the end-to-end lifespan and middleware tests.

LIFESPAN_LOG names the file its lifespan writes "enter" and "exit" to; LIFESPAN_FAIL=1 makes
its start-up raise. Every request is logged (Timing, on stderr); tools/call is limited to 3 per
client (a bucket that does not refill during a test).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass

from plainmcp import Context, Server
from plainmcp.middleware import RateLimit, Timing


@dataclass
class Pool:
    greeting: str


def note(event: str) -> None:
    with open(os.environ["LIFESPAN_LOG"], "a") as log:
        log.write(event + "\n")


@contextlib.asynccontextmanager
async def lifespan(app: Server) -> AsyncIterator[Pool]:
    note("enter")
    if os.environ.get("LIFESPAN_FAIL"):
        raise ConnectionError("database unreachable")
    try:
        yield Pool(f"hello from {app.name}")
    finally:
        note("exit")


app = Server(
    "lifespan-probe",
    lifespan=lifespan,
    middleware=[Timing(), RateLimit(rate=0.0001, burst=3, methods=["tools/call"])],
)


@app.tool
def greet(ctx: Context) -> str:
    return ctx.lifespan(Pool).greeting


@app.tool
def boom() -> str:
    raise ValueError("the tool broke")


if __name__ == "__main__":
    app.run(*sys.argv[1:2])  # type: ignore[arg-type]
