"""What a client call raises: a JSON-RPC error from the server, or the connection closing
(a tool's own failure, ToolCallError, is results.py's: it carries the result)."""

from __future__ import annotations

from typing import Any

import orjson

from plainmcp.wire.jsonrpc import INTERNAL_ERROR

CONNECTION_CLOSED = -32000


class McpError(Exception):
    """A JSON-RPC error answered by the server (or the connection failing under a request)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.data = data


class ConnectionClosed(McpError):
    """The server went away before answering; `returncode` is its exit status when known."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(CONNECTION_CLOSED, message)
        self.returncode = returncode


def bad_reply(what: str) -> McpError:
    """A reply the server should not have sent (not the shape its method's result has)."""
    return McpError(INTERNAL_ERROR, f"Invalid response from server: {what}")


class SessionExpired(ConnectionClosed):
    """An HTTP server answered 404 to the session's id: it ended or forgot the session, and a
    new `Client` has to initialize another."""


def http_error(status: int, body: bytes) -> McpError:
    """A refused HTTP request as an McpError: the JSON-RPC error in its body, when it has one."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), int):
        message = str(error.get("message", ""))
        return McpError(error["code"], f"HTTP {status}: {message}", error.get("data"))
    if isinstance(error, str):  # an OAuth error: {"error": ..., "error_description": ...}
        description = parsed.get("error_description")
        text = f"{error}: {description}" if description else error
    else:
        text = body.decode(errors="replace").strip()[:200]
    return McpError(INTERNAL_ERROR, f"HTTP {status}: {text}" if text else f"HTTP {status}")


REQUEST_TIMEOUT = -32001
"""The code of a request the client gave up waiting for (the official SDKs use it too)."""


class RequestTimeout(McpError):
    """No answer within the request's timeout; the server was told to cancel it."""

    def __init__(self, message: str) -> None:
        super().__init__(REQUEST_TIMEOUT, message)


class ProtocolViolation(ConnectionClosed):
    """The server sent something that is not MCP (a malformed line, a message over the
    client's size limit): the connection cannot be trusted any more and is closed."""


def too_large(limit: int) -> ProtocolViolation:
    return ProtocolViolation(
        f"The server sent a message over the client's limit of {limit} bytes (max_message_size)"
    )


class TaskNotFound(McpError):
    """The server knows no task by this id (never made, expired, or another principal's)."""

    def __init__(self, task_id: str, error: McpError) -> None:
        super().__init__(error.code, f"No task {task_id!r}: {error.message}", error.data)
        self.task_id = task_id


class TaskFailed(McpError):
    """A task ended `failed`: a protocol error (`code`, `message`, `data` are the JSON-RPC
    error's), not the tool's own (that is a result with `is_error`)."""

    def __init__(self, task_id: str, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.task_id = task_id


class TaskCancelled(McpError):
    """A task ended `cancelled`: it has no result."""

    def __init__(self, task_id: str, message: str | None = None) -> None:
        super().__init__(INTERNAL_ERROR, message or f"Task {task_id!r} was cancelled")
        self.task_id = task_id
