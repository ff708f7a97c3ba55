"""Per-function scopes over HTTP: a call whose token lacks them is a 403 with the step-up
challenge (RFC 6750 §3.1), decided before the call starts, so also where the reply would have
been a stream; in either era, and for a whole batch."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from plainmcp import Context, Server
from plainmcp.transports.http import BearerAuth, HttpApp, Principal
from tests.transports.http.asgi import STATELESS, meta, request, stateless_headers

pytestmark = pytest.mark.anyio

METADATA = "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
TOKENS = {
    "reader": Principal("reader", frozenset({"mcp", "notes:read"})),
    "admin": Principal("admin", frozenset({"mcp", "notes:read", "notes:admin"})),
    "auditor": Principal("auditor", frozenset({"mcp", "notes:admin", "notes:audit"})),
}


def challenge(scope: str, lacking: str) -> str:
    return (
        f'Bearer error="insufficient_scope", scope="{scope}", resource_metadata="{METADATA}",'
        f' error_description="the token lacks scope {lacking}"'
    )


def make_app(**auth: Any) -> HttpApp:
    app = Server("scoped-http")

    @app.tool(scopes=["notes:admin"])
    async def purge(ctx: Context) -> str:
        await ctx.report_progress(1, 2)  # the reply becomes a stream once this is sent
        return f"purged by {ctx.principal.subject}"

    @app.tool
    def hello() -> str:
        return "hello"

    @app.resource("notes://by-id/{note}", scopes=["notes:admin", "notes:audit"])
    def note(note: str) -> str:
        return note

    return app.http_app(auth=BearerAuth(TOKENS.get, ["https://as.example.com"], **auth))


def rpc(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def session(http: HttpApp, token: str, version: str = "2025-11-25") -> dict[str, str]:
    init = rpc(
        1,
        "initialize",
        protocolVersion=version,
        capabilities={},
        clientInfo={"name": "t", "version": "0"},
    )
    auth = {"authorization": f"Bearer {token}"}
    call = await request(http, body=init, headers=auth)
    assert call.status == 200
    return {
        **auth,
        "mcp-session-id": call.headers["mcp-session-id"],
        "mcp-protocol-version": version,
    }


async def test_a_call_lacking_the_tools_scope_is_403_with_the_step_up_challenge() -> None:
    http = make_app()
    headers = await session(http, "reader")
    call = await request(
        http,
        body=rpc(2, "tools/call", name="purge", arguments={}, _meta={"progressToken": "p"}),
        headers=headers,
    )
    assert call.status == 403
    assert call.headers["www-authenticate"] == challenge("notes:admin", "notes:admin")
    # An OAuth error body, as the 401 and 403 of the endpoint's own checks have.
    assert orjson.loads(call.body) == {
        "error": "insufficient_scope",
        "error_description": "the token lacks scope notes:admin",
    }
    # The same session's other tools still answer.
    hello = await request(http, body=rpc(3, "tools/call", name="hello"), headers=headers)
    assert (hello.status, hello.json()["result"]["content"]) == (
        200,
        [{"type": "text", "text": "hello"}],
    )


async def test_with_the_scope_the_call_streams_as_before() -> None:
    http = make_app()
    headers = await session(http, "admin")
    call = await request(
        http,
        body=rpc(2, "tools/call", name="purge", arguments={}, _meta={"progressToken": "p"}),
        headers=headers,
    )
    assert (call.status, call.content_type) == (200, "text/event-stream")
    progress, reply = call.events()
    assert progress["method"] == "notifications/progress"
    assert reply["result"]["content"] == [{"type": "text", "text": "purged by admin"}]


async def test_the_challenge_asks_for_the_endpoints_scopes_and_the_functions() -> None:
    http = make_app(required_scopes=["mcp"])
    headers = await session(http, "reader")
    call = await request(
        http, body=rpc(2, "resources/read", uri="notes://by-id/1"), headers=headers
    )
    assert call.status == 403
    assert call.headers["www-authenticate"] == challenge(
        "mcp notes:admin notes:audit", "notes:admin notes:audit"
    )


async def test_a_stateless_call_lacking_the_scope_is_403() -> None:
    http = make_app()
    call = await request(
        http,
        body=rpc(7, "tools/call", name="purge", arguments={}, _meta=meta()),
        headers={**stateless_headers("tools/call", "purge"), "authorization": "Bearer reader"},
        revision=STATELESS,
    )
    assert call.status == 403
    assert call.headers["www-authenticate"] == challenge("notes:admin", "notes:admin")


async def test_a_batch_with_one_refused_call_is_refused_whole() -> None:
    http = make_app()
    headers = await session(http, "reader", version="2025-03-26")
    batch = [rpc(2, "tools/call", name="hello"), rpc(3, "tools/call", name="purge")]
    call = await request(http, body=batch, headers=headers, revision="2025-03-26")
    assert call.status == 403
    assert call.headers["www-authenticate"] == challenge("notes:admin", "notes:admin")


async def test_completing_or_subscribing_to_a_scoped_template_is_403_as_reading_it() -> None:
    http = make_app()
    asked = {
        "completion/complete": {
            "ref": {"type": "ref/resource", "uri": "notes://by-id/{note}"},
            "argument": {"name": "note", "value": "1"},
        },
        "resources/subscribe": {"uri": "notes://by-id/1"},
    }
    reader = await session(http, "reader")
    for method, params in asked.items():
        call = await request(http, body=rpc(2, method, **params), headers=reader)
        assert (call.status, call.headers["www-authenticate"]) == (
            403,
            challenge("notes:admin notes:audit", "notes:admin notes:audit"),
        )
    auditor = await session(http, "auditor")
    completed = await request(
        http, body=rpc(2, "completion/complete", **asked["completion/complete"]), headers=auditor
    )
    assert (completed.status, completed.json()["result"]["completion"]["values"]) == (200, [])
    subscribed = await request(
        http, body=rpc(3, "resources/subscribe", **asked["resources/subscribe"]), headers=auditor
    )
    assert (subscribed.status, subscribed.json()["result"]) == (200, {})
