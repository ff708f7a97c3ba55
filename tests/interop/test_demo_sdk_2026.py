"""The official Python SDK client at revision 2026-07-28 against examples/demo_server.py.

Two clients in one run, each over stdio with its own server process: one pinned to
mode="2026-07-28" (no handshake; every request carries its own `_meta`) and one in
mode="legacy" (the 2025-11-25 handshake). Both call every demo tool and must get exactly the
results of the table in conftest.py; what differs is what the revision changes:

- at 2026-07-28 a non-object structured value goes out as itself (add -> 5, inventory -> a
  list) under its natural output schema (add -> {"type": "integer"}); 2025-11-25 wraps it as
  {"result": ...} under the wrapped schema. The text fallback is the same in both.
- at 2026-07-28 every result carries resultType "complete" and `_meta` naming the server; the
  list methods carry ttlMs and cacheScope.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.interop.conftest import (
    ADD_INPUT_SCHEMA,
    CALLS,
    EXACT_CLIENT,
    IN_STOCK,
    OUTPUT_SCHEMAS,
    READ_ONLY,
    SERVER_COMMAND,
    STOCK,
    TOOL_NAMES,
    Call,
    Site,
    check_png,
    check_wav,
    compact,
    fetch_calls,
)

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "plainmcp-demo", "version": "0.1.0"}}
WRAPPED = ("add", "divide", "inventory")
"""The tools whose structured value is not an object: wrapped as {"result": ...} before 2026."""


def natural(call: Call) -> Call:
    """`call` as a 2026-07-28 server answers it: resultType, the serverInfo `_meta`, and the
    structured value of a wrapped tool as itself."""
    expected: dict[str, Any] = {"_meta": SERVER_META, **call.expected, "resultType": "complete"}
    if "structuredContent" in expected and call.tool in WRAPPED:
        wrapped = expected["structuredContent"]
        assert list(wrapped) == ["result"], call.id
        expected["structuredContent"] = wrapped["result"]
    return replace(call, expected=expected)


NATURAL_SCHEMAS: dict[str, dict[str, Any] | None] = {
    "add": {"type": "integer"},
    "divide": {"type": "number"},
    "inventory": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "sku": {"type": "string"},
                "name": {"type": "string"},
                "quantity": {"type": "integer"},
            },
            "required": ["sku", "name", "quantity"],
        },
    },
    "stats": OUTPUT_SCHEMAS["stats"],  # an object already: the same at every revision
}


def _params() -> StdioServerParameters:
    command, *args = SERVER_COMMAND
    return StdioServerParameters(command=command, args=args)


@pytest.fixture(scope="module")
async def modern() -> AsyncIterator[Client]:
    async with Client(
        _params(), mode=MODERN, read_timeout_seconds=30, client_info=EXACT_CLIENT
    ) as connected:
        yield connected


@pytest.fixture(scope="module")
async def legacy() -> AsyncIterator[Client]:
    async with Client(
        _params(), mode="legacy", read_timeout_seconds=30, client_info=EXACT_CLIENT
    ) as connected:
        yield connected


def wire(model: Any) -> dict[str, Any]:
    """Only what the server sent: the SDK fills in defaults (resultType before 2026, ttlMs, …)
    that exclude_unset leaves out."""
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped


# --- the 2026-07-28 client ---------------------------------------------------------------------


async def test_protocol_version_and_discover(modern: Client) -> None:
    assert modern.protocol_version == MODERN
    # Pinned, the client adopts the version without asking; server/discover still answers.
    discovered = await modern.session.send_discover(MODERN)
    instructions = discovered.pop("instructions")
    assert instructions.startswith("Demo tools: arithmetic (add, divide)")
    assert discovered == {
        "supportedVersions": [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
        # resources: offloaded payloads (on by default) are read back through resources/read.
        "capabilities": {
            "logging": {},
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
        },
        "resultType": "complete",
        "ttlMs": 60000,
        "cacheScope": "public",
        "_meta": SERVER_META,
    }


async def test_list_tools(modern: Client) -> None:
    listed = await modern.list_tools()
    dumped = wire(listed)
    assert [tool["name"] for tool in dumped.pop("tools")] == TOOL_NAMES
    assert dumped == {
        "_meta": SERVER_META,
        "ttlMs": 60000,
        "cacheScope": "public",
        "resultType": "complete",
    }
    tools = {tool.name: tool for tool in listed.tools}
    assert tools["add"].description == "Add two integers."
    assert tools["add"].input_schema == ADD_INPUT_SCHEMA
    for name, tool in tools.items():
        assert tool.output_schema == NATURAL_SCHEMAS.get(name), name
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)  # type: ignore[union-attr]
        expected = {"readOnlyHint": True, "openWorldHint": True} if name == "fetch" else READ_ONLY
        assert hints == expected, name


@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
async def test_call(modern: Client, call: Call) -> None:
    result = await modern.call_tool(call.tool, call.arguments)
    natural(call).check(wire(result))


async def test_fetch(modern: Client, site: Site) -> None:
    for call in fetch_calls(site):
        result = await modern.call_tool(call.tool, call.arguments)
        natural(call).check(wire(result))


async def test_natural_values_spelled_out(modern: Client) -> None:
    """The table above is derived from conftest's; here the natural values are written out."""
    add = await modern.call_tool("add", {"a": 2, "b": 3})
    assert wire(add) == {
        "_meta": SERVER_META,
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": 5,
        "isError": False,
        "resultType": "complete",
    }
    divide = await modern.call_tool("divide", {"a": 1, "b": 4})
    assert divide.structured_content == 0.25
    inventory = await modern.call_tool("inventory", {"in_stock_only": True})
    assert inventory.structured_content == IN_STOCK
    assert isinstance(inventory.structured_content, list)
    assert inventory.content[0].text == compact(IN_STOCK)  # type: ignore[union-attr]


async def test_media_decode(modern: Client) -> None:
    """The chart is a real bar chart; the tone a real WAV (checked without the demo's code)."""
    chart = await modern.call_tool("chart", {"region": "south"})
    width, height, rows = check_png(chart.content[1].data)  # type: ignore[union-attr]
    assert (width, height) == (136, 106)
    blue = b"\x26\x8b\xd2"
    heights = [sum(row[x * 3 : x * 3 + 3] == blue for row in rows) for x in (20, 52, 84, 116)]
    assert heights == [70, 40, 60, 90]
    tone = await modern.call_tool("tone", {"frequency": 440, "duration_ms": 500})
    assert check_wav(tone.content[0].data) == (1, 2, 8000, 4000)  # type: ignore[union-attr]


async def test_boolean_is_not_an_integer(modern: Client) -> None:
    result = await modern.call_tool("add", {"a": True, "b": 3})
    assert wire(result) == {
        "_meta": SERVER_META,
        "content": [
            {
                "type": "text",
                "text": "Invalid arguments for tool 'add':\n"
                "- a: Input should be a valid integer, got true",
            }
        ],
        "isError": True,
        "resultType": "complete",
    }


async def test_unknown_tool(modern: Client) -> None:
    with pytest.raises(MCPError) as raised:
        await modern.call_tool("no_such_tool", {})
    assert (raised.value.error.code, raised.value.error.message) == (
        -32602,
        "Unknown tool: no_such_tool",
    )


# --- side by side: the same tools through a legacy (2025-11-25) client -------------------------


async def test_legacy_handshake(legacy: Client) -> None:
    assert legacy.protocol_version == "2025-11-25"
    assert legacy.server_info is not None
    assert (legacy.server_info.name, legacy.server_info.version) == ("plainmcp-demo", "0.1.0")


@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
async def test_legacy_call(legacy: Client, call: Call) -> None:
    """The very table the 2026 client derives from, as 2025-11-25 has it: no resultType, no
    `_meta`, wrapped structured values."""
    result = await legacy.call_tool(call.tool, call.arguments)
    call.check(wire(result))


async def test_output_schemas_side_by_side(modern: Client, legacy: Client) -> None:
    old = {tool.name: tool.output_schema for tool in (await legacy.list_tools()).tools}
    new = {tool.name: tool.output_schema for tool in (await modern.list_tools()).tools}
    assert list(old) == list(new) == TOOL_NAMES
    assert old == {name: OUTPUT_SCHEMAS.get(name) for name in TOOL_NAMES}
    assert new == {name: NATURAL_SCHEMAS.get(name) for name in TOOL_NAMES}
    for name in WRAPPED:
        assert old[name] == {
            "type": "object",
            "properties": {"result": new[name]},
            "required": ["result"],
        }, name


SIDE_BY_SIDE = [
    ("add", {"a": 2, "b": 3}, "5", 5),
    ("divide", {"a": 1, "b": 4}, "0.25", 0.25),
    ("inventory", {}, compact(STOCK), STOCK),
    ("inventory", {"in_stock_only": True}, compact(IN_STOCK), IN_STOCK),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "text", "value"),
    SIDE_BY_SIDE,
    ids=["add", "divide", "inventory", "inventory-in-stock"],
)
async def test_structured_side_by_side(
    modern: Client, legacy: Client, tool: str, arguments: dict[str, Any], text: str, value: Any
) -> None:
    old = wire(await legacy.call_tool(tool, arguments))
    new = wire(await modern.call_tool(tool, arguments))
    content = [{"type": "text", "text": text}]
    assert old == {"content": content, "structuredContent": {"result": value}, "isError": False}
    assert new == {
        "_meta": SERVER_META,
        "content": content,
        "structuredContent": value,
        "isError": False,
        "resultType": "complete",
    }


async def test_object_structured_value_is_the_same(modern: Client, legacy: Client) -> None:
    arguments = {"numbers": [1, 2.5, 6]}
    old = wire(await legacy.call_tool("stats", arguments))
    new = wire(await modern.call_tool("stats", arguments))
    assert new.pop("_meta") == SERVER_META
    assert new.pop("resultType") == "complete"
    assert old == new
    assert old["structuredContent"] == {
        "count": 3,
        "mean": 3.1666666666666665,
        "minimum": 1.0,
        "maximum": 6.0,
    }
