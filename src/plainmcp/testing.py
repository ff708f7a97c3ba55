"""Helpers for testing your own servers without a subprocess.

from plainmcp.testing import call, connect

def test_add():
    assert call(app, "add", a=1, b=2).structured == {"result": 3}

async def test_tools():
    async with connect(app) as client:
        assert [t.name for t in await client.list_tools()] == ["add"]
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

import anyio

from plainmcp.client import CallToolResult, Client, ToolInfo
from plainmcp.server import Server
from plainmcp.wire.revisions import LATEST_HANDSHAKE

__all__ = ["call", "connect", "list_tools"]


def connect(
    app: Server, *, protocol_version: str = LATEST_HANDSHAKE, principal: Any = None
) -> AbstractAsyncContextManager[Client]:
    """An initialized in-memory client session with `app` (`async with connect(app) as c:`);
    `principal` authenticates it (a `plainmcp.Principal`: its scopes are checked)."""
    return Client.memory(app, protocol_version=protocol_version, principal=principal)


def call(
    app: Server,
    name: str,
    arguments: dict[str, Any] | None = None,
    /,
    *,
    protocol_version: str = LATEST_HANDSHAKE,
    **kwargs: Any,
) -> CallToolResult:
    """Call one tool synchronously: `call(app, "add", a=1, b=2)` or `call(app, "add", {...})`."""

    async def run() -> CallToolResult:
        async with connect(app, protocol_version=protocol_version) as client:
            return await client.call_tool(name, {**(arguments or {}), **kwargs})

    return anyio.run(run)


def list_tools(app: Server, *, protocol_version: str = LATEST_HANDSHAKE) -> list[ToolInfo]:
    """The tools `app` lists, synchronously."""

    async def run() -> list[ToolInfo]:
        async with connect(app, protocol_version=protocol_version) as client:
            return await client.list_tools()

    return anyio.run(run)
