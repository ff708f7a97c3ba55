"""The dispatcher (server.Server / Connection), in memory through tests.conftest.Session: every
message the server writes is validated against the negotiated revision's official schema."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from plainmcp import Context, Icon, Server
from plainmcp.wire import jsonrpc
from tests.conftest import HANDSHAKE_REVISIONS, Session

pytestmark = pytest.mark.anyio


def make_server(**kwargs: Any) -> Server:
    app = Server("demo", version="1.2.3", **kwargs)

    @app.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @app.tool
    async def slow(seconds: float = 30.0) -> str:
        await anyio.sleep(seconds)
        return "done"

    return app


FULL_INFO = {
    "title": "Demo Server",
    "description": "A demo.",
    "website_url": "https://example.com",
    "icons": [Icon("https://example.com/icon.png", mime_type="image/png")],
    "instructions": "Use add to add.",
}


# --- the harness itself ----------------------------------------------------------------------


async def test_session_rejects_an_invalid_message() -> None:
    app = make_server()
    async with Session(app) as s:
        await s.initialize("2025-06-18")
        await s._written(b'{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}')
        with pytest.raises(AssertionError, match="invalid messages"):
            s.check()
        s.failures.clear()


# --- initialize ------------------------------------------------------------------------------

EXPECTED_INFO = {
    "2024-11-05": {"name": "demo", "version": "1.2.3"},
    "2025-03-26": {"name": "demo", "version": "1.2.3"},
    "2025-06-18": {"name": "demo", "version": "1.2.3", "title": "Demo Server"},
    "2025-11-25": {
        "name": "demo",
        "version": "1.2.3",
        "title": "Demo Server",
        "description": "A demo.",
        "websiteUrl": "https://example.com",
        "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png"}],
    },
}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_initialize_each_revision(version: str) -> None:
    async with Session(make_server(**FULL_INFO)) as s:
        result = await s.initialize(version)
        assert result == {
            "protocolVersion": version,
            "capabilities": {
                "logging": {},
                "tools": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": True},
            },
            "serverInfo": EXPECTED_INFO[version],
            "instructions": "Use add to add.",
        }
        assert s.revision == version
        assert s.conn.session.initialized


async def test_initialize_without_instructions_leaves_them_out() -> None:
    async with Session(make_server()) as s:
        result = await s.initialize("2025-06-18")
        assert "instructions" not in result
        assert result["serverInfo"] == {"name": "demo", "version": "1.2.3"}


@pytest.mark.parametrize("version", ["2026-07-28", "2099-01-01", "1.0", ""])
async def test_unknown_version_gets_a_counter_offer(version: str) -> None:
    async with Session(make_server()) as s:
        result = await s.initialize(version)
        assert result["protocolVersion"] == "2025-11-25"
        assert s.revision == "2025-11-25"


@pytest.mark.parametrize(
    "params",
    [{}, {"protocolVersion": 20250618}, {"protocolVersion": "2025-06-18", "capabilities": []}],
)
async def test_initialize_with_bad_params(params: dict[str, Any]) -> None:
    async with Session(make_server()) as s:
        reply = await s.request("initialize", params)
        assert reply["error"]["code"] == -32602
        assert s.revision is None


async def test_second_initialize_is_refused() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-03-26")
        reply = await s.request(
            "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}}
        )
        assert reply["error"]["code"] == -32600
        assert (
            s.conn.session.revision is not None and s.conn.session.revision.version == "2025-03-26"
        )


@pytest.mark.parametrize("method", ["tools/list", "tools/call"])
async def test_requests_before_initialize_are_errors(method: str) -> None:
    async with Session(make_server()) as s:
        reply = await s.request(method, {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert reply["error"]["code"] == -32602
        assert "initialize" in reply["error"]["message"]


async def test_ping_before_and_after_initialize() -> None:
    async with Session(make_server()) as s:
        assert (await s.request("ping"))["result"] == {}
        await s.initialize("2024-11-05")
        assert (await s.request("ping", id="p"))["result"] == {}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_unknown_method(version: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize(version)
        # No prompts are registered, so the prompts methods do not exist (unadvertised).
        reply = await s.request("prompts/list")
        assert reply["error"] == {"code": -32601, "message": "Method not found: prompts/list"}
        assert (await s.request("nope/nope", id="x"))["error"]["code"] == -32601


async def test_unknown_notification_is_ignored() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        await s.notify("notifications/whatever", {"a": 1})
        assert await s.quiet(0.05) == []


# --- malformed input -------------------------------------------------------------------------


async def test_parse_error_before_initialize_is_sent_without_id() -> None:
    async with Session(make_server()) as s:
        await s.send_raw(b"{not json")
        reply = await s.next_message()
        assert "id" not in reply
        assert reply["error"]["code"] == -32700


@pytest.mark.parametrize("version", ["2025-11-25"])
async def test_unidentifiable_errors_are_sent_without_id_from_2025_11_25(version: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize(version)
        for line, code in (
            (b"{", -32700),
            (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600),
            (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600),
            (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600),
            (b'{"jsonrpc":"2.0","id":{},"method":"ping"}', -32600),
            (b"[]", -32600),
            (b"7", -32600),
        ):
            await s.send_raw(line)
            reply = await s.next_message()
            assert reply == {"jsonrpc": "2.0", "error": reply["error"]}
            assert reply["error"]["code"] == code
        assert (await s.request("ping"))["result"] == {}


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
async def test_unidentifiable_errors_are_not_sent_before_2025_11_25(version: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize(version)
        for line in (b"{", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', b"[]", b"7"):
            await s.send_raw(line)
        assert await s.quiet(0.05) == []
        assert (await s.request("ping"))["result"] == {}


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_identifiable_envelope_errors(version: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize(version)
        await s.send({"jsonrpc": "1.0", "id": 5, "method": "ping"})
        assert (await s.response(5))["error"]["code"] == -32600
        await s.send({"jsonrpc": "2.0", "id": 6, "method": 3})
        assert (await s.response(6))["error"]["code"] == -32600
        await s.send({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]})
        assert (await s.response(7))["error"]["code"] == -32602
        await s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]})
        assert await s.quiet(0.05) == []


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_oversized_message_is_refused_with_its_id(version: str) -> None:
    app = make_server(max_message_bytes=1000)
    async with Session(app, revision_hint=version) as s:
        await s.initialize(version)
        await s.send({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "a" * 2000}})
        reply = await s.next_message()
        assert reply == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32600,
                "message": "Invalid Request: message exceeds the limit of 1000 bytes",
            },
        }
        assert (await s.request("ping"))["result"] == {}


def test_sniff_id_reads_only_a_leading_id() -> None:
    assert jsonrpc.sniff_id(b'{"jsonrpc":"2.0","id":7,"method":"x","params":{}}') == 7
    assert jsonrpc.sniff_id(b'{"jsonrpc": "2.0", "method": "a/b", "id": "q-1", "params": ') == "q-1"
    assert jsonrpc.sniff_id(b'{"params":{"id":3},"id":4}') is None  # not before the params
    assert jsonrpc.sniff_id(b"garbage") is None


# --- tools/list ------------------------------------------------------------------------------


def many_tools(count: int, page_size: int) -> Server:
    app = Server("many", page_size=page_size, continuation=None)
    for i in range(count):
        app.add_tool(lambda: "x", name=f"t{i}")
    return app


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_tools_list_pagination(version: str) -> None:
    async with Session(many_tools(5, 2)) as s:
        await s.initialize(version)
        names: list[str] = []
        cursor = None
        pages = 0
        while True:
            result = await s.result("tools/list", {"cursor": cursor} if cursor else {})
            pages += 1
            names += [t["name"] for t in result["tools"]]
            cursor = result.get("nextCursor")
            if cursor is None:
                break
            assert isinstance(cursor, str)
        assert names == [f"t{i}" for i in range(5)]
        assert pages == 3


async def test_tools_list_exact_page() -> None:
    async with Session(many_tools(4, 2)) as s:
        await s.initialize("2025-06-18")
        first = await s.result("tools/list")
        second = await s.result("tools/list", {"cursor": first["nextCursor"]})
        assert [t["name"] for t in second["tools"]] == ["t2", "t3"]
        assert "nextCursor" not in second


@pytest.mark.parametrize("cursor", ["nope", "", 5, "bzo5OTk=", "eDox", None])
async def test_invalid_cursor(cursor: Any) -> None:
    async with Session(many_tools(3, 2)) as s:
        await s.initialize("2025-11-25")
        reply = await s.request("tools/list", {"cursor": cursor})
        if cursor is None:  # an explicit null cursor is the first page
            assert [t["name"] for t in reply["result"]["tools"]] == ["t0", "t1"]
        else:
            assert reply["error"]["code"] == -32602


async def test_tools_list_definition() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        tools = (await s.result("tools/list"))["tools"]
        assert tools[0] == {
            "name": "add",
            "description": "Add two integers.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": False,
            },
            "outputSchema": {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
            },
        }


# --- tools/call ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_call(version: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize(version)
        result = await s.call("add", {"a": 2, "b": 3})
        assert result["content"] == [{"type": "text", "text": "5"}]
        assert result["isError"] is False
        if version >= "2025-06-18":
            assert result["structuredContent"] == {"result": 5}
        else:
            assert "structuredContent" not in result


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"name": "missing"}, "Unknown tool: missing"),
        ({}, "name"),
        ({"name": 5}, "name"),
        ({"name": "add", "arguments": [1, 2]}, "arguments"),
        ({"name": "add", "arguments": "a=1"}, "arguments"),
    ],
)
async def test_call_protocol_errors(params: dict[str, Any], fragment: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-06-18")
        reply = await s.request("tools/call", params)
        assert reply["error"]["code"] == -32602
        assert fragment in reply["error"]["message"]


async def test_call_wrong_argument_types_is_an_error_result() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        result = await s.call("add", {"a": "x"})
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert "a" in text and "b" in text


async def test_call_without_arguments() -> None:
    app = Server("x")

    @app.tool
    def hello() -> str:
        return "hi"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        assert (await s.call("hello"))["content"] == [{"type": "text", "text": "hi"}]
        reply = await s.result("tools/call", {"name": "hello", "arguments": None})
        assert reply["content"] == [{"type": "text", "text": "hi"}]


# --- list_changed ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_list_changed_after_add_and_remove(version: str) -> None:
    app = make_server()
    async with Session(app) as s:
        await s.initialize(version)
        app.add_tool(lambda: "new", name="fresh")
        await s.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")
        names = [t["name"] for t in (await s.result("tools/list"))["tools"]]
        assert "fresh" in names
        app.remove_tool("fresh")
        await s.wait_for(lambda m: len(s.notifications("notifications/tools/list_changed")) == 2)
        names = [t["name"] for t in (await s.result("tools/list"))["tools"]]
        assert "fresh" not in names


async def test_no_list_changed_before_initialize() -> None:
    app = make_server()
    async with Session(app) as s:
        app.add_tool(lambda: "new", name="fresh")
        assert await s.quiet(0.05) == []


async def test_a_post_from_a_thread_to_a_connection_closed_meanwhile_is_dropped() -> None:
    def note(data: int) -> dict[str, Any]:
        return jsonrpc.notification_message(
            "notifications/message", {"level": "info", "data": data}
        )

    def post_from_a_thread(message: dict[str, Any]) -> None:
        poster = threading.Thread(target=s.conn.post, args=(message,))
        poster.start()
        poster.join()  # the loop's thread waits here: the hand-off is queued, not yet run

    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        post_from_a_thread(note(1))  # while open, a post from a thread arrives
        assert await s.wait_for(lambda m: m.get("method") == "notifications/message") == note(1)
        post_from_a_thread(note(2))
        s.conn.close()
        await s.drain()  # the queued hand-off has run, and whatever it started
        assert s.notifications("notifications/message") == [note(1)]


async def test_list_changed_from_a_worker_thread() -> None:
    app = make_server()

    @app.tool
    def register() -> str:
        app.add_tool(lambda: "new", name="late")
        return "ok"

    async with Session(app) as s:
        await s.initialize("2025-06-18")
        await s.call("register")
        await s.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")


# --- batches ---------------------------------------------------------------------------------


async def test_batch_on_2025_03_26() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-03-26")
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 10, "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/whatever"},
                {
                    "jsonrpc": "2.0",
                    "id": 11,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 1}},
                },
                {"jsonrpc": "2.0", "id": 12, "method": "nope"},
                {"jsonrpc": "1.0", "id": 13, "method": "ping"},
            ]
        )
        reply = await s.next_message()
        assert isinstance(reply, list)
        by_id = {m["id"]: m for m in reply}
        assert set(by_id) == {10, 11, 12, 13}
        assert by_id[10]["result"] == {}
        assert by_id[11]["result"]["content"] == [{"type": "text", "text": "2"}]
        assert by_id[12]["error"]["code"] == -32601
        assert by_id[13]["error"]["code"] == -32600


async def test_batch_of_notifications_gets_no_reply() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-03-26", initialized=False)
        await s.send(
            [
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            ]
        )
        assert await s.quiet(0.1) == []
        assert s.conn.session.initialized


async def test_initialize_inside_a_batch_is_refused() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-03-26")
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            ]
        )
        reply = await s.next_message()
        assert {m["id"]: ("error" in m) for m in reply} == {1: True, 2: False}


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25"])
async def test_batch_elsewhere_is_refused_per_request(version: str) -> None:
    async with Session(make_server()) as s:
        await s.initialize(version)
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 101, "method": "ping"},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": "two", "method": "ping"},
            ]
        )
        first = await s.response(101)
        second = await s.response("two")
        assert first["error"]["code"] == second["error"]["code"] == -32600
        assert "2025-03-26" in first["error"]["message"]
        assert await s.quiet(0.05) == []


async def test_batch_of_notifications_elsewhere() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        await s.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
        reply = await s.next_message()
        assert "id" not in reply and reply["error"]["code"] == -32600
    async with Session(make_server()) as s:
        await s.initialize("2025-06-18")
        await s.send([{"jsonrpc": "2.0", "method": "notifications/initialized"}])
        assert await s.quiet(0.05) == []


# --- concurrency and cancellation ------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_cancel_a_running_tool(version: str) -> None:
    app = make_server()
    started, cancelled, gate = anyio.Event(), anyio.Event(), anyio.Event()
    went_on: list[str] = []

    @app.tool
    async def wait_at_gate() -> str:
        started.set()
        try:
            await gate.wait()
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        went_on.append("past the gate")
        return "released"

    async with Session(app) as s:
        await s.initialize(version)
        call_id = await s.start("tools/call", {"name": "wait_at_gate"})
        with anyio.fail_after(5):
            await started.wait()
        await s.notify("notifications/cancelled", {"requestId": call_id, "reason": "bored"})
        with anyio.fail_after(5):
            await cancelled.wait()  # the tool saw its own cancellation
        ping = await s.request("ping")
        assert ping["result"] == {}
        assert s.replies_to(call_id, s.upto(ping)) == []
        gate.set()  # nothing is left waiting at it
        await s.settle()
        assert not s.conn.in_use(call_id)
        assert went_on == []
        assert (await s.call("add", {"a": 1, "b": 1}))["content"][0]["text"] == "2"
    assert s.replies_to(call_id) == []


async def test_cancel_a_sync_tool_in_a_thread() -> None:
    """Python cannot stop a thread, so "cancelled" means: the request ends at once without a
    reply while its thread runs on; the thread can see `ctx.cancelled`, and what it returns is
    dropped."""
    app = make_server()
    entered, gate, finished = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    @app.tool
    def blocking(ctx: Context) -> str:
        entered.set()
        gate.wait(10)  # the bound only keeps a failing test from leaving a thread behind
        seen.append(ctx.cancelled)
        finished.set()
        return "late"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        call_id = await s.start("tools/call", {"name": "blocking"})
        assert await anyio.to_thread.run_sync(entered.wait, 5)
        await s.notify("notifications/cancelled", {"requestId": call_id})
        await s.settle()  # the request has ended, while its thread still waits at the gate
        assert not s.conn.in_use(call_id)
        assert not finished.is_set()
        gate.set()
        assert await anyio.to_thread.run_sync(finished.wait, 5)  # the thread was not killed
        assert seen == [True]
        ping = await s.request("ping")
        assert ping["result"] == {}
        assert s.replies_to(call_id) == []
    assert s.replies_to(call_id) == []


async def test_cancel_that_arrives_before_the_request_has_started() -> None:
    """The request's task is cancelled before its first step: the tool never runs, no reply,
    nothing left behind."""
    app = make_server()
    ran: list[int] = []

    @app.tool
    async def record(n: int) -> int:
        ran.append(n)
        return n

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        # no await between the two lines that yields to the loop: the request has not started
        await s.start("tools/call", {"name": "record", "arguments": {"n": 1}}, id=77)
        await s.notify("notifications/cancelled", {"requestId": 77})
        ping = await s.request("ping")
        assert ping["result"] == {}
        assert s.replies_to(77, s.upto(ping)) == []
        await s.settle()
        assert ran == []
        assert not s.conn.in_use(77)
        assert s.replies_to(77) == []
        assert (await s.call("record", {"n": 2}))["content"][0]["text"] == "2"
        assert ran == [2]
    assert s.replies_to(77) == []


async def test_closing_the_connection_cancels_running_requests() -> None:
    app = make_server()
    started, stopped = anyio.Event(), anyio.Event()

    @app.tool
    async def forever() -> str:
        started.set()
        try:
            await anyio.sleep_forever()
        finally:
            stopped.set()
        return "never"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        call_id = await s.start("tools/call", {"name": "forever"})
        with anyio.fail_after(5):
            await started.wait()
        assert s.conn.in_use(call_id)
        s.conn.close()
        with anyio.fail_after(2):
            await stopped.wait()
        await s.settle()
        assert not s.conn.busy
        assert s.replies_to(call_id) == []


async def test_slow_tool_does_not_block_ping_or_other_calls() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-06-18")
        slow_id = await s.start("tools/call", {"name": "slow", "arguments": {"seconds": 0.5}})
        with anyio.fail_after(0.4):
            assert (await s.request("ping"))["result"] == {}
            assert (await s.call("add", {"a": 1, "b": 2}))["content"][0]["text"] == "3"
        reply = await s.response(slow_id, timeout=3)
        assert reply["result"]["content"] == [{"type": "text", "text": "done"}]


async def test_many_concurrent_calls() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        ids = [
            await s.start("tools/call", {"name": "slow", "arguments": {"seconds": 0.2}})
            for _ in range(20)
        ]
        with anyio.fail_after(2):
            for request_id in ids:
                assert (await s.response(request_id))["result"]["content"][0]["text"] == "done"


async def test_a_stateless_request_in_a_batch_is_refused() -> None:
    async with Session(make_server(), revision_hint="2025-03-26") as s:
        await s.initialize("2025-03-26")
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        await s.send(
            [
                {"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"_meta": meta}},
                {"jsonrpc": "2.0", "id": 12, "method": "ping"},
            ]
        )
        batch = await s.next_message()
        assert sorted(batch, key=lambda m: m["id"]) == [
            {
                "jsonrpc": "2.0",
                "id": 11,
                "error": {
                    "code": -32600,
                    "message": "Invalid Request: a 2026-07-28 request cannot travel in a JSON-RPC"
                    " batch",
                },
            },
            {"jsonrpc": "2.0", "id": 12, "result": {}},
        ]
