"""Run an OpenAI Agents SDK agent against an MCP server, with a scripted model.

The agent's model is the SDK's own `OpenAIResponsesModel` on an `AsyncOpenAI` client whose
base_url is `AgentsStub`, a stand-in for the Responses API's `POST /v1/responses` (not
streamed: `Runner.run` asks for whole responses) on 127.0.0.1. Each request's
`function_call_output` items are exactly what the SDK hands the model for each MCP result (a
string, or a list of `input_text` / `input_image` items), so the script decides from those. The
MCP side is the SDK's `MCPServerStdio` over stdio.
"""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Mapping
from typing import Any

import anyio

from tests.hosts.codex_cli import outputs
from tests.hosts.drivers import Seen, Target, Transport
from tests.hosts.scripts import Part, Script, ToolUse
from tests.hosts.stub_server import StubServer

VERSION = "0.24.0"


def agents_problem() -> str | None:
    try:
        found = importlib.metadata.version("openai-agents")
    except importlib.metadata.PackageNotFoundError:
        return "openai-agents is not installed (pip install -e '.[dev]', or run scripts/setup)"
    if found != VERSION:
        return f"openai-agents is {found}, expected {VERSION} (run scripts/setup)"
    return None


def parts_of(output: Any) -> list[Part]:
    """A function_call_output's `output` as Parts: a string is one text; `input_text` items are
    text, an `input_image` data URL keeps its bytes, anything else is its JSON."""
    import base64

    if isinstance(output, str):
        return [Part("text", text=output)]
    parts = []
    for item in output:
        if item.get("type") == "input_text":
            parts.append(Part("text", text=item["text"]))
        elif item.get("type") == "input_image" and str(item.get("image_url")).startswith("data:"):
            head, _, data = item["image_url"].partition(",")
            media = head.removeprefix("data:").split(";")[0]
            parts.append(Part("image", media_type=media, data=base64.b64decode(data)))
        else:
            parts.append(Part(str(item.get("type")), text=json.dumps(item)))
    return parts


def _response(turn: int, model: str, call: ToolUse | None) -> dict[str, Any]:
    """A whole Responses API response: one function_call item, or a final message."""
    if call is None:
        text = {"type": "output_text", "text": "done", "annotations": []}
        item: dict[str, Any] = {
            "type": "message",
            "id": f"msg_{turn}",
            "role": "assistant",
            "status": "completed",
            "content": [text],
        }
    else:
        item = {
            "type": "function_call",
            "id": f"fc_{turn}",
            "call_id": f"call_{turn}",
            "name": call.name,
            "arguments": json.dumps(call.input),
            "status": "completed",
        }
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    return {
        "id": f"resp_{turn}",
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": "completed",
        "output": [item],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
    }


class AgentsStub(StubServer):
    """The Responses API on 127.0.0.1, answering each turn from a script."""

    url_path = "/v1"

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script
        self.failures: list[str] = []

    def answer(self, path: str, body: Mapping[str, Any], turn: int) -> tuple[bytes, str]:
        try:
            call = self.script([parts_of(o["output"]) for o in outputs(body)])
        except Exception as exc:
            self.failures.append(repr(exc))
            call = None
        return json.dumps(_response(turn, str(body.get("model")), call)).encode(), (
            "application/json"
        )

    @property
    def turns(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]


class OpenAiAgents:
    """openai-agents' `Agent` with `MCPServerStdio` and `OpenAIResponsesModel` as a
    `drivers.Driver`. The SDK passes an isError result on with no flag (there is none in a
    function_call_output), so `failed` is always False."""

    key = "openai-agents"
    transports: tuple[Transport, ...] = ("stdio",)

    def problem(self) -> str | None:
        return agents_problem()

    def tool_name(self, server: str, tool: str) -> str:
        return tool

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        from agents import Agent, OpenAIResponsesModel, RunConfig, Runner
        from agents.mcp import MCPServerStdio
        from openai import AsyncOpenAI

        with AgentsStub(script) as stub:

            async def main() -> None:
                params: Any = {"command": target.argv[0], "args": list(target.argv[1:])}
                if target.env:
                    params["env"] = dict(target.env)
                if target.cwd is not None:
                    params["cwd"] = str(target.cwd)
                client = AsyncOpenAI(base_url=stub.url, api_key="sk-test", max_retries=0)
                model = OpenAIResponsesModel("stub-model", openai_client=client)
                async with MCPServerStdio(
                    params, name=target.name, client_session_timeout_seconds=60
                ) as server:
                    agent = Agent(name="matrix", model=model, mcp_servers=[server])
                    with anyio.fail_after(timeout):
                        await Runner.run(
                            agent,
                            "go",
                            max_turns=200,
                            run_config=RunConfig(tracing_disabled=True),
                        )

            anyio.run(main)
        assert not stub.failures, stub.failures
        turns = stub.turns
        offered = [str(t.get("name")) for t in turns[0].get("tools", [])]
        last = outputs(turns[-1])
        return Seen(
            offered=offered,
            results=[parts_of(o["output"]) for o in last],
            failed=[False for _ in last],
        )
