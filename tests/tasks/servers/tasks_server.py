"""A server of task tools for the end-to-end tests (tests/tasks/test_e2e.py): every call of a
2026-07-28 client that names the extension becomes a task at once (budget 0), and clients are
told to poll every 20 ms."""

from __future__ import annotations

from plainmcp import Context, Server
from plainmcp.tasks import Tasks

app = Server("tasks-e2e", tasks=Tasks(budget=0, poll_interval_ms=20), continuation=None)


@app.tool(task="optional")
async def confirm(item: str, ctx: Context) -> str:
    """Asks the user to confirm `item`, then says what was answered.

    Args:
        item: What to confirm.
    """
    answer = await ctx.elicit(f"Confirm {item}?", {"type": "object", "properties": {}})
    return f"{item}: {answer.action}"


@app.tool(task="required")
def shout(text: str) -> str:
    """Says `text` louder (a sync tool, always a task).

    Args:
        text: What to shout.
    """
    return text.upper()


if __name__ == "__main__":
    app.run()
