"""Connection, the concurrency core: the order of replies, ids in flight, cancellation, close(),
posts from other threads, requests to the client (ask), batches and bad lines.

No transport: the client's side is tests.conftest.Session (lines in, every message the server
writes validated and recorded), or a bare `send` where the test must hold a write. Nothing here
sleeps: tools wait at gates the test opens, and the test reads messages until the one it expects.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import anyio
import anyio.lowlevel
import orjson
import pytest

from plainmcp import Server
from plainmcp.connection import STOPPED as STOPPED_ERROR
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import RpcError
from tests.conftest import Session

pytestmark = pytest.mark.anyio

NOTE = jsonrpc.notification_message("notifications/message", {"level": "info", "data": "hi"})


class Gated:
    """The `gated` tool's side of a test: each call says it entered, then waits at the gate of
    its `key` until the test opens it, or until it is cancelled."""

    def __init__(self) -> None:
        self.entered: list[str] = []
        self.cancelled: list[str] = []
        self.finished: list[str] = []
        self.gates: dict[str, anyio.Event] = {}
        self._changed = anyio.Event()

    def gate(self, key: str) -> anyio.Event:
        return self.gates.setdefault(key, anyio.Event())

    async def run(self, key: str) -> str:
        self.entered.append(key)
        self._poke()
        try:
            await self.gate(key).wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled.append(key)
            self._poke()
            raise
        self.finished.append(key)
        return f"{key} done"

    def _poke(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    async def until(self, seen: list[str], key: str) -> None:
        """Wait until `key` is in `seen` (one of the lists above)."""
        with anyio.fail_after(5):
            while key not in seen:
                await self._changed.wait()


def make_server(**options: Any) -> tuple[Server, Gated]:
    app = Server("conn", version="1.0.0", **options)
    gated = Gated()

    @app.tool
    async def hold(key: str) -> str:
        """Waits at the test's gate `key`."""
        return await gated.run(key)

    return app, gated


def call(key: str) -> dict[str, Any]:
    return {"name": "hold", "arguments": {"key": key}}


def text(reply: dict[str, Any]) -> str:
    value: str = reply["result"]["content"][0]["text"]
    return value


def logged(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    """What plainmcp logged at `level` and above."""
    return [r.getMessage() for r in caplog.records if r.name == "plainmcp" and r.levelno >= level]


# --- the order of replies --------------------------------------------------------------------


async def test_replies_that_need_no_waiting_go_out_in_the_order_the_lines_came() -> None:
    app, _ = make_server(max_message_bytes=200)
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        first = len(s.messages)
        await s.send({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        await s.send({"jsonrpc": "2.0", "id": 2, "method": "no/such"})
        await s.send({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": "a" * 300}})
        await s.send({"jsonrpc": "1.0", "id": 4, "method": "ping"})
        await s.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
        await s.response(5)
        assert [m["id"] for m in s.messages[first:]] == [1, 2, 3, 4, 5]


async def test_a_waiting_request_does_not_hold_up_later_replies() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        held = await s.start("tools/call", call("a"))
        await gated.until(gated.entered, "a")
        ping = await s.request("ping")
        assert s.replies_to(held, s.upto(ping)) == []
        gated.gate("a").set()
        assert text(await s.response(held)) == "a done"


# --- ids in flight ---------------------------------------------------------------------------


async def test_an_id_in_use_is_refused_and_free_again_once_answered() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id="dup")
        await gated.until(gated.entered, "a")
        assert s.conn.in_use("dup")
        await s.start("ping", id="dup")
        refusal = await s.response("dup")
        assert refusal == {
            "jsonrpc": "2.0",
            "id": "dup",
            "error": {"code": -32600, "message": "Invalid Request: id 'dup' is in use"},
        }
        gated.gate("a").set()
        answer = await s.wait_for(lambda m: m.get("id") == "dup" and "result" in m)
        assert text(answer) == "a done"
        assert not s.conn.in_use("dup")
        assert (await s.request("ping", id="dup"))["result"] == {}
        assert s.replies_to("dup") == [
            refusal,
            answer,
            {"jsonrpc": "2.0", "id": "dup", "result": {}},
        ]


async def test_an_int_and_a_str_id_are_different_ids() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id=7)
        await gated.until(gated.entered, "a")
        assert s.conn.in_use(7) and not s.conn.in_use("7")
        assert (await s.request("ping", id="7"))["result"] == {}
        gated.gate("a").set()
        assert text(await s.response(7)) == "a done"


# --- cancellation ----------------------------------------------------------------------------


async def test_cancel_before_the_request_has_started() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id=10)  # its task has not run a step yet
        assert s.conn.in_use(10)
        await s.notify("notifications/cancelled", {"requestId": 10})
        ping = await s.request("ping")
        assert s.replies_to(10, s.upto(ping)) == []
        await s.settle()
        assert gated.entered == []
        assert not s.conn.in_use(10) and s.conn.cancel_scope(10) is None
    assert s.replies_to(10) == []


async def test_cancel_while_running() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id=10)
        await gated.until(gated.entered, "a")
        scope = s.conn.cancel_scope(10)
        assert scope is not None and not scope.cancel_called
        await s.notify("notifications/cancelled", {"requestId": 10, "reason": "changed my mind"})
        assert scope.cancel_called
        await gated.until(gated.cancelled, "a")
        ping = await s.request("ping")
        assert s.replies_to(10, s.upto(ping)) == []
        gated.gate("a").set()
        await s.settle()
        assert gated.finished == []
        assert not s.conn.in_use(10)
    assert s.replies_to(10) == []


async def test_cancel_after_the_request_finished_changes_nothing() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        gated.gate("a").set()
        assert text(await s.request("tools/call", call("a"), id=10)) == "a done"
        await s.notify("notifications/cancelled", {"requestId": 10})
        # the id is free: a new request with it runs, untouched by the earlier cancel
        await s.start("tools/call", call("b"), id=10)
        await gated.until(gated.entered, "b")
        ping = await s.request("ping")
        assert ping["result"] == {}
        gated.gate("b").set()
        assert text(await s.response(10)) == "b done"
        assert gated.cancelled == []


async def test_cancelling_one_request_leaves_the_others_running() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id="a")
        await s.start("tools/call", call("b"), id="b")
        await gated.until(gated.entered, "b")
        await s.notify("notifications/cancelled", {"requestId": "a"})
        await gated.until(gated.cancelled, "a")
        assert s.conn.in_use("b")
        gated.gate("b").set()
        assert text(await s.response("b")) == "b done"
        assert gated.cancelled == ["a"]
    assert s.replies_to("a") == []


@pytest.mark.parametrize(
    "params", [{"requestId": 12345}, {"requestId": None}, {"requestId": [1]}, {}]
)
async def test_a_cancel_for_no_running_request_is_harmless(params: dict[str, Any]) -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id=10)
        await gated.until(gated.entered, "a")
        await s.notify("notifications/cancelled", params)
        ping = await s.request("ping")
        assert s.messages[-1] is ping  # nothing else was written
        gated.gate("a").set()
        assert text(await s.response(10)) == "a done"
        assert gated.cancelled == []


async def test_a_cancel_while_the_reply_is_being_written_does_not_stop_it() -> None:
    """Once the request is done its reply goes out: a cancel arriving meanwhile is too late."""
    app, gated = make_server()
    written: list[bytes] = []
    writing, release = anyio.Event(), anyio.Event()

    async def send(data: bytes) -> None:
        if b'"id":"slow-write"' in data:
            writing.set()
            await release.wait()
        written.append(data)

    async def receive(message: dict[str, Any]) -> None:
        await conn.receive(orjson.dumps(message))

    async def settled() -> None:
        with anyio.fail_after(5):
            while conn.busy:
                await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tasks:
        conn = app.connect(send)
        conn.bind(tasks)
        await receive(
            jsonrpc.request_message(
                0,
                "initialize",
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            )
        )
        await receive(jsonrpc.notification_message("notifications/initialized"))
        await settled()
        gated.gate("a").set()
        await receive(jsonrpc.request_message("slow-write", "tools/call", call("a")))
        with anyio.fail_after(5):
            await writing.wait()
        assert not conn.in_use("slow-write")
        await receive(
            jsonrpc.notification_message("notifications/cancelled", {"requestId": "slow-write"})
        )
        release.set()
        await settled()
        conn.close()
    replies = [orjson.loads(d) for d in written]
    assert [r["id"] for r in replies] == [0, "slow-write"]
    assert replies[1]["result"]["content"] == [{"type": "text", "text": "a done"}]


# --- close() ---------------------------------------------------------------------------------


async def test_close_cancels_running_requests_and_drops_later_posts() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", call("a"), id="a")
        await s.start("tools/call", call("b"), id="b")
        await gated.until(gated.entered, "b")
        s.conn.close()
        await gated.until(gated.cancelled, "b")
        assert sorted(gated.cancelled) == ["a", "b"]
        await s.settle()
        assert s.conn not in app._connections
        before = list(s.messages)
        s.conn.post(NOTE)  # from the loop's thread
        poster = threading.Thread(target=s.conn.post, args=(NOTE,))
        poster.start()
        poster.join()
        app.add_tool(lambda: "x", name="late")  # a list change is not posted to it either
        gated.gate("a").set()
        gated.gate("b").set()
        await s.drain()
        assert s.messages == before
        assert gated.finished == []
    assert s.replies_to("a") == s.replies_to("b") == []


# --- stop(): a shutdown past its deadline ----------------------------------------------------

STOPPED = {"code": -32603, "message": "The server shut down before the call finished; call again"}


async def test_stop_answers_each_running_request_with_the_error_and_the_cancelled_with_none() -> (
    None
):
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        for key in ("a", "b", "c"):
            await s.start("tools/call", call(key), id=key)
        await gated.until(gated.entered, "c")
        await s.notify("notifications/cancelled", {"requestId": "c"})  # the client's: no reply
        await gated.until(gated.cancelled, "c")
        assert s.conn.stop(STOPPED_ERROR) == 2
        await gated.until(gated.cancelled, "b")
        await s.settle()
        assert sorted(gated.cancelled) == ["a", "b", "c"]
        await s.conn.answer_stopped()  # every stopped task answered for itself
        assert s.replies_to("a") == [{"jsonrpc": "2.0", "id": "a", "error": STOPPED}]
        assert s.replies_to("b") == [{"jsonrpc": "2.0", "id": "b", "error": STOPPED}]
        assert s.replies_to("c") == []


async def test_a_stopped_request_that_ignores_cancellation_is_answered_by_answer_stopped() -> None:
    app = Server("conn", version="1.0.0")
    entered, gate = anyio.Event(), anyio.Event()

    @app.tool
    async def stubborn() -> str:
        """Waits at the gate, and goes on waiting when cancelled."""
        entered.set()
        try:
            await gate.wait()
        except anyio.get_cancelled_exc_class():
            await gate.wait()
        return "late"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.start("tools/call", {"name": "stubborn", "arguments": {}}, id="s")
        with anyio.fail_after(5):
            await entered.wait()
        assert s.conn.stop(STOPPED_ERROR) == 1
        await s.drain()
        assert s.replies_to("s") == []
        await s.conn.answer_stopped()
        assert s.replies_to("s") == [{"jsonrpc": "2.0", "id": "s", "error": STOPPED}]
        gate.set()
        await s.settle()
        assert s.replies_to("s") == [{"jsonrpc": "2.0", "id": "s", "error": STOPPED}]


async def test_stop_answers_a_batch_s_running_requests_in_its_reply() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-03-26")
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("a")},
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            ]
        )
        await gated.until(gated.entered, "a")
        assert s.conn.stop(STOPPED_ERROR) == 1
        batch = await s.wait_for(lambda m: isinstance(m, list))
        assert sorted(batch, key=lambda m: m["id"]) == [
            {"jsonrpc": "2.0", "id": 1, "error": STOPPED},
            {"jsonrpc": "2.0", "id": 2, "result": {}},
        ]
        await s.settle()
        await s.conn.answer_stopped()
        assert [m for m in s.messages if isinstance(m, list)] == [batch]


def test_closed_connection_is_forgotten() -> None:
    """A transport that ended must not be posted to when the tool list changes later."""
    app = Server("x")
    sent: list[bytes] = []

    async def main() -> None:
        async def send(data: bytes) -> None:
            sent.append(data)

        async with anyio.create_task_group() as tasks:
            conn = app.connect(send)
            conn.bind(tasks)
            conn.close()

    anyio.run(main)
    app.add_tool(lambda: "ok", name="late")
    assert "late" in app.tools
    assert sent == []


async def test_a_post_from_another_thread_is_pushed_on_the_loops_thread() -> None:
    app, _ = make_server()
    pushed: list[tuple[bytes, int]] = []
    arrived = anyio.Event()

    def push(data: bytes) -> None:
        pushed.append((data, threading.get_ident()))
        arrived.set()

    async def send(data: bytes) -> None:
        push(data)

    conn = app.connect(send, push=push)
    conn.bind()
    loop_thread = threading.get_ident()
    conn.post(NOTE)
    assert pushed == [(jsonrpc.encode(NOTE), loop_thread)]  # from the loop: at once
    poster = threading.Thread(target=conn.post, args=(NOTE,))
    poster.start()
    poster.join()
    with anyio.fail_after(5):
        while len(pushed) < 2:
            await arrived.wait()
            arrived = anyio.Event()
    assert pushed[1] == (jsonrpc.encode(NOTE), loop_thread)
    conn.close()


async def test_a_push_from_a_thread_racing_close_is_dropped() -> None:
    app, _ = make_server()
    pushed: list[bytes] = []

    async def send(data: bytes) -> None:
        pushed.append(data)

    conn = app.connect(send, push=pushed.append)
    conn.bind()
    poster = threading.Thread(target=conn.post, args=(NOTE,))
    poster.start()
    poster.join()  # the hand-off is queued on the loop, not yet run
    conn.close()
    ran = anyio.Event()
    asyncio.get_running_loop().call_soon(ran.set)  # queued after the hand-off: runs after it
    with anyio.fail_after(5):
        await ran.wait()
    assert pushed == []


# --- ask(): requests to the client -----------------------------------------------------------


class Asked:
    """How a `conn.ask()` started by `asking` ended: its result, or the exception it raised."""

    def __init__(self) -> None:
        self.outcome: Any = None
        self.done = anyio.Event()


async def asking(s: Session, method: str, **options: Any) -> tuple[dict[str, Any], Asked]:
    """Start `conn.ask(method, {})` in the session's task group; returns the request it wrote
    (read from the session) and where its outcome will be."""
    asked = Asked()

    async def run() -> None:
        try:
            asked.outcome = await s.conn.ask(method, {}, **options)
        except Exception as exc:
            asked.outcome = exc
        finally:
            asked.done.set()

    assert s._tasks is not None
    since = len(s.messages)
    s._tasks.start_soon(run)
    request = await s.wait_for(lambda m: m.get("method") == method, since=since)
    return request, asked


async def test_ask_is_answered() -> None:
    app, _ = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={"roots": {}})
        request, ask = await asking(s, "roots/list", timeout=5)
        assert request == {
            "jsonrpc": "2.0",
            "id": "plainmcp-1",
            "method": "roots/list",
            "params": {},
        }
        await s.send({"jsonrpc": "2.0", "id": "plainmcp-1", "result": {"roots": []}})
        with anyio.fail_after(5):
            await ask.done.wait()
        assert ask.outcome == {"roots": []}
        second, _ = await asking(s, "ping", timeout=5)
        assert second["id"] == "plainmcp-2"  # ids are not reused


async def test_ask_timed_out_tells_the_client_and_a_late_answer_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={"roots": {}})
        since = len(s.messages)
        _, ask = await asking(s, "roots/list", timeout=0.01)
        with anyio.fail_after(5):
            await ask.done.wait()
        assert isinstance(ask.outcome, TimeoutError)
        assert str(ask.outcome) == "the client did not answer roots/list within 0.01 seconds"
        assert s.messages[since:] == [
            {"jsonrpc": "2.0", "id": "plainmcp-1", "method": "roots/list", "params": {}},
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": "plainmcp-1", "reason": "timed out"},
            },
        ]
        await s.send({"jsonrpc": "2.0", "id": "plainmcp-1", "result": {"roots": []}})
        ping = await s.request("ping")
        assert s.messages[since + 2 :] == [ping]
        assert logged(caplog) == ["ignored a response to unknown request 'plainmcp-1'"]


async def test_ask_cancelled_by_its_caller_tells_the_client() -> None:
    app, _ = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={"roots": {}})
        assert s._tasks is not None
        cancelled = anyio.Event()
        asked = anyio.Event()
        scope = anyio.CancelScope()

        async def caller() -> None:
            with scope:
                asked.set()
                await s.conn.ask("roots/list", {}, timeout=60)
            if scope.cancelled_caught:
                cancelled.set()

        since = len(s.messages)
        s._tasks.start_soon(caller)
        await s.wait_for(lambda m: m.get("method") == "roots/list", since=since)
        scope.cancel()
        with anyio.fail_after(5):
            await cancelled.wait()
        assert s.messages[since:] == [
            {"jsonrpc": "2.0", "id": "plainmcp-1", "method": "roots/list", "params": {}},
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": "plainmcp-1", "reason": "cancelled"},
            },
        ]


@pytest.mark.parametrize(
    ("error", "code", "message", "data"),
    [
        (
            {"code": -32001, "message": "no roots here", "data": {"why": 1}},
            -32001,
            "no roots here",
            {"why": 1},
        ),
        ({"code": -32601, "message": "Method not found"}, -32601, "Method not found", None),
        ({"code": "x", "message": "odd"}, -32603, "odd", None),
    ],
)
async def test_an_error_answer_raises_rpc_error(
    error: dict[str, Any], code: int, message: str, data: Any
) -> None:
    app, _ = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={"roots": {}})
        _, ask = await asking(s, "roots/list", timeout=5)
        await s.send({"jsonrpc": "2.0", "id": "plainmcp-1", "error": error})
        with anyio.fail_after(5):
            await ask.done.wait()
        assert isinstance(ask.outcome, RpcError)
        assert (ask.outcome.code, ask.outcome.message, ask.outcome.data) == (code, message, data)
        assert s.notifications("notifications/cancelled") == []  # it was answered


async def test_a_response_to_an_unknown_id_is_logged_and_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        since = len(s.messages)
        await s.send({"jsonrpc": "2.0", "id": 99, "result": {}})
        await s.send({"jsonrpc": "2.0", "id": "zz", "error": {"code": 1, "message": "x"}})
        ping = await s.request("ping")
        assert s.messages[since:] == [ping]
        assert logged(caplog) == [
            "ignored a response to unknown request 99",
            "ignored a response to unknown request 'zz'",
        ]


# --- batches ---------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
async def test_a_batch_is_refused_outside_2025_03_26(version: str) -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize(version)
        since = len(s.messages)
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("a")},
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
                {"jsonrpc": "2.0", "id": "two", "method": "ping"},
            ]
        )
        ping = await s.request("ping", id="after")
        error = {
            "code": -32600,
            "message": "Invalid Request: JSON-RPC batches are only part of revision 2025-03-26"
            f" (this session: {version})",
        }
        assert s.messages[since:] == [
            {"jsonrpc": "2.0", "id": 1, "error": error},
            {"jsonrpc": "2.0", "id": "two", "error": error},
            ping,
        ]
        assert gated.entered == []


async def test_a_batch_before_initialize_is_refused() -> None:
    app, _ = make_server()
    async with Session(app) as s:
        await s.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
        assert await s.response(1) == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32600,
                "message": "Invalid Request: JSON-RPC batches are only part of revision"
                " 2025-03-26 (this session: none negotiated)",
            },
        }


async def test_a_batch_is_served_on_2025_03_26_as_one_reply() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-03-26")
        since = len(s.messages)
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("a")},
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                {"jsonrpc": "2.0", "id": 3, "method": "no/such"},
            ]
        )
        await gated.until(gated.entered, "a")
        assert s.conn.in_use(1) and s.conn.busy
        ping = await s.request("ping", id="between")
        assert s.messages[since:] == [ping]  # the batch's answer waits for all of it
        gated.gate("a").set()
        batch = await s.wait_for(lambda m: isinstance(m, list))
        assert sorted(batch, key=lambda m: m["id"]) == [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {"content": [{"type": "text", "text": "a done"}], "isError": False},
            },
            {"jsonrpc": "2.0", "id": 2, "result": {}},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "error": {"code": -32601, "message": "Method not found: no/such"},
            },
        ]
        await s.settle()


async def test_a_request_in_a_batch_can_be_cancelled() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-03-26")
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call("a")},
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            ]
        )
        await gated.until(gated.entered, "a")
        await s.notify("notifications/cancelled", {"requestId": 1})
        await gated.until(gated.cancelled, "a")
        batch = await s.wait_for(lambda m: isinstance(m, list))
        assert batch == [{"jsonrpc": "2.0", "id": 2, "result": {}}]
        await s.settle()


async def test_a_batch_reusing_a_running_id_or_its_own_is_refused_for_that_request() -> None:
    app, gated = make_server()
    async with Session(app) as s:
        await s.initialize("2025-03-26")
        await s.start("tools/call", call("a"), id=7)
        await gated.until(gated.entered, "a")
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 7, "method": "ping"},
                {"jsonrpc": "2.0", "id": 8, "method": "ping"},
                {"jsonrpc": "2.0", "id": 8, "method": "ping"},
            ]
        )
        batch = await s.wait_for(lambda m: isinstance(m, list))
        in_use = {"code": -32600, "message": "Invalid Request: id {} is in use"}
        assert sorted(batch, key=lambda m: (m["id"], "error" in m)) == [
            {
                "jsonrpc": "2.0",
                "id": 7,
                "error": {**in_use, "message": in_use["message"].format(7)},
            },
            {"jsonrpc": "2.0", "id": 8, "result": {}},
            {
                "jsonrpc": "2.0",
                "id": 8,
                "error": {**in_use, "message": in_use["message"].format(8)},
            },
        ]
        assert s.conn.in_use(7)  # the running call keeps its own bookkeeping
        gated.gate("a").set()
        done = await s.response(7)
        assert done["result"]["content"] == [{"type": "text", "text": "a done"}]
        await s.settle()


async def test_a_response_inside_a_batch_reaches_the_request_waiting_for_it() -> None:
    app = Server("asks")
    async with Session(app) as s:
        await s.initialize("2025-03-26", capabilities={"roots": {}})
        conn = s.conn

        async def ask() -> dict[str, Any]:
            return await conn.ask("roots/list", {}, timeout=5)

        async with anyio.create_task_group() as tasks:
            answers: list[dict[str, Any]] = []

            async def run() -> None:
                answers.append(await ask())

            tasks.start_soon(run)
            asked = await s.wait_for(
                lambda m: isinstance(m, dict) and m.get("method") == "roots/list"
            )
            await s.send([{"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}}])
        assert answers == [{"roots": []}]
        await s.settle()


# --- bad lines -------------------------------------------------------------------------------


async def test_an_internal_error_taking_a_line_is_answered_and_the_next_line_works(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    parse = jsonrpc.parse

    def parse_or_fail(data: bytes | str) -> Any:
        if b"boom" in (data if isinstance(data, bytes) else data.encode()):
            raise RuntimeError("a bug in the reader")
        return parse(data)

    monkeypatch.setattr(jsonrpc, "parse", parse_or_fail)
    app, _ = make_server()
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        since = len(s.messages)
        with caplog.at_level(logging.ERROR, logger="plainmcp"):
            # receive_nowait, as a transport's reader callback calls it: it must not raise
            s.conn.receive_nowait(
                b'{"jsonrpc":"2.0","id":41,"method":"ping","params":{"x":"boom"}}'
            )
            s.conn.receive_nowait(b'{"params":{"x":"boom"}}')  # and without an id to answer
        ping = await s.request("ping")
        assert s.messages[since:] == [
            {"jsonrpc": "2.0", "id": 41, "error": {"code": -32603, "message": "Internal error"}},
            {"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}},
            ping,
        ]
        assert ping["result"] == {}
        assert logged(caplog, logging.ERROR) == ["internal error handling a message"] * 2
        assert all(
            str(r.exc_info[1]) == "a bug in the reader" for r in caplog.records if r.exc_info
        )


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
async def test_oversized_messages(version: str, caplog: pytest.LogCaptureFixture) -> None:
    app, _ = make_server(max_message_bytes=200)
    async with Session(app) as s:
        await s.initialize(version)
        since = len(s.messages)
        fits = orjson.dumps({"jsonrpc": "2.0", "id": 10, "method": "ping", "params": {"x": ""}})
        fits = fits.replace(b'"x":""', b'"x":"' + b"a" * (200 - len(fits)) + b'"')
        assert len(fits) == 200
        await s.send_raw(fits)  # exactly the limit: served
        await s.send_raw(fits.replace(b'"x":"', b'"x":"a'))  # one byte over, id 1 again
        await s.send_raw(
            b'{"jsonrpc":"2.0","method":"ping","params":{"x":"' + b"a" * 300 + b'"},"id":2}'
        )
        ping = await s.request("ping", id=3)
        refusal = {
            "code": -32600,
            "message": "Invalid Request: message exceeds the limit of 200 bytes",
        }
        expected: list[Any] = [
            {"jsonrpc": "2.0", "id": 10, "result": {}},
            {"jsonrpc": "2.0", "id": 10, "error": refusal},
        ]
        if version == "2025-11-25":  # an error without an id: only this revision has one
            expected.append({"jsonrpc": "2.0", "error": refusal})
        assert s.messages[since:] == [*expected, ping]
        if version == "2025-06-18":
            assert logged(caplog) == [
                "not answering an unidentifiable message (2025-06-18 has no error without an"
                " id): Invalid Request: message exceeds the limit of 200 bytes"
            ]
