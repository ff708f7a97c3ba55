"""The client: a session (session.py; over HTTP: http.py), the revision it speaks (discover.py),
the callbacks answering the server's questions (callbacks.py), its notifications
(notifications.py, listen.py, stream.py), typed results (results.py) and errors (errors.py)."""

from plainmcp.client.callbacks import (
    CallbackError,
    Elicitation,
    ElicitResult,
    Root,
    SamplingMessage,
    SamplingRequest,
    SamplingResult,
)
from plainmcp.client.errors import (
    CONNECTION_CLOSED,
    ConnectionClosed,
    McpError,
    ProtocolViolation,
    RequestTimeout,
    SessionExpired,
)
from plainmcp.client.notifications import LogMessage, Progress
from plainmcp.client.options import ClientOptions
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
from plainmcp.client.stream import ToolCall

__all__ = [
    "CONNECTION_CLOSED",
    "CallToolResult",
    "CallbackError",
    "Client",
    "ClientOptions",
    "ConnectionClosed",
    "ElicitResult",
    "Elicitation",
    "LogMessage",
    "McpError",
    "Progress",
    "ProtocolViolation",
    "RequestTimeout",
    "Root",
    "SamplingMessage",
    "SamplingRequest",
    "SamplingResult",
    "ServerInfo",
    "SessionExpired",
    "ToolCall",
    "ToolInfo",
    "UnknownContent",
    "parse_block",
    "parse_call_result",
    "parse_tool",
]
