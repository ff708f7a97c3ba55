"""The client: a session (session.py; over HTTP: http.py), its typed results (results.py) and
errors (errors.py)."""

from plainmcp.client.errors import CONNECTION_CLOSED, ConnectionClosed, McpError, SessionExpired
from plainmcp.client.results import (
    CallToolResult,
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
    "ConnectionClosed",
    "McpError",
    "ServerInfo",
    "SessionExpired",
    "ToolInfo",
    "UnknownContent",
    "parse_block",
    "parse_call_result",
    "parse_tool",
]
