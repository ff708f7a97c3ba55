"""Resumable streams and the graceful drain, driven in-process: event ids, the 2025-11-25
priming event and retry hint, a stream the server closes mid-call, GET with Last-Event-ID
getting every event after it once, and HttpApp.drain. Tools wait on events the test sets."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from plainmcp import Context, Server
from plainmcp.transports.http import HttpApp
from tests.transports.http.asgi import Call, open_call, request

pytestmark = pytest.mark.anyio


class Gate:
    """What the tools wait on (made per test: anyio events belong to the test's loop)."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.closed: list[bool] = []


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def http(gate: Gate) -> HttpApp:
    app = Server("resume-test", version="1.0.0")

    @app.tool
    async def steps(ctx: Context, close: bool = False) -> str:
        await ctx.report_progress(1, 3)
        if close:
            gate.closed.append(ctx.close_stream())
        await gate.release.wait()
        await ctx.report_progress(2, 3)
        await ctx.report_progress(3, 3)
        return "done"

    return app.http_app(retry_interval=0.25, shutdown_deadline=5)


def init(version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }


async def open_session(http: HttpApp, version: str = "2025-11-25") -> dict[str, str]:
    call = await request(http, body=init(version), revision=version)
    headers = {"mcp-session-id": call.headers["mcp-session-id"], "mcp-protocol-version": version}
    note = await request(
        http, body={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    assert note.status == 202
    return headers


def steps(request_id: int, close: bool = False) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "steps", "arguments": {"close": close}, "_meta": {"progressToken": 7}},
    }


def progress(value: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": 7, "progress": value, "total": 3},
    }


def done(request_id: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"content": [{"type": "text", "text": "done"}], "isError": False},
    }


async def ended(call: Call) -> None:
    """Wait until the response has ended (the app may still be running the call)."""
    with anyio.fail_after(5):
        while not call.done:
            call._more = anyio.Event()
            await call._more.wait()


def change_tools(http: HttpApp, name: str) -> None:
    """A tools/list_changed for every session, by adding a tool."""
    http.server.add_tool(lambda: "hi", name=name, description="Added while a client listens.")


def messages(call: Call) -> list[tuple[str, Any]]:
    """(event id, message) of every event with data."""
    import orjson

    return [(b["id"], orjson.loads(b["data"])) for b in call.blocks() if b.get("data")]


async def test_a_stream_opens_with_a_priming_event_and_every_event_has_the_next_id(
    http: HttpApp, gate: Gate
) -> None:
    session = await open_session(http)
    gate.release.set()
    call = await request(http, body=steps(2), headers=session)
    first = call.blocks()[0]
    token = first["id"].split(":")[0]
    assert first == {"id": f"{token}:0", "retry": "250", "data": ""}
    assert messages(call) == [
        (f"{token}:1", progress(1)),
        (f"{token}:2", progress(2)),
        (f"{token}:3", progress(3)),
        (f"{token}:4", done(2)),
    ]


async def test_a_stream_closed_by_the_tool_is_resumed_with_last_event_id_once(
    http: HttpApp, gate: Gate
) -> None:
    session = await open_session(http)
    async with open_call(http, body=steps(2, close=True), headers=session) as call:
        await ended(call)
        assert gate.closed == [True]
        blocks = call.blocks()
        token = blocks[0]["id"].split(":")[0]
        # priming, the first progress, then the retry hint: the response ends, the call goes on
        assert [b.get("id") for b in blocks] == [f"{token}:0", f"{token}:1", None]
        assert blocks[-1] == {"retry": "250"}
        assert messages(call) == [(f"{token}:1", progress(1))]
        async with open_call(
            http, "GET", headers={**session, "last-event-id": f"{token}:1"}
        ) as resumed:
            await resumed.started()
            assert resumed.status == 200
            gate.release.set()
    assert messages(resumed) == [
        (f"{token}:2", progress(2)),
        (f"{token}:3", progress(3)),
        (f"{token}:4", done(2)),
    ]
    # once more from the middle: exactly what follows, and the stream is complete
    again = await request(http, "GET", headers={**session, "last-event-id": f"{token}:3"})
    assert messages(again) == [(f"{token}:4", done(2))]


async def test_a_client_that_loses_its_stream_mid_call_resumes_after_its_last_event(
    http: HttpApp, gate: Gate
) -> None:
    session = await open_session(http)
    async with open_call(http, body=steps(2), headers=session) as call:
        assert await call.next_event() == progress(1)
        call.disconnect()
        await call.disconnect_read()
        gate.release.set()
    token = call.blocks()[0]["id"].split(":")[0]
    resumed = await request(http, "GET", headers={**session, "last-event-id": f"{token}:1"})
    assert messages(resumed) == [
        (f"{token}:2", progress(2)),
        (f"{token}:3", progress(3)),
        (f"{token}:4", done(2)),
    ]


async def test_before_2025_11_25_events_carry_ids_but_no_priming_and_no_server_close(
    http: HttpApp, gate: Gate
) -> None:
    session = await open_session(http, "2025-06-18")
    gate.release.set()
    call = await request(http, body=steps(2, close=True), headers=session, revision="2025-06-18")
    assert gate.closed == [False]
    token = call.blocks()[0]["id"].split(":")[0]
    assert messages(call) == [
        (f"{token}:0", progress(1)),
        (f"{token}:1", progress(2)),
        (f"{token}:2", progress(3)),
        (f"{token}:3", done(2)),
    ]


async def test_a_last_event_id_of_another_session_or_not_ours_is_refused(
    http: HttpApp, gate: Gate
) -> None:
    mine, other = await open_session(http), await open_session(http)
    gate.release.set()
    call = await request(http, body=steps(2), headers=mine)
    token = call.blocks()[0]["id"].split(":")[0]
    stolen = await request(http, "GET", headers={**other, "last-event-id": f"{token}:0"})
    assert stolen.status == 404
    assert stolen.json()["error"]["message"] == (
        "Not Found: no stream has this Last-Event-ID any more"
    )
    bad = await request(http, "GET", headers={**mine, "last-event-id": "nonsense"})
    assert bad.status == 400
    assert bad.json()["error"]["message"] == "Bad Request: Last-Event-ID is not an event id"


async def test_the_get_stream_has_ids_and_a_reconnect_replays_what_was_lost(http: HttpApp) -> None:
    session = await open_session(http)
    async with open_call(http, "GET", headers=session) as stream:
        priming = await stream.next_block()
        token = priming["id"].split(":")[0]
        assert priming == {"id": f"{token}:0", "retry": "250", "data": ""}
        change_tools(http, "one")
        change_tools(http, "two")
        assert await stream.next_event() == {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
        }
        stream.disconnect()
        await stream.disconnect_read()
    # the client saw event 1 only: the reconnect gets event 2, then what comes next
    async with open_call(http, "GET", headers={**session, "last-event-id": f"{token}:1"}) as again:
        block = await again.next_block()
        assert block["id"] == f"{token}:2"
        change_tools(http, "three")
        assert (await again.next_block())["id"] == f"{token}:3"
        again.disconnect()


async def test_drain_refuses_new_requests_lets_running_calls_finish_and_closes_streams(
    http: HttpApp, gate: Gate
) -> None:
    session = await open_session(http)
    async with (
        open_call(http, body=steps(2), headers=session) as running,
        open_call(http, "GET", headers=session) as listening,
    ):
        assert await running.next_event() == progress(1)
        await listening.next_block()
        async with anyio.create_task_group() as group:
            result: list[bool] = []

            async def drain() -> None:
                result.append(await http.drain())

            group.start_soon(drain)
            await http.stopping.wait()
            refused = await request(http, body=steps(3), headers=session)
            assert refused.status == 503
            assert refused.headers["retry-after"] == "1"
            assert refused.json()["error"]["message"] == (
                "Service Unavailable: the server is shutting down"
            )
            # answers and notifications still reach the running calls
            note = await request(
                http,
                body={"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
                headers=session,
            )
            assert note.status == 202
            gate.release.set()
        assert result == [True]
    assert [m for _, m in messages(running)][-1] == done(2)
    assert listening.blocks()[-1] == {"retry": "250"}


async def test_calls_still_running_at_the_deadline_are_answered_with_an_error(
    http: HttpApp,
) -> None:
    http.shutdown_deadline = 0
    session = await open_session(http)
    async with open_call(http, body=steps(2), headers=session) as running:
        assert await running.next_event() == progress(1)
        assert await http.drain() is False
    assert [m for _, m in messages(running)][-1] == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {
            "code": -32603,
            "message": "The server shut down before the call finished; call again",
        },
    }
