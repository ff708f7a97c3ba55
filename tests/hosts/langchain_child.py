"""LangChain's MCP adapters, run in their own venv (.venv-langchain, made by scripts/setup:
langchain-mcp-adapters 0.3.2 needs mcp<2, the dev venv has mcp 2.3.0), driven over this
process's stdin and stdout by tests/hosts/langchain_agent.py.

    python langchain_child.py MODE TARGET_JSON

MODE "session": the tools are loaded on one open session (`load_mcp_tools(session)`); MODE
"per-call": `MultiServerMCPClient(...).get_tools()`, LangChain's default, which opens a new session
(over stdio a new server process) for every call. TARGET_JSON is {"name", "command", "args",
"env", "cwd"}. The first line out is {"tools": [names]}; then each line in is {"call": {"name",
"input"}} or {"end": true}, and each call is answered with one line: {"message": {...}} (the
ToolMessage the tool node would hand the model: content, status, and whether an artifact was
kept beside it) or {"raised": "..."} when the framework raised instead of answering.

Only the standard library and LangChain's packages: this runs outside the dev venv.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import Any


def _say(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


async def _ask() -> dict[str, Any]:
    line = await asyncio.to_thread(sys.stdin.readline)
    return json.loads(line) if line.strip() else {"end": True}


async def _serve(tools: list[Any]) -> None:
    by_name = {tool.name: tool for tool in tools}
    _say({"tools": list(by_name)})
    turn = 0
    while "call" in (asked := await _ask()):
        turn += 1
        call = {
            "type": "tool_call",
            "id": f"call_{turn:03d}",
            "name": asked["call"]["name"],
            "args": asked["call"]["input"],
        }
        try:
            message = await by_name[call["name"]].ainvoke(call)
        except Exception as exc:
            _say({"raised": f"{type(exc).__name__}: {exc}"})
            continue
        _say(
            {
                "message": {
                    "content": message.content,
                    "status": message.status,
                    "artifact": message.artifact is not None,
                }
            }
        )


async def main(mode: str, target: dict[str, Any]) -> None:
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools

    connection: dict[str, Any] = {
        "transport": "stdio",
        "command": target["command"],
        "args": target["args"],
    }
    if target.get("env"):
        connection["env"] = target["env"]
    if target.get("cwd"):
        connection["cwd"] = target["cwd"]
    client = MultiServerMCPClient({target["name"]: connection})  # type: ignore[dict-item]
    if mode == "session":
        async with client.session(target["name"]) as session:
            await _serve(await load_mcp_tools(session))
    else:
        await _serve(await client.get_tools())


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
