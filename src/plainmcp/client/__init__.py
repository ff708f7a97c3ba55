"""The client: a session (session.py; over HTTP: http.py), its typed results (results.py;
structured values: structured.py, hydrate.py) and errors (errors.py)."""

from plainmcp.client.errors import (
    CONNECTION_CLOSED,
    ConnectionClosed,
    McpError,
    SessionExpired,
    ToolCallError,
)
from plainmcp.client.hydrate import plain
from plainmcp.client.results import (
    CallToolResult,
    Completion,
    Page,
    PromptArgumentInfo,
    PromptInfo,
    ReadResourceResult,
    ResourceInfo,
    ResourceTemplateInfo,
    ServerInfo,
    ToolInfo,
    UnknownContent,
    parse_block,
    parse_call_result,
    parse_tool,
)
from plainmcp.client.session import Client

__all__ = [
    "CONNECTION_CLOSED",
    "CallToolResult",
    "Client",
    "Completion",
    "ConnectionClosed",
    "McpError",
    "Page",
    "PromptArgumentInfo",
    "PromptInfo",
    "ReadResourceResult",
    "ResourceInfo",
    "ResourceTemplateInfo",
    "ServerInfo",
    "SessionExpired",
    "ToolCallError",
    "ToolInfo",
    "UnknownContent",
    "parse_block",
    "parse_call_result",
    "parse_tool",
    "plain",
]
