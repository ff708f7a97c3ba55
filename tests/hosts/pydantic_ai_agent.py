"""Run a pydantic-ai agent against a plainmcp server, with a scripted model.

The agent's model is pydantic-ai's own `FunctionModel`: each turn it gets the messages pydantic-ai
built, so the `ToolReturnPart` of a call is exactly what the framework hands any model for that
MCP result (a provider adapter only serializes it). The script decides the next call from the
results so far, as in tests/hosts/scripts.py. The MCP side is pydantic-ai's `MCPToolset` (a
FastMCP client), over stdio (`plainmcp run`) or Streamable HTTP.

    run = run_agent(stdio("demo"), sequence(ToolUse("greet", {"name": "Ada"})))
    run.returns[0].content   # 'Hello, Ada!'
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from tests.hosts import needs
from tests.hosts.claude_code import serve
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script

VERSION = "2.68.0"


def pydantic_ai_problem() -> str | None:
    if importlib.util.find_spec("pydantic_ai") is None:
        return "pydantic-ai is not installed (pip install -e '.[dev]', or run scripts/setup)"
    import pydantic_ai

    if pydantic_ai.__version__ != VERSION:
        return f"pydantic-ai is {pydantic_ai.__version__}, expected {VERSION} (run scripts/setup)"
    return None


def ensure_pydantic_ai() -> None:
    needs.require(pydantic_ai_problem())


def stdio(obj: str, log: Path | None = None, record: Path | None = None) -> Any:
    """A FastMCP stdio transport running `plainmcp run fixture_server.py:OBJ` (through
    tests/interop/relay.py into `record`, when given)."""
    from fastmcp.client.transports import StdioTransport

    env = {"PLAINMCP_HOSTS_CLIENT_LOG": str(log)} if log is not None else None
    return StdioTransport(sys.executable, serve(obj, record), env=env)


def parts_of(content: Any) -> list[Part]:
    """A tool return's content as Parts: strings are text, binaries keep their bytes, any
    other value (pydantic-ai parses JSON text and unwraps structured values) is its JSON. A
    list is the parts of a result when it holds a string or a binary, else one value (the rows
    of a structured result), which a provider is sent as one JSON array."""
    from pydantic_ai.messages import BinaryContent

    if isinstance(content, list) and any(isinstance(i, str | BinaryContent) for i in content):
        return [p for item in content for p in parts_of(item)]
    if isinstance(content, str):
        return [Part("text", text=content)]
    if isinstance(content, BinaryContent):
        kind = content.media_type.partition("/")[0]
        kind = kind if kind in ("image", "audio") else "binary"
        return [Part(kind, media_type=content.media_type, data=content.data)]
    return [Part("json", text=json.dumps(content))]


@dataclass
class AgentRun:
    tools: list[str]
    """The function tools the model was offered in its first turn."""
    returns: list[Any]
    """The part pydantic-ai handed the model for each call, in order (a ToolReturnPart, or a
    RetryPromptPart where the framework asks the model to retry)."""

    @property
    def parts(self) -> list[list[Part]]:
        return [parts_of(r.content) for r in self.returns]


def _returns(messages: Sequence[Any]) -> list[Any]:
    from pydantic_ai.messages import ModelRequest, RetryPromptPart, ToolReturnPart

    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart | RetryPromptPart)
    ]


def run_agent(target: Any, script: Script, *, timeout: float = 60) -> AgentRun:
    """One `Agent.run` whose model follows `script`, with the MCP server at `target` (a FastMCP
    transport or a URL) as its only toolset. Errors are retried up to 50 times (pydantic-ai's
    default of 1 would end the run at a second error result) so every result reaches the model."""
    ensure_pydantic_ai()
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    offered: list[list[str]] = []
    final: list[list[Any]] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        offered.append([t.name for t in info.function_tools])
        returns = _returns(messages)
        call = script([parts_of(r.content) for r in returns])
        if call is None:
            final.append(returns)
            return ModelResponse(parts=[TextPart("done")])
        part = ToolCallPart(call.name, call.input, tool_call_id=f"call_{len(returns) + 1:03d}")
        return ModelResponse(parts=[part])

    async def main() -> None:
        toolset: MCPToolset[None] = MCPToolset(target, max_retries=50)
        agent = Agent(FunctionModel(model), toolsets=[toolset])
        with anyio.fail_after(timeout):
            await agent.run("go")

    anyio.run(main)
    return AgentRun(offered[0], final[0])


# --- the matrix's driver (drivers.py) -----------------------------------------------------------


class PydanticAi:
    """pydantic-ai's agent with MCPToolset as a `drivers.Driver`."""

    key = "pydantic-ai"
    transports: tuple[Transport, ...] = ("stdio",)

    def problem(self) -> str | None:
        return pydantic_ai_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return tool

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        from fastmcp.client.transports import StdioTransport

        transport: Any = (
            target.url
            if target.url
            else StdioTransport(target.argv[0], list(target.argv[1:]), env=dict(target.env) or None)
        )
        run = run_agent(transport, script, timeout=timeout)
        from pydantic_ai.messages import RetryPromptPart

        return Seen(
            offered=run.tools,
            results=run.parts,
            failed=[isinstance(r, RetryPromptPart) for r in run.returns],
        )
