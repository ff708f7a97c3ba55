"""The official Python SDK's server (`MCPServer`) with tools that report progress, log, elicit
and sample: `python sdk_tools.py stdio` or `python sdk_tools.py PORT` (Streamable HTTP)."""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("sdk-tools", version="2.0.0")


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


# Resolvers ask the client: mid-call requests up to 2025-11-25, input-required results at
# 2026-07-28 (the SDK picks by the request's revision).
def ask_name() -> Elicit[Name]:
    return Elicit("Your name?", Name)


def ask_model_for(prompt: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
    return Sample([message], max_tokens=50, system_prompt="Be brief.")


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def greet(name: Annotated[Name, Resolve(ask_name)]) -> str:
    """Ask the user for a name."""
    return f"Hello, {name.name}!"


@server.tool()
async def ask_model(
    prompt: str, reply: Annotated[CreateMessageResult, Resolve(ask_model_for)]
) -> str:
    """Ask the client's model."""
    content = reply.content
    return f"{reply.model} said: {content.text if isinstance(content, TextContent) else '?'}"


@server.tool()
async def roots(found: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """The client's roots."""
    return ", ".join(str(r.uri) for r in found.roots)


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run()
    else:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]))
