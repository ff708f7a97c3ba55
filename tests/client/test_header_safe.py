"""A client excludes tools whose x-mcp-header markers break the rules (2026-07-28)."""

from __future__ import annotations

from plainmcp.client.results import ToolInfo
from plainmcp.client.session import header_safe


def tool(name: str, prop: dict[str, object]) -> ToolInfo:
    return ToolInfo(name=name, input_schema={"type": "object", "properties": {"p": prop}})


def test_tools_with_invalid_header_markers_are_excluded() -> None:
    good = tool("good", {"type": "string", "x-mcp-header": "Region"})
    plain = tool("plain", {"type": "string"})
    tools = [
        good,
        tool("empty", {"type": "string", "x-mcp-header": ""}),
        tool("object", {"type": "object", "x-mcp-header": "Obj"}),
        tool("number", {"type": "number", "x-mcp-header": "Num"}),
        tool("space", {"type": "string", "x-mcp-header": "Has Space"}),
        tool("colon", {"type": "string", "x-mcp-header": "a:b"}),
        plain,
    ]
    assert header_safe(tools) == [good, plain]
