"""The official Python SDK's server over Streamable HTTP (uvicorn), for the HTTP client's tests:
`python sdk_server.py PORT`."""

from __future__ import annotations

import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("sdk-http", version="1.2.3")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress and logging each step."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
        await ctx.info(f"counted {i}")
    return f"counted to {n}"


class Name(BaseModel):
    name: str


@server.tool()
async def greet(ctx: Context) -> str:
    """Ask the user for a name."""
    answer = await ctx.elicit("Your name?", Name)
    return f"{answer.action}: {answer.data.name if answer.action == 'accept' else '-'}"


if __name__ == "__main__":
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]))
