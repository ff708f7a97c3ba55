"""The host matrix's server (matrix_server.py) written on FastMCP 4.2.3: an anchor, measured in
the same runs as plainmcp (test_anchors.py), for docs/hosts.md's comparison.

The same tool names, no inputs, the same values, in FastMCP's own ways; where it cannot say the
same thing:
- `log` (`-> str`): FastMCP gives it an output schema {"result": string} and sends the text in
  structuredContent too (150,000 characters twice), unless told `output_schema=None`, as here;
- `table` (`-> list[Row]`): one compact JSON text block, the value wrapped as {"result": [...]}
  in structuredContent and its output schema (flagged `x-fastmcp-wrap-result`);
- `table_plain`, `both`, `both_typed`, `fails`: a `ToolResult` with `output_schema=None` (or a
  schema given), FastMCP's way to send a value without an output schema, a text beside a value,
  and an isError result of its own blocks; a list value goes in {"result": ...}, as FastMCP
  wraps one, since 2025-era structuredContent is an object.
Nothing is cut: FastMCP sends any size unless ResponseLimitingMiddleware is added (it then
truncates to one text block), and it has no read_more.

`python matrix_fastmcp.py` serves it over stdio, `python matrix_fastmcp.py PORT` over HTTP.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a file by a host: the constants are in tests.hosts
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fastmcp import FastMCP
from fastmcp.tools import ToolResult
from fastmcp.utilities.types import Audio, Image
from mcp.types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

from tests.hosts import matrix_server as mx

server = FastMCP("matrix-fastmcp", version="1.0.0")


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)


@server.tool(name="log", output_schema=None)
def log_tool() -> str:
    """The whole log."""
    return mx.LONG


@server.tool
def table() -> list[mx.Row]:
    """Every row of the table."""
    return mx.rows()


@server.tool(output_schema=None)
def table_plain() -> ToolResult:
    """Every row of the table, as a value without an output schema."""
    return ToolResult(
        content=[_text(json.dumps(mx.ROWS, ensure_ascii=False))],
        structured_content={"result": mx.ROWS},
    )


@server.tool(output_schema=None)
def both() -> ToolResult:
    """A text that says more than the value beside it."""
    return ToolResult(content=[_text(mx.BOTH_TEXT)], structured_content=mx.BOTH_VALUE)


@server.tool(
    output_schema={
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    }
)
def both_typed() -> ToolResult:
    """The same, with an output schema."""
    return ToolResult(content=[_text(mx.BOTH_TEXT)], structured_content=mx.BOTH_VALUE)


@server.tool(output_schema=None)
def fails() -> ToolResult:
    """A failure in two text blocks."""
    return ToolResult(content=[_text(e) for e in mx.ERRORS], is_error=True)


@server.tool(output_schema=None)
def media() -> list[object]:
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
        server.run("http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
    else:
        server.run(show_banner=False)
