"""Tools that run as tasks, for the client's and the CLI's end-to-end task tests over stdio
and HTTP: one that reports progress and logs, one that asks the user, one whose tool fails,
one that runs until cancelled."""

from __future__ import annotations

import anyio

from plainmcp import Context, Server, ToolError
from plainmcp.tasks.extension import Tasks

# A 2026-07-28 call becomes a task at once (no budget), and clients poll every 100 ms.
app = Server("task-tools", tasks=Tasks(budget=0, poll_interval_ms=100))

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@app.tool(task="optional")
async def build(target: str, ctx: Context) -> str:
    """Build a target, in two reported steps."""
    await ctx.report_progress(1, 2, "compiling")
    await ctx.info(f"compiled {target}")
    await ctx.report_progress(2, 2, "linking")
    return f"built {target}"


@app.tool(task="optional")
async def hello(ctx: Context) -> str:
    """Ask the user's name, then greet them."""
    answer = await ctx.elicit("Your name?", NAME_FORM)
    name = answer.content["name"] if answer.content else "nobody"
    return f"Hello, {name}!"


@app.tool(task="optional")
def failing_job() -> str:
    """A tool that fails: its error is a result, not a failed task."""
    raise ToolError("no such file")


@app.tool(task="required")
async def forever(ctx: Context) -> str:
    """Runs until cancelled."""
    await anyio.sleep_forever()
    return "never"


@app.tool
def add(a: int, b: int) -> int:
    """No task: always a plain call."""
    return a + b


if __name__ == "__main__":
    app.run()
