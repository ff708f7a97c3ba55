"""The official Python SDK client (PyPI `mcp`, legacy handshake) against examples/demo_server.py.

The client spawns the demo over stdio, lists its tools and calls every one of them; each result
must match the table in conftest.py exactly (content blocks, structuredContent, isError).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult

from tests.interop.conftest import (
    ADD_INPUT_SCHEMA,
    CALLS,
    EXACT_CLIENT,
    OUTPUT_SCHEMAS,
    READ_ONLY,
    SERVER_COMMAND,
    TOOL_NAMES,
    Call,
    Site,
    check_png,
    check_wav,
    fetch_calls,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def client() -> AsyncIterator[Client]:
    command, *args = SERVER_COMMAND
    params = StdioServerParameters(command=command, args=args)
    async with Client(
        params, mode="legacy", read_timeout_seconds=30, client_info=EXACT_CLIENT
    ) as connected:
        yield connected


def wire(result: CallToolResult) -> dict[str, Any]:
    """The result as it went over the wire (resultType is a client-side default before 2026)."""
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    dumped.pop("resultType", None)
    return dumped


async def test_handshake(client: Client) -> None:
    assert client.protocol_version == "2025-11-25"
    assert client.server_info is not None
    assert (client.server_info.name, client.server_info.version) == ("plainmcp-demo", "0.1.0")
    assert client.instructions is not None and client.instructions.startswith("Demo tools:")
    assert client.server_capabilities.tools is not None


async def test_list_tools(client: Client) -> None:
    listed = await client.list_tools()
    assert listed.next_cursor is None
    tools = {tool.name: tool for tool in listed.tools}
    assert [tool.name for tool in listed.tools] == TOOL_NAMES
    assert tools["add"].description == "Add two integers."
    assert tools["add"].input_schema == ADD_INPUT_SCHEMA
    for name, tool in tools.items():
        assert tool.output_schema == OUTPUT_SCHEMAS.get(name), name
        assert tool.description, name
        assert tool.input_schema["type"] == "object", name
        hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)  # type: ignore[union-attr]
        expected = {"readOnlyHint": True, "openWorldHint": name == "fetch"}
        assert hints == (expected if name == "fetch" else READ_ONLY), name


@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
async def test_call(client: Client, call: Call) -> None:
    result = await client.call_tool(call.tool, call.arguments)
    call.check(wire(result))


async def test_fetch(client: Client, site: Site) -> None:
    for call in fetch_calls(site):
        result = await client.call_tool(call.tool, call.arguments)
        call.check(wire(result))


async def test_media_decode(client: Client) -> None:
    """The chart is a real bar chart; the tone a real WAV (checked without the demo's code)."""
    chart = await client.call_tool("chart", {"region": "south"})
    assert chart.content[0].model_dump() == {
        "type": "text",
        "text": "Sales chart for south",
        "annotations": None,
        "meta": None,
    }
    width, height, rows = check_png(chart.content[1].data)  # type: ignore[union-attr]
    assert (width, height) == (136, 106)
    blue, grey = b"\x26\x8b\xd2", b"\x80\x80\x80"
    assert rows[98] == grey * width  # the axis
    columns = [20, 52, 84, 116]  # the middle of each bar
    heights = [sum(row[x * 3 : x * 3 + 3] == blue for row in rows) for x in columns]
    assert heights == [70, 40, 60, 90]  # south's sales [7, 4, 6, 9], 10 px per unit

    tone = await client.call_tool("tone", {"frequency": 440, "duration_ms": 500})
    assert tone.content[0].mime_type == "audio/wav"  # type: ignore[union-attr]
    assert check_wav(tone.content[0].data) == (1, 2, 8000, 4000)  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["auto", "2026-07-28"])
async def test_stateless_modes_get_natural_structured_output(mode: str) -> None:
    """mode="auto" probes server/discover first and so speaks 2026-07-28, as the pinned mode
    does: per-request _meta, no handshake, structured output as the value itself."""
    command, *args = SERVER_COMMAND
    params = StdioServerParameters(command=command, args=args)
    async with Client(
        params,
        mode=mode,  # type: ignore[arg-type]
        read_timeout_seconds=30,
        client_info=EXACT_CLIENT,
    ) as modern:
        assert modern.protocol_version == "2026-07-28"
        result = await modern.call_tool("add", {"a": 1, "b": 2})
        tools = await modern.list_tools()
    dumped = result.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert dumped == {
        "_meta": {
            "io.modelcontextprotocol/serverInfo": {"name": "plainmcp-demo", "version": "0.1.0"}
        },
        "content": [{"type": "text", "text": "3"}],
        "structuredContent": 3,
        "isError": False,
        "resultType": "complete",
    }
    add = next(t for t in tools.tools if t.name == "add")
    assert add.output_schema == {"type": "integer"}


async def test_boolean_is_not_an_integer(client: Client) -> None:
    """JSON true is not a JSON Schema integer: it must be refused, not added as 1.

    (Only the SDK sends it as is; the Inspector turns it into a number before sending.)
    """
    result = await client.call_tool("add", {"a": True, "b": 3})
    assert result.is_error
    assert result.structured_content is None
    assert result.content[0].text == (  # type: ignore[union-attr]
        "Invalid arguments for tool 'add':\n- a: Input should be a valid integer, got true"
    )


async def test_unknown_tool(client: Client) -> None:
    """An unknown tool is a protocol error; the SDK raises it."""
    with pytest.raises(MCPError) as raised:
        await client.call_tool("no_such_tool", {})
    assert "no_such_tool" in str(raised.value)
