"""A FastMCP server with tools that report progress, log, elicit and sample:
`python fastmcp_tools.py stdio` or `python fastmcp_tools.py PORT` (Streamable HTTP).

FastMCP asks the client mid-call up to 2025-11-25; at 2026-07-28 a tool asks by returning an
input-required result and reads the answers from `ctx.input_responses` on the retry."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import mcp_types
from fastmcp import Context, FastMCP

server = FastMCP("fastmcp-tools", version="4.0.0")


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress and logging each step."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
        await ctx.info(f"counted {i}")
    return f"counted to {n}"


@dataclass
class Name:
    name: str


NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _modern(ctx: Context) -> bool:
    return ctx.request_context is not None and ctx.request_context.protocol_version == "2026-07-28"


@server.tool
async def greet(ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Ask the user for a name."""
    if not _modern(ctx):
        answer = await ctx.elicit("Your name?", Name)
        return f"Hello, {answer.data.name}!" if answer.action == "accept" else answer.action
    responses = ctx.input_responses
    if not responses or "name" not in responses:
        ask = mcp_types.ElicitRequest(
            params=mcp_types.ElicitRequestFormParams(
                message="Your name?", requested_schema=NAME_SCHEMA
            )
        )
        return mcp_types.InputRequiredResult(input_requests={"name": ask})
    answer = responses["name"]
    assert isinstance(answer, mcp_types.ElicitResult)
    return f"Hello, {(answer.content or {})['name']}!"


@server.tool
async def ask_model(prompt: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Ask the client's model."""
    message = mcp_types.SamplingMessage(
        role="user", content=mcp_types.TextContent(type="text", text=prompt)
    )
    if not _modern(ctx):
        reply = await ctx.session.create_message(messages=[message], max_tokens=50)
    else:
        responses = ctx.input_responses
        if not responses or "reply" not in responses:
            ask = mcp_types.CreateMessageRequest(
                params=mcp_types.CreateMessageRequestParams(messages=[message], max_tokens=50)
            )
            return mcp_types.InputRequiredResult(input_requests={"reply": ask})
        reply = responses["reply"]  # type: ignore[assignment]
    assert isinstance(reply, mcp_types.CreateMessageResult)
    content = reply.content
    text = content.text if isinstance(content, mcp_types.TextContent) else "?"
    return f"{reply.model} said: {text}"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run(show_banner=False)
    else:
        server.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
