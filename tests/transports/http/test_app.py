"""The Streamable HTTP endpoint, driven in-process through ASGI (no sockets).

Each test reads the status, headers and every message the app writes; messages are validated
against the official schema of their revision by the driver (tests/transports/http/asgi.py).
"""

from __future__ import annotations

import base64
from typing import Annotated, Any

import anyio
import anyio.to_thread
import pytest

from plainmcp import Context, Header, Server
from plainmcp.transports.http import BearerAuth, HttpApp, Principal
from tests.transports.http.asgi import STATELESS, meta, open_call, request, stateless_headers

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


class Slow:
    """What the `slow` tool did: it says it started, then waits at `gate` until the test opens
    it, or until it is cancelled (made per test: anyio events belong to the test's loop)."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.started = anyio.Event()
        self.gate = anyio.Event()


def make_server(slow_trace: Slow) -> Server:
    app = Server("http-test", "1.0.0")

    @app.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @app.tool
    async def chatty(ctx: Context) -> str:
        """Reports progress and logs."""
        await ctx.report_progress(1, 2)
        await ctx.info("halfway")
        await ctx.report_progress(2, 2)
        return "done"

    @app.tool
    async def slow(ctx: Context) -> str:
        """Waits for the test's gate, or until cancelled."""
        slow_trace.events.append("slow started")
        slow_trace.started.set()
        try:
            await slow_trace.gate.wait()
        except anyio.get_cancelled_exc_class():
            slow_trace.events.append("slow cancelled")
            raise
        slow_trace.events.append("slow finished")
        return "finished"

    @app.tool
    async def ask_name(ctx: Context) -> str:
        """Asks the user for a name."""
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"{answer.action}: {answer.content}"

    @app.tool
    def whoami(ctx: Context) -> str:
        """Who the server authenticated."""
        return "nobody" if ctx.principal is None else ctx.principal.subject

    @app.tool
    def regional(region: Annotated[str, Header("Region")], query: str) -> str:
        """A tool whose region argument is mirrored in a header."""
        return f"{region}: {query}"

    @app.tool
    def broken() -> str:
        """Always raises."""
        raise RuntimeError("secret detail")

    return app


@pytest.fixture
async def slow() -> Slow:
    return Slow()


@pytest.fixture
def server(slow: Slow) -> Server:
    return make_server(slow)


@pytest.fixture
def http(server: Server) -> HttpApp:
    return server.http_app()


async def open_session(http: HttpApp) -> str:
    call = await request(http, body=INIT)
    assert call.status == 200
    session = call.headers["mcp-session-id"]
    note = await request(
        http,
        body={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers={"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
    )
    assert (note.status, note.body) == (202, b"")
    return session


def rpc(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def in_session(session: str, version: str = "2025-11-25") -> dict[str, str]:
    return {"mcp-session-id": session, "mcp-protocol-version": version}


# --- sessions (handshake revisions) ----------------------------------------------------------


async def test_initialize_issues_a_visible_ascii_session_id_and_answers_json(http: HttpApp) -> None:
    call = await request(http, body=INIT)
    assert call.status == 200
    assert call.content_type == "application/json"
    session = call.headers["mcp-session-id"]
    assert len(session) >= 16 and all(0x21 <= ord(c) <= 0x7E for c in session)
    result = call.json()["result"]
    assert result["protocolVersion"] == "2025-11-25"
    assert result["serverInfo"] == {"name": "http-test", "version": "1.0.0"}


async def test_each_initialize_gets_its_own_session(http: HttpApp) -> None:
    first, second = await open_session(http), await open_session(http)
    assert first != second


async def test_a_call_without_a_stream_is_plain_json(http: HttpApp) -> None:
    session = await open_session(http)
    call = await request(
        http,
        body=rpc(2, "tools/call", name="add", arguments={"a": 2, "b": 3}),
        headers=in_session(session),
    )
    assert (call.status, call.content_type) == (200, "application/json")
    assert call.json() == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "content": [{"type": "text", "text": "5"}],
            "structuredContent": {"result": 5},
            "isError": False,
        },
    }


async def test_progress_and_logs_travel_on_the_calls_own_stream(http: HttpApp) -> None:
    session = await open_session(http)
    call = await request(
        http,
        body=rpc(2, "tools/call", name="chatty", arguments={}, _meta={"progressToken": "p"}),
        headers=in_session(session),
    )
    assert call.status == 200
    assert call.content_type == "text/event-stream"
    assert call.headers["x-accel-buffering"] == "no"
    assert call.events() == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "p", "progress": 1, "total": 2},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "halfway"},
        },
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "p", "progress": 2, "total": 2},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {"content": [{"type": "text", "text": "done"}], "isError": False},
        },
    ]


async def test_elicitation_goes_out_on_the_call_stream_and_the_answer_comes_back_by_post(
    http: HttpApp,
) -> None:
    session = await open_session(http)
    async with open_call(
        http, body=rpc(2, "tools/call", name="ask_name", arguments={}), headers=in_session(session)
    ) as call:
        asked = await call.next_event()
        assert asked == {
            "jsonrpc": "2.0",
            "id": asked["id"],
            "method": "elicitation/create",
            "params": {
                "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
            },
        }
        answer = await request(
            http,
            body={
                "jsonrpc": "2.0",
                "id": asked["id"],
                "result": {"action": "accept", "content": {"name": "Ada"}},
            },
            headers=in_session(session),
        )
        assert (answer.status, answer.body) == (202, b"")
        assert await call.next_event() == {
            "jsonrpc": "2.0",
            "id": 2,
            "result": {
                "content": [{"type": "text", "text": "accept: {'name': 'Ada'}"}],
                "isError": False,
            },
        }


async def test_a_session_is_required_after_initialize(http: HttpApp) -> None:
    missing = await request(http, body=rpc(2, "tools/list"))
    assert missing.status == 400
    assert missing.json() == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": -32600, "message": "Bad Request: Mcp-Session-Id header is required"},
    }
    unknown = await request(http, body=rpc(2, "tools/list"), headers=in_session("nope"))
    assert unknown.status == 404
    assert unknown.json()["error"] == {
        "code": -32600,
        "message": "Session not found: initialize again",
    }


async def test_delete_ends_the_session(http: HttpApp) -> None:
    session = await open_session(http)
    ended = await request(http, "DELETE", headers=in_session(session))
    assert (ended.status, ended.body) == (204, b"")
    after = await request(http, body=rpc(2, "tools/list"), headers=in_session(session))
    assert after.status == 404
    again = await request(http, "DELETE", headers=in_session(session))
    assert again.status == 404


class Clock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_idle_sessions_expire(server: Server) -> None:
    clock = Clock()
    http = server.http_app(session_idle_timeout=60, clock=clock)
    session, other = await open_session(http), await open_session(http)
    clock.now += 60  # idle for exactly the timeout: still alive
    kept = await request(http, body=rpc(2, "ping"), headers=in_session(session))
    assert (kept.status, kept.json()) == (200, {"jsonrpc": "2.0", "id": 2, "result": {}})
    clock.now += 60.5  # `session` was used 60.5 s ago, `other` 120.5 s ago
    assert len(http.sessions) == 2  # nothing expires in the background
    gone = await request(http, body=rpc(3, "tools/list"), headers=in_session(other))
    assert gone.status == 404
    assert gone.json()["error"] == {
        "code": -32600,
        "message": "Session not found: initialize again",
    }
    assert [s.id for s in http.sessions] == [session]
    after = await request(http, body=rpc(4, "tools/list"), headers=in_session(session))
    assert after.status == 404
    assert len(http.sessions) == 0


async def test_a_session_with_an_open_get_stream_does_not_expire(server: Server) -> None:
    clock = Clock()
    http = server.http_app(session_idle_timeout=60, clock=clock)
    session = await open_session(http)
    async with open_call(
        http, "GET", headers={**in_session(session), "accept": "text/event-stream"}
    ) as stream:
        await stream.started()
        clock.now += 3600
        call = await request(http, body=rpc(2, "ping"), headers=in_session(session))
        assert (call.status, call.json()) == (200, {"jsonrpc": "2.0", "id": 2, "result": {}})
        stream.disconnect()
    # the stream has ended (open_call waits for the app): idle time counts again
    clock.now += 60.5
    after = await request(http, body=rpc(3, "ping"), headers=in_session(session))
    assert after.status == 404


async def test_a_different_supported_version_header_is_accepted_in_a_session(
    http: HttpApp,
) -> None:
    session = await open_session(http)
    for version in ("2025-03-26", "2025-06-18", None):
        headers = {"mcp-session-id": session}
        if version:
            headers["mcp-protocol-version"] = version
        call = await request(http, body=rpc(2, "ping"), headers=headers)
        assert (call.status, call.json()) == (200, {"jsonrpc": "2.0", "id": 2, "result": {}})
    bad = await request(http, body=rpc(3, "ping"), headers=in_session(session, "1999-01-01"))
    assert bad.status == 400
    assert bad.json()["error"]["message"] == (
        "Bad Request: unsupported MCP-Protocol-Version '1999-01-01' in a session"
    )


async def test_notifications_and_responses_are_accepted_with_202(http: HttpApp) -> None:
    session = await open_session(http)
    call = await request(
        http,
        body={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
        headers=in_session(session),
    )
    assert (call.status, call.body) == (202, b"")


async def test_batches_belong_to_2025_03_26_only(http: HttpApp) -> None:
    session = await open_session(http)
    refused = await request(
        http, body=[rpc(2, "ping"), rpc(3, "ping")], headers=in_session(session)
    )
    assert refused.status == 400
    assert refused.json()["error"]["code"] == -32600
    old = await request(
        http, body={**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}}
    )
    old_session = old.headers["mcp-session-id"]
    call = await request(
        http,
        body=[rpc(2, "ping"), rpc(3, "tools/call", name="add", arguments={"a": 1, "b": 1})],
        headers=in_session(old_session, "2025-03-26"),
        revision="2025-03-26",
    )
    assert call.status == 200
    replies = sorted(call.json(), key=lambda r: r["id"])
    assert replies == [
        {"jsonrpc": "2.0", "id": 2, "result": {}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"content": [{"type": "text", "text": "2"}], "isError": False},
        },
    ]


async def test_a_tool_that_raises_is_an_error_result_without_the_traceback(http: HttpApp) -> None:
    session = await open_session(http)
    call = await request(
        http, body=rpc(2, "tools/call", name="broken", arguments={}), headers=in_session(session)
    )
    result = call.json()["result"]
    assert result["isError"] is True
    assert "Traceback" not in result["content"][0]["text"]
    after = await request(http, body=rpc(3, "ping"), headers=in_session(session))
    assert after.json() == {"jsonrpc": "2.0", "id": 3, "result": {}}


async def test_a_legacy_disconnect_does_not_cancel_the_request(http: HttpApp, slow: Slow) -> None:
    session = await open_session(http)
    async with open_call(
        http, body=rpc(2, "tools/call", name="slow", arguments={}), headers=in_session(session)
    ) as call:
        with anyio.fail_after(5):
            await slow.started.wait()
        call.disconnect()
        await call.disconnect_read()  # a cancellation would have been asked for by now
        slow.gate.set()
    # open_call has waited for the app, which waited for the tool
    assert slow.events == ["slow started", "slow finished"]
    assert call.body == b""  # the client has gone: the reply is not written
    after = await request(http, body=rpc(3, "ping"), headers=in_session(session))
    assert after.json() == {"jsonrpc": "2.0", "id": 3, "result": {}}


# --- the GET stream --------------------------------------------------------------------------


async def test_the_get_stream_carries_the_sessions_own_notifications(
    server: Server, http: HttpApp
) -> None:
    session = await open_session(http)
    async with open_call(
        http, "GET", headers={**in_session(session), "accept": "text/event-stream"}
    ) as stream:
        await stream.started()
        assert (stream.status, stream.content_type) == (200, "text/event-stream")
        second = await request(
            http, "GET", headers={**in_session(session), "accept": "text/event-stream"}
        )
        assert second.status == 409

        @server.tool
        def added() -> str:
            """A tool added while the client listens."""
            return "hi"

        assert await stream.next_event() == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
        }
        ended = await request(http, "DELETE", headers=in_session(session))
        assert ended.status == 204
        with pytest.raises(EOFError):
            await stream.next_event()


async def test_get_needs_an_event_stream_accept(http: HttpApp) -> None:
    session = await open_session(http)
    call = await request(http, "GET", headers={**in_session(session), "accept": "application/json"})
    assert call.status == 406


async def test_get_and_delete_are_405_at_2026_07_28(http: HttpApp) -> None:
    for method in ("GET", "DELETE"):
        call = await request(
            http, method, headers={"mcp-protocol-version": STATELESS, "accept": "text/event-stream"}
        )
        assert call.status == 405
        assert call.headers["allow"] == "POST"


async def test_other_methods_are_405(http: HttpApp) -> None:
    call = await request(http, "PUT", body={})
    assert call.status == 405


# --- 2026-07-28 ------------------------------------------------------------------------------


def stateless_call(request_id: int, name: str, arguments: dict[str, Any], **m: Any) -> Any:
    return rpc(request_id, "tools/call", name=name, arguments=arguments, _meta=meta(**m))


async def test_a_stateless_call_is_answered_as_json(http: HttpApp) -> None:
    call = await request(
        http,
        body=stateless_call(7, "add", {"a": 20, "b": 22}),
        headers=stateless_headers("tools/call", "add"),
        revision=STATELESS,
    )
    assert (call.status, call.content_type) == (200, "application/json")
    assert "mcp-session-id" not in call.headers
    assert call.json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [{"type": "text", "text": "42"}],
            "structuredContent": 42,
            "isError": False,
            "resultType": "complete",
            "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "http-test", "version": "1.0.0"}
            },
        },
    }


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        (
            {"mcp-method": "tools/call", "mcp-name": "add"},
            "the MCP-Protocol-Version header is required",
        ),
        (
            {"mcp-protocol-version": "2025-11-25", "mcp-method": "tools/call", "mcp-name": "add"},
            "the MCP-Protocol-Version header '2025-11-25' does not match the body",
        ),
        (
            {"mcp-protocol-version": STATELESS, "mcp-name": "add"},
            "the Mcp-Method header is required",
        ),
        (
            {"mcp-protocol-version": STATELESS, "mcp-method": "tools/list", "mcp-name": "add"},
            "the Mcp-Method header 'tools/list' does not match the body",
        ),
        (
            {"mcp-protocol-version": STATELESS, "mcp-method": "tools/call"},
            "the Mcp-Name header is required",
        ),
        (
            {"mcp-protocol-version": STATELESS, "mcp-method": "tools/call", "mcp-name": "sub"},
            "the Mcp-Name header 'sub' does not match the body",
        ),
    ],
)
async def test_headers_that_disagree_with_the_body_are_400_with_32020(
    http: HttpApp, headers: dict[str, str], why: str
) -> None:
    call = await request(
        http, body=stateless_call(3, "add", {"a": 1, "b": 2}), headers=headers, revision=STATELESS
    )
    assert call.status == 400
    assert call.json() == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32020, "message": f"Header mismatch: {why}"},
    }


async def test_mirrored_parameters_are_checked_after_decoding(http: HttpApp) -> None:
    encoded = "=?base64?" + base64.b64encode("Zürich".encode()).decode() + "?="
    ok = await request(
        http,
        body=stateless_call(4, "regional", {"region": "Zürich", "query": "q"}),
        headers=stateless_headers("tools/call", "regional", **{"mcp-param-region": encoded}),
        revision=STATELESS,
    )
    assert ok.status == 200
    assert ok.json()["result"]["content"] == [{"type": "text", "text": "Zürich: q"}]
    for value, why in (
        ("Bern", "the Mcp-Param-Region header does not match the argument"),
        (None, "the Mcp-Param-Region header is required"),
        ("=?base64?%%%?=", "Mcp-Param-Region: malformed base64 header value '=?base64?%%%?='"),
    ):
        extra = {} if value is None else {"mcp-param-region": value}
        bad = await request(
            http,
            body=stateless_call(5, "regional", {"region": "Zürich", "query": "q"}),
            headers=stateless_headers("tools/call", "regional", **extra),
            revision=STATELESS,
        )
        assert bad.status == 400
        assert bad.json()["error"] == {"code": -32020, "message": f"Header mismatch: {why}"}


async def test_stateless_envelope_errors_and_their_status_codes(http: HttpApp) -> None:
    missing = await request(
        http,
        body=rpc(1, "tools/list", _meta={"io.modelcontextprotocol/protocolVersion": STATELESS}),
        headers=stateless_headers("tools/list"),
        revision=STATELESS,
    )
    assert missing.status == 400
    assert missing.json()["error"] == {
        "code": -32602,
        "message": "Invalid params: _meta must carry io.modelcontextprotocol/clientCapabilities"
        " (an object)",
    }
    unsupported = await request(
        http,
        body=rpc(2, "tools/list", _meta={**meta(), "io.modelcontextprotocol/protocolVersion": "9"}),
        headers={"mcp-protocol-version": "9", "mcp-method": "tools/list"},
        revision=STATELESS,
    )
    assert unsupported.status == 400
    assert unsupported.json()["error"] == {
        "code": -32022,
        "message": "Unsupported protocol version: 9",
        "data": {"supported": [STATELESS], "requested": "9"},
    }
    for method in ("initialize", "ping", "logging/setLevel", "no/such/method"):
        call = await request(
            http,
            body=rpc(3, method, _meta=meta()),
            headers=stateless_headers(method),
            revision=STATELESS,
        )
        assert call.status == 404, method
        assert call.json()["error"]["code"] == -32601


async def test_a_missing_client_capability_is_400_with_32021(http: HttpApp) -> None:
    call = await request(
        http,
        body=stateless_call(4, "ask_name", {}),
        headers=stateless_headers("tools/call", "ask_name"),
        revision=STATELESS,
    )
    assert call.status == 400
    assert call.json()["error"]["code"] == -32021
    assert call.json()["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}


async def test_input_required_round_trip_over_http(http: HttpApp) -> None:
    caps = {"elicitation": {}}
    first = await request(
        http,
        body=stateless_call(1, "ask_name", {}, capabilities=caps),
        headers=stateless_headers("tools/call", "ask_name"),
        revision=STATELESS,
    )
    result = first.json()["result"]
    assert result["resultType"] == "input_required"
    (key,) = result["inputRequests"]
    retry = rpc(
        2,
        "tools/call",
        name="ask_name",
        arguments={},
        _meta=meta(capabilities=caps),
        inputResponses={key: {"action": "accept", "content": {"name": "Ada"}}},
        requestState=result["requestState"],
    )
    second = await request(
        http, body=retry, headers=stateless_headers("tools/call", "ask_name"), revision=STATELESS
    )
    assert second.json()["result"]["content"] == [
        {"type": "text", "text": "accept: {'name': 'Ada'}"}
    ]


async def test_closing_a_stateless_stream_cancels_the_tool(http: HttpApp, slow: Slow) -> None:
    async with open_call(
        http,
        body=stateless_call(1, "slow", {}),
        headers=stateless_headers("tools/call", "slow"),
        revision=STATELESS,
    ) as call:
        with anyio.fail_after(5):
            await slow.started.wait()
        call.disconnect()
        await call.disconnect_read()
        slow.gate.set()  # too late: the tool was cancelled when the stream closed
    assert slow.events == ["slow started", "slow cancelled"]
    after = await request(
        http,
        body=stateless_call(2, "add", {"a": 1, "b": 1}),
        headers=stateless_headers("tools/call", "add"),
        revision=STATELESS,
    )
    assert after.json()["result"]["structuredContent"] == 2


async def test_a_stateless_notification_is_accepted(http: HttpApp) -> None:
    call = await request(
        http,
        body={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        headers={"mcp-protocol-version": STATELESS, "mcp-method": "notifications/cancelled"},
    )
    assert (call.status, call.body) == (202, b"")


async def test_a_change_made_in_another_thread_reaches_a_listen_stream(server: Server) -> None:
    """Connection.post from outside the loop's thread hands the message to the loop."""
    http = server.http_app()
    body = rpc(4, "subscriptions/listen", notifications={"toolsListChanged": True}, _meta=meta())
    async with open_call(
        http, body=body, headers=stateless_headers("subscriptions/listen"), revision=STATELESS
    ) as stream:
        await stream.started()
        assert (await stream.next_event())["method"] == "notifications/subscriptions/acknowledged"
        await anyio.to_thread.run_sync(server.remove_tool, "broken")
        assert await stream.next_event() == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 4}},
        }
        http.shutdown()
        assert (await stream.next_event())["id"] == 4


async def test_listen_streams_acknowledge_then_deliver_and_keep_alive(server: Server) -> None:
    http = server.http_app(keepalive_interval=0.05)
    body = rpc(9, "subscriptions/listen", notifications={"toolsListChanged": True}, _meta=meta())
    async with open_call(
        http, body=body, headers=stateless_headers("subscriptions/listen"), revision=STATELESS
    ) as stream:
        await stream.started()
        assert stream.headers["x-accel-buffering"] == "no"
        assert await stream.next_event() == {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": 9},
                "notifications": {"toolsListChanged": True},
            },
        }
        assert await stream.comment() == b": keep-alive"
        server.remove_tool("broken")
        assert await stream.next_event() == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 9}},
        }
        http.shutdown()
        final = await stream.next_event()
        assert final == {
            "jsonrpc": "2.0",
            "id": 9,
            "result": {
                "_meta": {
                    "io.modelcontextprotocol/subscriptionId": 9,
                    "io.modelcontextprotocol/serverInfo": {"name": "http-test", "version": "1.0.0"},
                },
                "resultType": "complete",
            },
        }


# --- security --------------------------------------------------------------------------------


async def test_foreign_origins_and_hosts_are_refused(http: HttpApp) -> None:
    evil_origin = await request(http, body=INIT, headers={"origin": "http://evil.example.com"})
    assert evil_origin.status == 403
    evil_host = await request(http, body=INIT, host="evil.example.com")
    assert evil_host.status == 421
    for host, origin in (
        ("localhost:8000", "http://localhost:8000"),
        ("127.0.0.1:3001", "http://127.0.0.1:3001"),
        ("[::1]:9", "https://[::1]:9"),
    ):
        fine = await request(http, body=INIT, host=host, headers={"origin": origin})
        assert fine.status == 200, (host, origin)
    assert len(http.sessions) == 3


async def test_allowed_hosts_and_origins_extend_the_defaults(server: Server) -> None:
    http = server.http_app(
        allowed_hosts=["mcp.example.com"], allowed_origins=["https://app.example.com"]
    )
    call = await request(
        http, body=INIT, host="mcp.example.com", headers={"origin": "https://app.example.com"}
    )
    assert call.status == 200
    other = await request(
        http, body=INIT, host="mcp.example.com", headers={"origin": "https://x.com"}
    )
    assert other.status == 403


async def test_bodies_and_media_types_are_checked(server: Server) -> None:
    http = server.http_app(max_body_bytes=1000)
    big = await request(
        http, raw=b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"' + b"a" * 2000 + b'"}'
    )
    assert big.status == 413
    assert big.json()["error"]["message"] == (
        "Invalid Request: the body exceeds the limit of 1000 bytes"
    )
    wrong_type = await request(http, body=INIT, headers={"content-type": "text/plain"})
    assert wrong_type.status == 415
    wrong_accept = await request(http, body=INIT, headers={"accept": "application/json"})
    assert wrong_accept.status == 406
    garbage = await request(http, raw=b"{not json")
    assert garbage.status == 400
    assert garbage.json()["error"]["code"] == -32700
    still = await request(http, body=INIT)
    assert still.status == 200


async def test_unknown_paths_are_404(http: HttpApp) -> None:
    call = await request(http, body=INIT, path="/other")
    assert call.status == 404


def verifier(token: str) -> Principal | None:
    tokens = {
        "good": Principal("alice", frozenset({"mcp"})),
        "bob": Principal("bob", frozenset({"mcp"})),
        "weak": Principal("carol", frozenset()),
        "old": Principal("dave", frozenset({"mcp"}), expires_at=1.0),
    }
    return tokens.get(token)


async def test_bearer_auth_challenges_and_passes_the_principal_to_tools(server: Server) -> None:
    auth = BearerAuth(verifier, ["https://auth.example.com"], required_scopes=["mcp"])
    http = server.http_app(auth=auth)
    metadata = "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
    none = await request(http, body=INIT)
    assert none.status == 401
    assert none.headers["www-authenticate"] == (
        f'Bearer resource_metadata="{metadata}", scope="mcp"'
    )
    for token in ("wrong", "old"):
        bad = await request(http, body=INIT, headers={"authorization": f"Bearer {token}"})
        assert bad.status == 401
        assert 'error="invalid_token"' in bad.headers["www-authenticate"]
    weak = await request(http, body=INIT, headers={"authorization": "Bearer weak"})
    assert weak.status == 403
    assert weak.headers["www-authenticate"].startswith(
        'Bearer error="insufficient_scope", scope="mcp"'
    )
    document = await request(http, "GET", path="/.well-known/oauth-protected-resource/mcp")
    assert document.status == 200
    assert document.json() == {
        "resource": "http://127.0.0.1:8000/mcp",
        "authorization_servers": ["https://auth.example.com"],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["mcp"],
    }
    good = {"authorization": "Bearer good"}
    init = await request(http, body=INIT, headers=good)
    session = init.headers["mcp-session-id"]
    call = await request(
        http,
        body=rpc(2, "tools/call", name="whoami", arguments={}),
        headers={**in_session(session), **good},
    )
    assert call.json()["result"]["content"] == [{"type": "text", "text": "alice"}]
    hijack = await request(
        http,
        body=rpc(3, "tools/call", name="whoami", arguments={}),
        headers={**in_session(session), "authorization": "Bearer bob"},
    )
    assert hijack.status == 404
    stateless = await request(
        http,
        body=stateless_call(4, "whoami", {}),
        headers={**stateless_headers("tools/call", "whoami"), **good},
        revision=STATELESS,
    )
    assert stateless.json()["result"]["content"] == [{"type": "text", "text": "alice"}]


async def test_without_auth_tools_see_no_principal(http: HttpApp) -> None:
    call = await request(
        http,
        body=stateless_call(1, "whoami", {}),
        headers=stateless_headers("tools/call", "whoami"),
        revision=STATELESS,
    )
    assert call.json()["result"]["content"] == [{"type": "text", "text": "nobody"}]


async def test_mounted_in_a_starlette_app_under_a_prefix(server: Server) -> None:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    outer = Starlette(routes=[Route("/health", health), Mount("/api", app=server.http_app())])
    call = await request(outer, body=INIT, path="/api/mcp")
    assert call.status == 200
    assert call.json()["result"]["serverInfo"]["name"] == "http-test"
    elsewhere = await request(outer, "GET", path="/health")
    assert (elsewhere.status, elsewhere.body) == (200, b"ok")
