"""The host matrix's server (matrix_server.py) written on the official Python SDK's high-level
server (`mcp` 2.3.0, `mcp.server.mcpserver.MCPServer`, once `FastMCP`): an anchor, measured in
the same runs as plainmcp (test_anchors.py), for docs/hosts.md's comparison.

The same tool names, no inputs, the same values, in the SDK's own ways; where it cannot say the
same thing:
- `table` (`-> list[Row]`): the SDK wraps the value as {"result": [...]} in structuredContent
  and its output schema, and sends one text block per row (10,000 blocks);
- `table_plain`, `both`, `both_typed`, `fails`: a `CallToolResult` passed through, the SDK's way
  to send a value without an output schema, a text beside a value, and an isError result of
  its own blocks (a raised `ToolError` is one block, "Error executing tool fails: ..."); a value
  that is a list goes in {"result": ...}, as the SDK wraps one, since 2025-era structuredContent
  is an object; `both_typed`'s output schema comes from its return annotation;
- `log` is `structured_output=False`: by default a `-> str` tool also gets {"result": text}.
Nothing is cut: the SDK has no limit on a result's size, and no read_more.

`python matrix_sdk.py` serves it over stdio, `python matrix_sdk.py PORT` over HTTP.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

if __name__ == "__main__":  # run as a file by a host: the constants are in tests.hosts
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcp.server.mcpserver import Audio, Image, MCPServer
from mcp.types import (
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel

from tests.hosts import matrix_server as mx

server = MCPServer("matrix-sdk", version="1.0.0")


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)


@server.tool(name="log", structured_output=False)
def log_tool() -> str:
    """The whole log."""
    return mx.LONG


@server.tool()
def table() -> list[mx.Row]:
    """Every row of the table."""
    return mx.rows()


@server.tool()
def table_plain() -> CallToolResult:
    """Every row of the table, as a value without an output schema."""
    return CallToolResult(
        content=[_text(json.dumps(mx.ROWS, ensure_ascii=False))],
        structured_content={"result": mx.ROWS},
    )


@server.tool()
def both() -> CallToolResult:
    """A text that says more than the value beside it."""
    return CallToolResult(content=[_text(mx.BOTH_TEXT)], structured_content=mx.BOTH_VALUE)


class Count(BaseModel):
    count: int


@server.tool()
def both_typed() -> Annotated[CallToolResult, Count]:
    """The same, with an output schema."""
    return CallToolResult(content=[_text(mx.BOTH_TEXT)], structured_content=mx.BOTH_VALUE)


@server.tool()
def fails() -> CallToolResult:
    """A failure in two text blocks."""
    return CallToolResult(content=[_text(e) for e in mx.ERRORS], is_error=True)


@server.tool(structured_output=False)
def media() -> list[ContentBlock | str | Image | Audio]:
    """An image, a recording, a link and a note."""
    return [
        mx.CAPTION,
        Image(data=mx.PNG, format="png"),
        Audio(data=mx.WAV, format="wav"),
        ResourceLink(
            type="resource_link", uri=mx.LINK_URI, name=mx.LINK_NAME, mime_type="text/plain"
        ),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri=mx.EMBEDDED_URI, text=mx.EMBEDDED_TEXT, mime_type="text/plain"
            ),
        ),
    ]


if __name__ == "__main__":
    if len(sys.argv) > 1:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]))
    else:
        server.run()
