"""A server for the tasks-across-processes tests, run as `python FILE PORT`: its sessions on the
Redis named by PLAINMCP_TEST_SESSIONS, and its tasks with them (the app's wiring,
transports/http/redis_tasks.py), or, when PLAINMCP_TEST_TASK_LEASE is set, in a RedisTaskStore of
its own on that Redis whose lease is that many seconds. Its task tools name the process that
ran them and wait on Redis lists the test pushes to, so a test decides when a task finishes and
sees where a cancel arrived."""

from __future__ import annotations

import asyncio
import os
import sys

from plainmcp import Context, Server
from plainmcp.tasks.extension import Tasks
from plainmcp.tasks.redis_store import RedisTaskStore

URL = os.environ["PLAINMCP_TEST_SESSIONS"]
PID = os.getpid()
LEASE = os.environ.get("PLAINMCP_TEST_TASK_LEASE")
STORE = RedisTaskStore(URL, lease=float(LEASE)) if LEASE else None

app = Server("tasks-cluster", "1.0.0", tasks=Tasks(STORE, poll_interval_ms=50))


async def _pop(key: str) -> None:
    """Until a value is pushed to `key`, through a Redis restart too (connecting again)."""
    from redis.asyncio import Redis
    from redis.exceptions import ConnectionError

    while True:
        client = Redis.from_url(URL)
        try:
            await client.blpop([key])
            return
        except ConnectionError:
            await asyncio.sleep(0.05)
        finally:
            await client.aclose()


async def _push(key: str, value: str) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(URL)
    try:
        await client.rpush(key, value)
    finally:
        await client.aclose()


@app.tool
def where() -> str:
    """The id of the process that served this call."""
    return str(PID)


@app.tool(task="required")
async def slow(n: int) -> str:
    """Says it started (Redis list `started:N`), waits until the test pushes to `release:N`,
    then returns "done N in PID"."""
    await _push(f"started:{n}", str(PID))
    await _pop(f"release:{n}")
    return f"done {n} in {PID}"


@app.tool(task="required")
async def held(n: int) -> str:
    """Runs until cancelled; a cancel that reaches it is pushed to `cancelled:N` (with PID)."""
    await _push(f"started:{n}", str(PID))
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        await asyncio.shield(_push(f"cancelled:{n}", str(PID)))
        raise
    return "never"


@app.tool(task="required")
async def nap() -> str:
    """Runs until cancelled, touching nothing (a task whose creation alone needs Redis)."""
    await asyncio.Event().wait()
    return "never"


@app.tool(task="required")
async def ask_name(ctx: Context) -> str:
    """Asks the user for a name (elicitation) inside its task."""
    await ctx.become_task()
    answer = await ctx.elicit(
        "Your name?",
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    )
    return f"{answer.action}: {(answer.content or {}).get('name')} in {PID}"


if __name__ == "__main__":
    app.run("http", port=int(sys.argv[1]), sessions=URL)
