"""The extension seam (plainmcp.extensions): an extension defined here, not in the package,
adds a method, its entry under `capabilities.extensions`, a notification kind, a `_meta` key and
a result hook, without a core module knowing it. Its method exists only for a client that
negotiated it; every other client is answered -32601.

Exercised in memory (the Client, and raw lines on a connection) and over HTTP, with exact
messages. What the server writes is validated against the 2026-07-28 schema: its own results
and notifications are outside the core schema's unions, so they are checked against the
envelope (JSONRPCResultResponse, JSONRPCNotification) and the core results against their own
definitions. The raw tests use `Unvalidated` so that conftest's per-connection check, which
knows only core methods, does not judge the extension's messages: this module checks them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import orjson
import pytest

from plainmcp import Context, Server
from plainmcp.client import Client, McpError
from plainmcp.components import Components
from plainmcp.exchange import Exchange
from plainmcp.extensions import Extension, Handler, ResultHook, client_extensions, notify
from plainmcp.middleware import Middleware, NextRequest, RequestInfo
from plainmcp.wire.methods import Method, Param
from tests.mcp_schemas import validate_definition, validate_server_message
from tests.transports.http.asgi import meta, request, stateless_headers

pytestmark = pytest.mark.anyio

STATELESS = "2026-07-28"
ECHO = "com.example/echo"
ECHOED = "notifications/com.example/echoed"
SEEN = "com.example/seen"


@dataclasses.dataclass(frozen=True)
class EchoSettings:
    shout: bool = False


class Echo(Extension):
    """Echoes text back (louder, if its settings say so), tells the client it did, and marks
    tool results for the clients that negotiated it."""

    id = "com.example/echo"
    notifications = frozenset({ECHOED})
    meta_keys = frozenset({SEEN})

    def __init__(self, settings: EchoSettings = EchoSettings()) -> None:
        self.settings = settings

    def capability(self) -> Mapping[str, Any]:
        return {"shout": self.settings.shout}

    def methods(self) -> Sequence[tuple[Method, Handler]]:
        row = Method(ECHO, params=(Param("text", "string", required=True),), since=STATELESS)
        return [(row, self.echo)]

    async def echo(self, core: Components, ex: Exchange) -> dict[str, Any]:
        text: str = ex.params["text"]
        await notify(ex, self, ECHOED, {"length": len(text)})
        mine = client_extensions(ex)[self.id]
        return {"text": text.upper() if self.settings.shout else text, "_meta": {SEEN: mine}}

    def result_hooks(self) -> Mapping[str, ResultHook]:
        return {"tools/call": self.mark}

    def mark(self, ex: Exchange, result: dict[str, Any]) -> dict[str, Any]:
        return {**result, "_meta": {**result.get("_meta", {}), SEEN: True}}


def make_app(cls: type[Server] = Server, **options: Any) -> Server:
    app = cls("ext", version="1.0.0", extensions=[Echo(EchoSettings(shout=True))], **options)

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    @app.tool
    def mine(ctx: Context) -> dict[str, Any]:
        """The client's extensions, as a tool reads them from its Context."""
        return dict(client_extensions(ctx))

    return app


class Unvalidated(Server):
    connect = Server.connect  # the original: conftest's check patches Server's, not this one's


def envelope(**capabilities: Any) -> dict[str, Any]:
    return {"_meta": meta(capabilities=capabilities)}


NEGOTIATED = envelope(extensions={ECHO: {"volume": 11}})
SERVER_INFO = {"name": "ext", "version": "1.0.0"}


async def lines(app: Server, *messages: dict[str, Any], expect: int) -> list[Any]:
    """The first `expect` messages the server writes for `messages`, sent as lines."""
    out: list[Any] = []
    got = anyio.Event()

    async def send(data: bytes) -> None:
        out.append(orjson.loads(data))
        if len(out) == expect:
            got.set()

    async with anyio.create_task_group() as tasks:
        conn = app.connect(send)
        conn.bind(tasks)
        for message in messages:
            await conn.receive(orjson.dumps({"jsonrpc": "2.0", **message}))
        with anyio.fail_after(5):
            await got.wait()
        conn.close()
        tasks.cancel_scope.cancel()
    return out


# --- announced ---------------------------------------------------------------------------


async def test_discover_announces_the_extension_with_its_settings() -> None:
    async with Client.memory(make_app(), protocol=STATELESS) as client:
        found = await client.request("server/discover")
    assert found["capabilities"] == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},  # offloaded payloads
        "extensions": {ECHO: {"shout": True}},
    }


async def test_a_handshake_revision_is_not_offered_it() -> None:
    [answer] = await lines(
        make_app(),
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"extensions": {ECHO: {}}},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        expect=1,
    )
    assert answer["result"]["capabilities"] == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
    }


# --- served only to a client that negotiated it ------------------------------------------


async def test_a_client_that_did_not_negotiate_it_is_answered_method_not_found() -> None:
    async with Client.memory(make_app(), protocol=STATELESS) as client:
        with pytest.raises(McpError) as raised:
            await client.request(ECHO, {"text": "hi"})
        added = await client.call_tool("add", {"a": 1, "b": 2})
    assert (raised.value.code, raised.value.message) == (-32601, f"Method not found: {ECHO}")
    assert added.meta is None or SEEN not in added.meta


async def test_a_negotiated_call_is_served_and_its_notification_sent() -> None:
    app = make_app(Unvalidated)
    request_ = {"id": 7, "method": ECHO, "params": {"text": "hi", **NEGOTIATED}}
    sent = await lines(app, request_, expect=2)
    assert sent == [
        {
            "jsonrpc": "2.0",
            "method": ECHOED,
            "params": {"length": 2},
        },
        {
            "jsonrpc": "2.0",
            "id": 7,
            "result": {
                "text": "HI",
                "_meta": {SEEN: {"volume": 11}, "io.modelcontextprotocol/serverInfo": SERVER_INFO},
                "resultType": "complete",
            },
        },
    ]
    validate_definition(sent[0], STATELESS, "JSONRPCNotification")
    validate_server_message(sent[1], STATELESS)


async def test_params_are_checked_from_its_row_of_the_table() -> None:
    sent = await lines(
        make_app(Unvalidated), {"id": 1, "method": ECHO, "params": NEGOTIATED}, expect=1
    )
    assert sent == [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32602, "message": "Invalid params: text must be a string"},
        }
    ]
    validate_server_message(sent[0], STATELESS)


async def test_the_result_hook_marks_tool_results_of_negotiating_clients_only() -> None:
    call = {"name": "add", "arguments": {"a": 1, "b": 2}}
    sent = await lines(
        make_app(Unvalidated),
        {"id": 1, "method": "tools/call", "params": {**call, **NEGOTIATED}},
        {"id": 2, "method": "tools/call", "params": {**call, **envelope()}},
        expect=2,
    )
    by_id = {m["id"]: m["result"] for m in sent}
    for result in by_id.values():
        validate_definition(result, STATELESS, "CallToolResult")
    assert by_id[1]["_meta"] == {"io.modelcontextprotocol/serverInfo": SERVER_INFO, SEEN: True}
    assert by_id[2]["_meta"] == {"io.modelcontextprotocol/serverInfo": SERVER_INFO}


async def test_a_tool_reads_the_clients_extensions_from_its_context() -> None:
    call = {"name": "mine", "arguments": {}}
    [sent] = await lines(
        make_app(Unvalidated),
        {"id": 1, "method": "tools/call", "params": {**call, **NEGOTIATED}},
        expect=1,
    )
    validate_server_message(sent, STATELESS, method="tools/call")
    assert sent["result"]["structuredContent"] == {ECHO: {"volume": 11}}


async def test_middleware_wraps_the_extension_method_too() -> None:
    seen: list[str] = []

    class Look(Middleware):
        async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
            seen.append(request.method)
            return await call_next(request)

    app = make_app(Unvalidated, middleware=[Look()])
    await lines(app, {"id": 1, "method": ECHO, "params": {"text": "a", **NEGOTIATED}}, expect=2)
    assert seen == [ECHO]


# --- over HTTP ---------------------------------------------------------------------------


async def test_over_http_only_a_negotiating_request_is_served() -> None:
    http = make_app(Unvalidated).http_app(sessions=None)
    served = await request(
        http,
        body={"jsonrpc": "2.0", "id": 1, "method": ECHO, "params": {"text": "yo", **NEGOTIATED}},
        headers=stateless_headers(ECHO),
        revision=STATELESS,
    )
    refused = await request(
        http,
        body={"jsonrpc": "2.0", "id": 2, "method": ECHO, "params": {"text": "yo", **envelope()}},
        headers=stateless_headers(ECHO),
        revision=STATELESS,
    )
    assert served.status == 200
    # Read without Call's validation, which knows only the core's notifications: checked below.
    events = [orjson.loads(block["data"]) for block in served.blocks() if block.get("data")]
    assert events == [
        {"jsonrpc": "2.0", "method": ECHOED, "params": {"length": 2}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "text": "YO",
                "_meta": {SEEN: {"volume": 11}, "io.modelcontextprotocol/serverInfo": SERVER_INFO},
                "resultType": "complete",
            },
        },
    ]
    validate_definition(events[0], STATELESS, "JSONRPCNotification")
    validate_server_message(events[1], STATELESS)
    assert refused.json() == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": -32601, "message": f"Method not found: {ECHO}"},
    }


# --- refused at construction -------------------------------------------------------------


class Taken(Extension):
    id = "com.example/taken"

    def methods(self) -> Sequence[tuple[Method, Handler]]:
        async def nothing(core: Components, ex: Exchange) -> dict[str, Any]:
            return {}

        return [(Method("tools/call"), nothing)]


class Reserved(Extension):
    id = "com.example/reserved"
    meta_keys = frozenset({"io.modelcontextprotocol/serverInfo"})


class Bare(Extension):
    id = "nameless"


@pytest.mark.parametrize(
    ("extensions", "message"),
    [
        ([Echo(), Echo()], "two extensions have the id 'com.example/echo'"),
        ([Taken()], "extension 'com.example/taken': the method 'tools/call' is taken"),
        (
            [Reserved()],
            "extension 'com.example/reserved': 'io.modelcontextprotocol/serverInfo' is taken",
        ),
        ([Bare()], "an extension id is a prefixed name (vendor/name), not 'nameless'"),
    ],
)
def test_extensions_that_collide_are_refused(extensions: list[Extension], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        Server("s", extensions=extensions)
    assert str(raised.value) == message


async def test_an_undeclared_notification_is_refused() -> None:
    class Loose(Echo):
        notifications = frozenset()

    app = Server("s", extensions=[Loose()])
    sent = await lines(
        app,
        {"id": 1, "method": ECHO, "params": {"text": "a", **envelope(extensions={ECHO: {}})}},
        expect=1,
    )
    assert sent == [
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "Internal error"}}
    ]


# --- what the protocol's own extensions add: wrappers, core capabilities, refusals ---------------


class Stamp(Extension):
    """Wraps tools/call: a call of the tool `stamped` is answered by the wrapper itself
    (an Answered value, which the rendering step only finishes), any other passes through; adds
    a top-level capability at 2025-11-25 and answers its own method with -32021 when refused."""

    id = "com.example/stamp"

    def wraps(self) -> Mapping[str, Any]:
        def wrap(method: Method, handler: Handler, render: Any) -> Handler:
            async def stamped(core: Any, ex: Exchange) -> Any:
                from plainmcp.extensions import Answered

                if ex.request.params["name"] == "stamped":
                    return Answered({"content": [{"type": "text", "text": "stamp"}]})
                return await handler(core, ex)

            return stamped

        return {"tools/call": wrap}

    def core_capabilities(self, rev: Any) -> Mapping[str, Any]:
        return {"experimental": {"stamp": {}}} if rev.version == "2025-11-25" else {}


async def test_a_wrapper_answers_or_passes_a_core_call_on() -> None:
    app = Server("stamps", extensions=[Stamp()], continuation=None)

    @app.tool
    def stamped() -> str:
        return "the tool itself"

    @app.tool
    def plain() -> str:
        return "plain"

    async with Client.memory(app, protocol="2025-11-25") as client:
        assert (await client.call_tool("stamped")).text == "stamp"
        assert (await client.call_tool("plain")).text == "plain"
        assert client.capabilities["experimental"] == {"stamp": {}}


def test_a_wrapper_of_no_core_method_is_refused() -> None:
    class Lost(Extension):
        id = "com.example/lost"

        def wraps(self) -> Mapping[str, Any]:
            return {"nothing/here": lambda method, handler, render: handler}

    with pytest.raises(ValueError, match="wraps no core method 'nothing/here'"):
        Server("lost", extensions=[Lost()])


# --- bind: what an extension registers on the server -----------------------------------------


class Clock(Extension):
    """Registers a tool and a resource on the server it is given to, through the server's own
    methods, and records each server it was bound to."""

    id = "com.example/clock"

    def __init__(self) -> None:
        self.bound: list[Server] = []

    def bind(self, server: Server) -> None:
        self.bound.append(server)
        server.add_tool(self.now, name="clock_now")
        server.add_resource("noon", "clock://now", name="now")

    def now(self) -> str:
        return "noon"


async def test_bind_is_called_once_with_the_server_made_and_its_registrations_are_served() -> None:
    clock = Clock()
    app = Server("clocks", extensions=[clock], middleware=[Middleware()], continuation=None)
    assert clock.bound == [app]
    assert list(app.tools) == ["clock_now"]
    async with Client.memory(app, protocol="2025-11-25") as client:
        assert (await client.call_tool("clock_now")).text == "noon"
        listed = await client.request("resources/list")
        assert listed["resources"] == [
            {"uri": "clock://now", "name": "now", "mimeType": "text/plain", "size": 4}
        ]


def test_an_extension_that_overrides_nothing_binds_to_nothing() -> None:
    app = Server("plain", extensions=[Echo()], continuation=None)
    assert (list(app.tools), len(app.resources)) == ([], 0)
