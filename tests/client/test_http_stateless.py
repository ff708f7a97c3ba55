"""Client.http at 2026-07-28: a stateless POST per request with its headers, no session, no
GET stream, no DELETE (against plainmcp's ASGI app, in-process)."""

from __future__ import annotations

import pytest

from plainmcp.client import Client
from tests.client.test_http import URL, Recording, app, served

pytestmark = pytest.mark.anyio

__all__ = ["served"]  # the fixture, shared with test_http.py


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_auto_over_http_speaks_2026_with_the_headers_of_each_request(
    served: tuple[object, Recording],
) -> None:
    _, recording = served
    async with Client.http(URL, transport=recording) as client:
        assert (client.protocol_version, client.server_info.name) == ("2026-07-28", app.name)
        assert (await client.call_tool("add", {"a": 2, "b": 3})).text == "5"
    seen = [
        (
            method,
            headers.get("mcp-session-id"),
            headers.get("mcp-protocol-version"),
            headers.get("mcp-method"),
            headers.get("mcp-name"),
        )
        for method, headers in recording.seen
    ]
    assert seen == [
        ("POST", None, "2026-07-28", "server/discover", None),
        ("POST", None, "2026-07-28", "tools/list", None),  # to learn x-mcp-header arguments
        ("POST", None, "2026-07-28", "tools/call", "add"),
    ]
