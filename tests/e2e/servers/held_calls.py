"""Calls that wait for a release the test controls: SIGUSR1 to this process. For the graceful
shutdown and stream resumption tests (tests/e2e/test_http_streams.py)."""

from __future__ import annotations

import asyncio
import signal

from plainmcp import Context, Server

app = Server("held-calls", version="1.0.0")
_release: list[asyncio.Event] = []


def _released() -> asyncio.Event:
    """One event per process, set by SIGUSR1 (made in the serving loop, on the first call)."""
    if not _release:
        _release.append(asyncio.Event())
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, _release[0].set)
    return _release[0]


@app.tool
async def hold(n: int, ctx: Context) -> str:
    """Report progress 1 of 2, wait for SIGUSR1, report 2 of 2, answer "done N"."""
    release = _released()
    await ctx.report_progress(1, 2)
    await release.wait()
    await ctx.report_progress(2, 2)
    return f"done {n}"


@app.tool
def pid() -> int:
    """The id of the process serving the call (`--workers` tests)."""
    import os

    return os.getpid()
