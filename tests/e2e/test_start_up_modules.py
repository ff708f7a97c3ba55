"""Over a real stdio subprocess: a server of plain tools serves initialize, tools/list and
tools/call without importing pydantic, prompts, resources, telemetry or the stdlib modules only
they need (start-up time for every session a host spawns); the first tool that takes a pydantic
model loads pydantic then, and validates with it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from plainmcp.client import Client

SERVER = Path(__file__).parent / "servers" / "start_up_modules.py"

pytestmark = pytest.mark.anyio

AFTER_A_MODEL = [  # pydantic, and the standard modules it imports itself
    "pydantic",
    "pydantic_core",
    "plainmcp.schema.pydantic_path",
    "hashlib",
    "pathlib",
    "urllib.parse",
    "decimal",
]


async def test_a_server_of_plain_tools_loads_none_of_what_it_does_not_use() -> None:
    async with Client.stdio(sys.executable, str(SERVER), protocol="2025-11-25") as client:
        tools = await client.list_tools()
        add = next(t for t in tools if t.name == "add")
        summed = await client.call_tool("add", {"a": 2, "b": 3})
        wrong = await client.call_tool("add", {"a": "2", "b": 3, "mode": "product"})
        before = await client.call_tool("loaded", {})
        assert await client.call_tool("add_model_tool", {}) is not None
        pointed = await client.call_tool("point", {"where": {"x": 1, "y": 2}})
        refused = await client.call_tool("point", {"where": {"x": "one"}})
        after = await client.call_tool("loaded", {})
    assert add.input_schema == {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "integer"},
            "mode": {"default": "sum", "enum": ["sum", "difference"], "type": "string"},
        },
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    assert summed.raw["structuredContent"] == {"result": 5}
    assert wrong.raw["isError"] is True
    assert wrong.raw["content"][0]["text"] == (
        "Invalid arguments for tool 'add':\n"
        '- a: Input should be a valid integer, got "2"\n'
        "- mode: Input should be 'sum' or 'difference', got \"product\""
    )
    assert before.raw["structuredContent"] == {"result": []}
    assert pointed.raw["content"] == [{"type": "text", "text": "1,2"}]
    assert refused.raw["isError"] is True
    assert after.raw["structuredContent"] == {"result": AFTER_A_MODEL}
