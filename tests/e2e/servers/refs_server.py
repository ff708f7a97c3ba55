"""A server for the state-secret tests, given no secret: the processes serving it must share
one of their own making. A text too long for one result, cut in parts of 1,000 characters and
read back through read_more (the rest is stored on the Redis named by PLAINMCP_TEST_SESSIONS
when it is set, so that any process can read it; else in each process's memory); a tool that
asks its caller for input (a 2026-07-28 input-required round, continued with requestState);
and one naming the process that served it."""

from __future__ import annotations

import os

from plainmcp import Context, PayloadLimits, Server
from plainmcp.redis_store import RedisStore

TEXT = "".join(f"line {n:04d} of a text read back in parts\n" for n in range(240))
"""9,360 characters: the first part, then 12 more through read_more."""

REDIS = os.environ.get("PLAINMCP_TEST_SESSIONS")
app = Server(
    "refs",
    "1.0.0",
    blob_store=RedisStore(REDIS) if REDIS else None,
    payload_limits=PayloadLimits(text_block=1000, text_result=1000),
)


@app.tool
def long_text() -> str:
    """The long text (cut: the rest through read_more)."""
    return TEXT


@app.tool
async def confirm(ctx: Context, what: str) -> str:
    """Asks the caller to confirm `what`."""
    answer = await ctx.elicit(
        f"Confirm {what}?",
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    )
    return f"confirmed {what}: {answer.content}"


@app.tool
def where() -> str:
    """The id of the process that served this call."""
    return str(os.getpid())
