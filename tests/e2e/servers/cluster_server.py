"""A server for the scale-out tests, run as `python FILE PORT` with its sessions on the Redis
named by PLAINMCP_TEST_SESSIONS (and max_sessions_per_client PLAINMCP_TEST_PER_CLIENT, 100
when unset): tools that report progress, ask the client (elicitation, sampling, roots), name
the process that served them, announce resource updates, and wait for a release the test
pushes to Redis (so a stream can be cut mid-call)."""

from __future__ import annotations

import asyncio
import os
import sys

from plainmcp import Context, Server

app = Server("cluster", "1.0.0")
PID = os.getpid()
started = asyncio.Event()


@app.tool
def where() -> str:
    """The id of the process that served this call."""
    return str(PID)


@app.tool
async def count(steps: int, ctx: Context) -> str:
    """Reports progress 1..steps of steps, then returns steps."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps)
    return str(steps)


@app.tool
async def ask_name(ctx: Context) -> str:
    """Asks the user for a name (elicitation)."""
    answer = await ctx.elicit(
        "Your name?",
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    )
    return f"{answer.action}: {(answer.content or {}).get('name')}"


@app.tool
async def ask_model(prompt: str, ctx: Context) -> str:
    """Asks the client's model (sampling)."""
    answer = await ctx.sample(prompt, max_tokens=20)
    return f"model said: {answer.text}"


@app.tool
async def hold(ctx: Context) -> str:
    """Runs until cancelled, saying so first in a log message."""
    await ctx.info(f"holding in {PID}")
    await asyncio.Event().wait()
    return "never"


@app.tool
async def paced(n: int, ctx: Context) -> str:
    """Progress 1 of 2, then waits until the test pushes to the Redis list `release:N`,
    then progress 2 of 2 and "done N in PID"."""
    from redis.asyncio import Redis

    await ctx.report_progress(1, 2, f"in {PID}")
    client = Redis.from_url(os.environ["PLAINMCP_TEST_SESSIONS"])
    try:
        await client.blpop([f"release:{n}"])
    finally:
        await client.aclose()
    await ctx.report_progress(2, 2, f"in {PID}")
    return f"done {n} in {PID}"


@app.tool
def touch(uri: str) -> str:
    """Announces that the resource at `uri` changed (to every process's subscribers)."""
    app.notify_resource_updated(uri)
    return f"touched {uri}"


@app.resource("memo://note")
def note() -> str:
    """A resource clients subscribe to."""
    return "a note"


if __name__ == "__main__":
    app.run(
        "http",
        port=int(sys.argv[1]),
        sessions=os.environ["PLAINMCP_TEST_SESSIONS"],
        max_sessions_per_client=int(os.environ.get("PLAINMCP_TEST_PER_CLIENT", "100")),
    )
