"""An upstream for the proxy's tests, over stdio: `die` ends the process mid-call (as a crash
would), `pid` says which process answered, so a test sees the proxy reconnect; `hold` is a call in
flight when it dies."""

from __future__ import annotations

import os

import anyio

from plainmcp import Context, Server

app = Server("upstream", continuation=None)


@app.tool
def pid() -> int:
    """This process's id."""
    return os.getpid()


@app.tool
async def hold(ctx: Context) -> str:
    """Report progress, then wait until the process ends."""
    await ctx.report_progress(1)
    await anyio.sleep_forever()
    return "never"


@app.tool
def die() -> str:
    """Exit at once, without answering."""
    os._exit(3)


if __name__ == "__main__":
    app.run()
