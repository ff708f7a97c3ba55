"""A server for the HTTP end-to-end tests: a slow tool that records whether it was cancelled."""

from __future__ import annotations

import anyio

from plainmcp import Context, Server

app = Server("http-probe", "1.0.0")
events: list[str] = []


@app.tool
async def slow(ctx: Context) -> str:
    """Logs, then sleeps for two seconds unless cancelled."""
    events.append("started")
    await ctx.info("started")
    try:
        await anyio.sleep(2)
    except anyio.get_cancelled_exc_class():
        events.append("cancelled")
        raise
    events.append("finished")
    return "finished"


@app.tool
def history() -> list[str]:
    """What the slow tool went through so far."""
    return list(events)


@app.tool
def echo(text: str) -> str:
    """Returns its argument."""
    return text
