"""sessions=None: handshake-era requests each stand alone, under their header's revision."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import Context, Server
from tests.transports.http.asgi import request

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_app() -> Any:
    app = Server("sessionless", "1.0.0")

    @app.tool
    def shout(text: str) -> str:
        return text.upper()

    @app.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {}})
        return str(answer.action)

    return app.http_app(sessions=None)


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


async def test_initialize_opens_no_session() -> None:
    app = make_app()
    reply = await request(app, body=INIT, revision="2025-06-18")
    assert reply.status == 200
    assert "mcp-session-id" not in reply.headers
    assert reply.json()["result"]["protocolVersion"] == "2025-06-18"
    assert len(app.sessions) == 0


async def test_a_request_stands_alone_under_its_header_revision() -> None:
    headers = {"mcp-protocol-version": "2025-06-18"}
    reply = await request(make_app(), body=call("shout", text="hi"), headers=headers)
    assert (reply.status, reply.json()) == (
        200,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"content": [{"type": "text", "text": "HI"}], "isError": False},
        },
    )


async def test_without_a_header_the_request_is_served_as_2025_03_26() -> None:
    batch = [call("shout", text="a"), {**call("shout", text="b"), "id": 3}]
    reply = await request(make_app(), body=batch, revision="2025-03-26")
    # A batch's replies may come in any order (JSON-RPC 2.0, section 6): match them by id.
    texts = {m["id"]: m["result"]["content"][0]["text"] for m in reply.json()}
    assert texts == {batch[0]["id"]: "A", 3: "B"}


async def test_the_server_sends_the_client_no_requests() -> None:
    headers = {"mcp-protocol-version": "2025-11-25"}
    reply = await request(make_app(), body=call("ask"), headers=headers)
    result = reply.json()["result"]
    assert result["isError"] is True
    assert result["content"] == [
        {
            "type": "text",
            "text": "Tool 'ask' failed: ClientCapabilityError: the client did not declare the"
            " 'elicitation' capability, so elicitation/create cannot be sent to it",
        }
    ]


async def test_get_and_delete_are_not_served() -> None:
    app = make_app()
    for method in ("GET", "DELETE"):
        reply = await request(app, method, headers={"mcp-protocol-version": "2025-11-25"})
        assert (reply.status, reply.headers["allow"]) == (405, "POST")
        assert reply.body == b"Method Not Allowed: this server keeps no sessions"


async def test_an_unknown_header_revision_is_400() -> None:
    reply = await request(
        make_app(), body=call("shout", text="x"), headers={"mcp-protocol-version": "1999-01-01"}
    )
    assert reply.status == 400
    assert (
        reply.json()["error"]["message"]
        == "Bad Request: unsupported MCP-Protocol-Version '1999-01-01'"
    )
