"""The same function as a plain def tool and as an inline one, each naming the thread it ran in
(tests/e2e/test_inline_stdio.py)."""

from __future__ import annotations

import threading

from plainmcp import Server

app = Server("inline-tools", version="1.0.0")


def where(a: int, b: int) -> dict[str, object]:
    """The sum, and the thread that computed it."""
    return {"sum": a + b, "thread": threading.current_thread().name}


app.add_tool(where, name="where_thread")
app.add_tool(where, name="where_inline", inline=True)

if __name__ == "__main__":
    app.run()
