"""Required scopes on tools, resources and prompts, in process: registration, the check a
principal meets, and lists that hide what it cannot call (the HTTP 403 is in
tests/transports/http/test_scopes.py)."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from plainmcp import Context, Principal, Server
from plainmcp.client import McpError
from plainmcp.middleware import Timing
from plainmcp.testing import connect
from tests.conftest import Session

pytestmark = pytest.mark.anyio

READER = Principal("reader", frozenset({"notes:read"}))
ADMIN = Principal("admin", frozenset({"notes:read", "notes:admin"}))


def make_server(**options: Any) -> Server:
    app = Server("scoped", continuation=None, **options)

    @app.tool
    def hello() -> str:
        return "hello"

    @app.tool(scopes=["notes:admin"])
    def purge(ctx: Context) -> str:
        return f"purged by {ctx.principal.subject}"

    @app.resource("notes://all", scopes=["notes:admin"])
    def everything() -> str:
        return "all notes"

    @app.resource("notes://public")
    def public() -> str:
        return "public notes"

    @app.resource("notes://by-id/{note}", scopes=["notes:read"])
    def note(note: str) -> str:
        return f"note {note}"

    @app.prompt(scopes=["notes:admin", "notes:read"])
    def audit(area: Literal["everything", "errors"] = "everything") -> str:
        return f"audit {area}"

    return app


def test_scopes_are_read_at_registration() -> None:
    app = make_server()
    assert app.tools["purge"].scopes == frozenset({"notes:admin"})
    assert app.tools["hello"].scopes == frozenset()
    assert app.prompts["audit"].scopes == frozenset({"notes:admin", "notes:read"})
    match = app.resources.match("notes://by-id/7")
    assert match is not None and match[0].scopes == frozenset({"notes:read"})


def test_a_scope_string_or_an_invalid_scope_is_refused_at_registration() -> None:
    app = Server("bad")
    with pytest.raises(TypeError, match="scopes= takes a list of scopes, not a string"):
        app.add_tool(lambda: 1, name="one", scopes="notes:admin")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"'has space' is not an OAuth scope"):
        app.add_resource("x", "notes://x", scopes=["has space"])
    with pytest.raises(ValueError, match=r"'q\"' is not an OAuth scope"):
        app.prompt(name="p", scopes=['q"'])(lambda: "p")


async def test_without_a_principal_scopes_are_not_enforced() -> None:
    # stdio and the in-memory client authenticate nobody: the process's user may call all.
    async with connect(make_server()) as client:
        result = await client.call_tool("hello")
        assert result.content[0].text == "hello"  # type: ignore[union-attr]
        read = await client.request("resources/read", {"uri": "notes://all"})
        assert read["contents"][0]["text"] == "all notes"


async def test_a_principal_lacking_a_scope_gets_a_json_rpc_error_naming_it() -> None:
    async with connect(make_server(), principal=READER) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool("purge")
        assert (refused.value.code, refused.value.message, refused.value.data) == (
            -32600,
            "Forbidden: tool 'purge' requires scope notes:admin",
            {"requiredScopes": ["notes:admin"]},
        )
        with pytest.raises(McpError) as prompt:
            await client.request("prompts/get", {"name": "audit"})
        assert prompt.value.message == "Forbidden: prompt 'audit' requires scope notes:admin"
        assert prompt.value.data == {"requiredScopes": ["notes:admin", "notes:read"]}
        with pytest.raises(McpError) as read:
            await client.request("resources/read", {"uri": "notes://all"})
        assert read.value.message == "Forbidden: resource 'notes://all' requires scope notes:admin"
        note = await client.request("resources/read", {"uri": "notes://by-id/7"})
        assert note["contents"][0]["text"] == "note 7"


def complete(ref: dict[str, str], argument: str) -> dict[str, Any]:
    return {"ref": ref, "argument": {"name": argument, "value": "e"}}


async def test_completing_a_scoped_prompt_or_template_needs_its_scopes() -> None:
    prompt = complete({"type": "ref/prompt", "name": "audit"}, "area")
    template = complete({"type": "ref/resource", "uri": "notes://by-id/{note}"}, "note")
    async with connect(make_server(), principal=Principal("nobody")) as client:
        with pytest.raises(McpError) as refused:
            await client.request("completion/complete", prompt)
        assert (refused.value.code, refused.value.message, refused.value.data) == (
            -32600,
            "Forbidden: prompt 'audit' requires scope notes:admin notes:read",
            {"requiredScopes": ["notes:admin", "notes:read"]},
        )
        with pytest.raises(McpError) as template_refused:
            await client.request("completion/complete", template)
        assert (template_refused.value.message, template_refused.value.data) == (
            "Forbidden: resource template 'notes://by-id/{note}' requires scope notes:read",
            {"requiredScopes": ["notes:read"]},
        )
        # Refused before the argument is looked up: a lacking principal learns no names.
        with pytest.raises(McpError) as unknown_argument:
            await client.request(
                "completion/complete", complete({"type": "ref/prompt", "name": "audit"}, "x")
            )
        assert unknown_argument.value.message.startswith("Forbidden: prompt 'audit'")
    async with connect(make_server(), principal=ADMIN) as client:
        completed = await client.request("completion/complete", prompt)
        assert completed["completion"]["values"] == ["everything", "errors"]
        note = await client.request("completion/complete", template)
        assert note["completion"]["values"] == []


async def test_subscribing_to_a_scoped_resource_needs_its_scopes() -> None:
    async with connect(make_server(), principal=READER) as client:
        with pytest.raises(McpError) as refused:
            await client.request("resources/subscribe", {"uri": "notes://all"})
        assert (refused.value.code, refused.value.message, refused.value.data) == (
            -32600,
            "Forbidden: resource 'notes://all' requires scope notes:admin",
            {"requiredScopes": ["notes:admin"]},
        )
        assert await client.request("resources/subscribe", {"uri": "notes://by-id/7"}) == {}
    async with connect(make_server(), principal=ADMIN) as client:
        assert await client.request("resources/subscribe", {"uri": "notes://all"}) == {}


async def test_a_principal_holding_the_scopes_calls_and_the_tool_sees_it() -> None:
    async with connect(make_server(), principal=ADMIN) as client:
        result = await client.call_tool("purge")
        assert result.content[0].text == "purged by admin"  # type: ignore[union-attr]
        got = await client.request("prompts/get", {"name": "audit"})
        assert got["messages"][0]["content"]["text"] == "audit everything"


async def lists(client: Any) -> dict[str, list[str]]:
    tools = await client.request("tools/list")
    prompts = await client.request("prompts/list")
    resources = await client.request("resources/list")
    templates = await client.request("resources/templates/list")
    return {
        "tools": [t["name"] for t in tools["tools"]],
        "prompts": [p["name"] for p in prompts["prompts"]],
        "resources": [r["uri"] for r in resources["resources"]],
        "templates": [t["uriTemplate"] for t in templates["resourceTemplates"]],
    }


EVERYTHING = {
    "tools": ["hello", "purge"],
    "prompts": ["audit"],
    "resources": ["notes://all", "notes://public"],
    "templates": ["notes://by-id/{note}"],
}


async def test_lists_show_everything_unless_hide_unauthorized() -> None:
    async with connect(make_server(), principal=Principal("nobody")) as client:
        assert await lists(client) == EVERYTHING


async def test_hide_unauthorized_lists_only_what_the_principal_may_call() -> None:
    app = make_server(hide_unauthorized=True)
    async with connect(app, principal=Principal("nobody")) as client:
        assert await lists(client) == {
            "tools": ["hello"],
            "prompts": [],
            "resources": ["notes://public"],
            "templates": [],
        }
    async with connect(app, principal=READER) as client:
        assert await lists(client) == {
            "tools": ["hello"],
            "prompts": [],
            "resources": ["notes://public"],
            "templates": ["notes://by-id/{note}"],
        }
    async with connect(app, principal=ADMIN) as client:
        assert await lists(client) == EVERYTHING
    async with connect(app) as client:  # no principal (stdio): nothing is hidden
        assert await lists(client) == EVERYTHING


def test_hide_unauthorized_makes_the_lists_cache_scope_private() -> None:
    assert make_server(hide_unauthorized=True).cache.scope == "private"
    assert make_server().cache.scope == "public"


async def test_hidden_tools_are_paged_after_filtering() -> None:
    app = Server("paged", hide_unauthorized=True, page_size=2, continuation=None)
    for i in range(5):
        app.add_tool(lambda i=i: i, name=f"t{i}", scopes=["x"] if i % 2 else None)
    async with connect(app, principal=Principal("p")) as client:
        assert [t.name for t in await client.list_tools()] == ["t0", "t2", "t4"]
        first = await client.request("tools/list")
        assert [t["name"] for t in first["tools"]] == ["t0", "t2"]
        assert "nextCursor" in first


async def test_scopes_hold_when_the_request_goes_through_middleware() -> None:
    """A tools/call under middleware reaches the tool through the pipeline, not the handler:
    the scope check sits where both meet."""
    async with connect(make_server(middleware=[Timing()]), principal=READER) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool("purge")
        assert (refused.value.code, refused.value.message) == (
            -32600,
            "Forbidden: tool 'purge' requires scope notes:admin",
        )
        with pytest.raises(McpError) as read:
            await client.request("resources/read", {"uri": "notes://all"})
        assert read.value.message == "Forbidden: resource 'notes://all' requires scope notes:admin"
    async with connect(make_server(middleware=[Timing()]), principal=ADMIN) as client:
        result = await client.call_tool("purge")
        assert result.content[0].text == "purged by admin"  # type: ignore[union-attr]


async def test_a_listen_stream_drops_resource_subscriptions_the_principal_may_not_read() -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    async with Session(make_server(), revision_hint="2026-07-28") as s:
        s.conn.principal = READER
        wanted = {"resourceSubscriptions": ["notes://all", "notes://by-id/7"]}
        await s.start("subscriptions/listen", {"notifications": wanted, "_meta": meta})
        acknowledged = await s.wait_for(
            lambda m: m.get("method") == "notifications/subscriptions/acknowledged"
        )
        assert acknowledged["params"]["notifications"] == {
            "resourceSubscriptions": ["notes://by-id/7"]
        }
