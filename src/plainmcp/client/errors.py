"""What a client call raises: a JSON-RPC error from the server, or the connection closing."""

from __future__ import annotations

from typing import Any

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
