"""plainmcp: plain Python functions in, exact MCP out."""

from plainmcp.client import CallToolResult, Client, McpError, ToolInfo
from plainmcp.content import (
    Annotations,
    Audio,
    ContentBlock,
    ContentError,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ResourceLink,
    Text,
)
from plainmcp.options import ResultOptions
from plainmcp.results import ToolError, ToolResult
from plainmcp.server import Server

__all__ = [
    "Annotations",
    "Audio",
    "CallToolResult",
    "Client",
    "ContentBlock",
    "ContentError",
    "EmbeddedResource",
    "File",
    "Icon",
    "Image",
    "McpError",
    "ResourceLink",
    "ResultOptions",
    "Server",
    "Text",
    "ToolError",
    "ToolInfo",
    "ToolResult",
]
