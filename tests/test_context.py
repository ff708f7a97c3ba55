"""Context: progress, client logging, requests to the client, cancellation; timeouts and limits.

Everything goes through the in-memory Session, which validates each message the server writes.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import anyio
import pytest

from plainmcp import Server
from plainmcp.context import Context
from tests.conftest import Session
from tests.transports.http.asgi import meta

pytestmark = pytest.mark.anyio


def make_server(**options: Any) -> Server:
    app = Server("ctx", version="1.0.0", **options)

    @app.tool
    async def steps(n: int, ctx: Context) -> str:
        """Report progress n times (and once backwards, which must not be sent)."""
        for i in range(1, n + 1):
            await ctx.report_progress(i, n, f"step {i}")
        await ctx.report_progress(0.5)
        return "done"

    @app.tool
    async def chatty(ctx: Context) -> str:
        for level in ("debug", "info", "warning", "error"):
            await ctx.log(level, {"level": level}, logger="chatty")  # type: ignore[arg-type]
        return "logged"

    @app.tool
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        if answer.action != "accept" or answer.content is None:
            return f"no name ({answer.action})"
        return f"hello {answer.content['name']}"

    @app.tool
    async def haiku(topic: str, ctx: Context) -> str:
        result = await ctx.sample(f"A haiku about {topic}", max_tokens=50)
        return f"{result.model}: {result.text}"

    @app.tool
    async def roots(ctx: Context) -> list[str]:
        return [root.uri for root in await ctx.list_roots()]

    @app.tool
    def info(ctx: Context) -> dict[str, Any]:
        return {
            "revision": ctx.revision,
            "client": ctx.client_info.get("name"),
            "request": ctx.request_id,
            "token": ctx.progress_token,
        }

    @app.tool
    def extensions(ctx: Context) -> dict[str, Any]:
        return dict(ctx.client_extensions)

    @app.tool
    async def slow(seconds: float) -> str:
        await anyio.sleep(seconds)
        return "slept"

    return app


def text(result: dict[str, Any]) -> str:
    block = result["content"][0]
    assert block["type"] == "text"
    value: str = block["text"]
    return value


async def test_progress_follows_the_token_and_only_increases() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        reply = await s.result(
            "tools/call", {"name": "steps", "arguments": {"n": 3}, "_meta": {"progressToken": "p1"}}
        )
        assert text(reply) == "done"
        assert [m["params"] for m in s.notifications("notifications/progress")] == [
            {"progressToken": "p1", "progress": 1, "total": 3, "message": "step 1"},
            {"progressToken": "p1", "progress": 2, "total": 3, "message": "step 2"},
            {"progressToken": "p1", "progress": 3, "total": 3, "message": "step 3"},
        ]


async def test_progress_without_a_token_sends_nothing() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        assert text(await s.call("steps", {"n": 2})) == "done"
        assert s.notifications("notifications/progress") == []


async def test_progress_message_is_dropped_for_2024_11_05() -> None:
    async with Session(make_server(), revision_hint="2024-11-05") as s:
        await s.initialize("2024-11-05")
        await s.result(
            "tools/call", {"name": "steps", "arguments": {"n": 1}, "_meta": {"progressToken": 5}}
        )
        assert [m["params"] for m in s.notifications("notifications/progress")] == [
            {"progressToken": 5, "progress": 1, "total": 1}
        ]


@pytest.mark.parametrize("token", [1.5, True, None, {"a": 1}, [1]])
async def test_progress_token_of_the_wrong_type_is_invalid_params(token: Any) -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        meta: dict[str, Any] = {"progressToken": token}
        reply = await s.request(
            "tools/call", {"name": "steps", "arguments": {"n": 1}, "_meta": meta}
        )
        if token is None:
            assert text(reply["result"]) == "done"
            return
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid params: _meta.progressToken must be a string or an integer",
        }
        assert text(await s.call("steps", {"n": 1})) == "done"


async def test_meta_must_be_an_object() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        reply = await s.request("tools/list", {"_meta": "x"})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid params: _meta must be an object",
        }


async def test_logging_honours_set_level() -> None:
    async with Session(make_server()) as s:
        init = await s.initialize("2025-11-25")
        assert init["capabilities"]["logging"] == {}
        await s.call("chatty")
        assert [m["params"]["level"] for m in s.notifications("notifications/message")] == [
            "debug",
            "info",
            "warning",
            "error",
        ]
        assert await s.result("logging/setLevel", {"level": "warning"}) == {}
        before = len(s.notifications("notifications/message"))
        await s.call("chatty")
        assert [m["params"] for m in s.notifications("notifications/message")[before:]] == [
            {"level": "warning", "data": {"level": "warning"}, "logger": "chatty"},
            {"level": "error", "data": {"level": "error"}, "logger": "chatty"},
        ]


async def test_set_level_refuses_unknown_levels() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        reply = await s.request("logging/setLevel", {"level": "loud"})
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid params: level must be one of debug, info, notice, warning, error,"
            " critical, alert, emergency",
        }


async def answer_next_request(s: Session, method: str, result: dict[str, Any]) -> dict[str, Any]:
    """Wait for the server's request `method` and answer it; returns the request."""
    request = await s.wait_for(lambda m: isinstance(m, dict) and m.get("method") == method)
    await s.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    message: dict[str, Any] = request
    return message


async def test_elicitation_round_trip() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25", capabilities={"elicitation": {}})
        call_id = await s.start("tools/call", {"name": "ask_name"})
        request = await answer_next_request(
            s, "elicitation/create", {"action": "accept", "content": {"name": "Ada"}}
        )
        assert request["params"] == {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        }
        reply = await s.response(call_id)
        assert text(reply["result"]) == "hello Ada"


async def test_elicitation_declined() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25", capabilities={"elicitation": {}})
        call_id = await s.start("tools/call", {"name": "ask_name"})
        await answer_next_request(s, "elicitation/create", {"action": "decline"})
        assert text((await s.response(call_id))["result"]) == "no name (decline)"


async def test_elicitation_without_the_capability_is_a_tool_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        with caplog.at_level(logging.DEBUG, logger="plainmcp"):
            result = await s.call("ask_name")
        assert result["isError"] is True
        assert text(result) == (
            "Tool 'ask_name' failed: ClientCapabilityError: the client did not declare the"
            " 'elicitation' capability, so elicitation/create cannot be sent to it"
        )
    # An expected refusal: one WARNING line, no traceback.
    [record] = [r for r in caplog.records if r.name == "plainmcp"]
    assert (record.levelno, record.getMessage(), record.exc_info) == (
        logging.WARNING,
        "tool 'ask_name' refused (ClientCapabilityError): the client did not declare the"
        " 'elicitation' capability, so elicitation/create cannot be sent to it",
        None,
    )


async def test_elicitation_needs_a_revision_that_has_it() -> None:
    async with Session(make_server(), revision_hint="2025-03-26") as s:
        await s.initialize("2025-03-26", capabilities={"elicitation": {}})
        result = await s.call("ask_name")
        assert text(result) == (
            "Tool 'ask_name' failed: ClientCapabilityError: protocol revision 2025-03-26 has no"
            " elicitation/create"
        )


async def test_an_unanswered_elicitation_times_out_and_is_cancelled() -> None:
    async with Session(make_server(client_request_timeout=0.2)) as s:
        await s.initialize("2025-11-25", capabilities={"elicitation": {}})
        result = await s.call("ask_name")
        assert result["isError"] is True
        assert text(result) == (
            "Tool 'ask_name' failed: TimeoutError: the client did not answer elicitation/create"
            " within 0.2 seconds"
        )
        request = s.notifications("elicitation/create")[0]
        assert [m["params"] for m in s.notifications("notifications/cancelled")] == [
            {"requestId": request["id"], "reason": "timed out"}
        ]
        # A late answer is ignored, and the session goes on.
        await s.send({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "cancel"}})
        assert await s.result("ping") == {}


async def test_an_error_answer_reaches_the_tool() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25", capabilities={"elicitation": {}})
        call_id = await s.start("tools/call", {"name": "ask_name"})
        request = await s.wait_for(
            lambda m: isinstance(m, dict) and m.get("method") == "elicitation/create"
        )
        await s.send(
            {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -1, "message": "no UI"}}
        )
        assert (
            text((await s.response(call_id))["result"])
            == "Tool 'ask_name' failed: ClientRequestError: no UI"
        )


async def test_sampling_round_trip() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-06-18", capabilities={"sampling": {}})
        call_id = await s.start("tools/call", {"name": "haiku", "arguments": {"topic": "rain"}})
        request = await answer_next_request(
            s,
            "sampling/createMessage",
            {
                "role": "assistant",
                "content": {"type": "text", "text": "soft rain on the roof"},
                "model": "m-1",
                "stopReason": "endTurn",
            },
        )
        assert request["params"] == {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "A haiku about rain"}}
            ],
            "maxTokens": 50,
        }
        assert text((await s.response(call_id))["result"]) == "m-1: soft rain on the roof"


async def test_roots_round_trip() -> None:
    async with Session(make_server(), revision_hint="2024-11-05") as s:
        await s.initialize("2024-11-05", capabilities={"roots": {}})
        call_id = await s.start("tools/call", {"name": "roots"})
        await answer_next_request(
            s, "roots/list", {"roots": [{"uri": "file:///a", "name": "A"}, {"uri": "file:///b"}]}
        )
        reply = await s.response(call_id)
        assert text(reply["result"]) == '["file:///a","file:///b"]'


async def test_request_metadata() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-06-18", client_info={"name": "probe", "version": "1"})
        reply = await s.request(
            "tools/call", {"name": "info", "_meta": {"progressToken": "t"}}, id="req-9"
        )
        assert reply["result"]["structuredContent"] == {
            "revision": "2025-06-18",
            "client": "probe",
            "request": "req-9",
            "token": "t",
        }


WIDGETS = {"com.example/widgets": {"size": 3}}


async def test_a_handshake_clients_extensions_are_those_of_its_initialize() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25", capabilities={"extensions": WIDGETS})
        reply = await s.request("tools/call", {"name": "extensions", "arguments": {}})
        assert reply["result"]["structuredContent"] == WIDGETS


async def test_a_stateless_requests_extensions_are_those_of_its_meta() -> None:

    async with Session(make_server(), revision_hint="2026-07-28") as s:
        declared = await s.request(
            "tools/call",
            {
                "name": "extensions",
                "arguments": {},
                "_meta": meta(capabilities={"extensions": WIDGETS}),
            },
        )
        bare = await s.request(
            "tools/call", {"name": "extensions", "arguments": {}, "_meta": meta()}
        )
        assert declared["result"]["structuredContent"] == WIDGETS
        assert bare["result"]["structuredContent"] == {}


async def test_extensions_that_are_not_an_object_read_as_empty() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25", capabilities={"extensions": ["com.example/widgets"]})
        reply = await s.request("tools/call", {"name": "extensions", "arguments": {}})
        assert reply["result"]["structuredContent"] == {}


async def test_tool_timeout_is_an_error_result_and_stops_the_work() -> None:
    app = make_server()
    cancelled, gate = anyio.Event(), anyio.Event()
    went_on: list[str] = []

    @app.tool(timeout=0.2)
    async def sleepy() -> str:
        try:
            await gate.wait()
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        went_on.append("past the gate")  # the work after the timeout point
        return "never"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        started = time.monotonic()
        result = await s.call("sleepy")
        assert time.monotonic() - started < 5
        assert result == {
            "content": [
                {
                    "type": "text",
                    "text": "Tool 'sleepy' timed out after 0.2 seconds and was stopped.",
                }
            ],
            "isError": True,
        }
        assert cancelled.is_set()  # the tool saw the cancellation before the answer went out
        gate.set()  # nothing waits at it any more
        assert await s.result("ping") == {}
        await s.settle()
        assert went_on == []


async def test_a_timed_out_sync_tool_is_abandoned_and_its_result_dropped() -> None:
    """A thread cannot be stopped: the call is answered at the timeout, the thread runs on to
    its end, and what it returns is never sent."""
    app = Server("abandon")
    gate, finished = threading.Event(), threading.Event()

    @app.tool(timeout=0.1)
    def stuck() -> str:
        gate.wait(10)  # the bound only keeps a failing test from leaving a thread behind
        finished.set()
        return "late"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        call_id = await s.start("tools/call", {"name": "stuck"})
        reply = await s.response(call_id)
        assert reply["result"] == {
            "content": [
                {
                    "type": "text",
                    "text": "Tool 'stuck' timed out after 0.1 seconds and was stopped.",
                }
            ],
            "isError": True,
        }
        await s.settle()  # the request is over while the thread still waits
        assert not finished.is_set()
        gate.set()
        assert await anyio.to_thread.run_sync(finished.wait, 5)
        assert await s.result("ping") == {}
        assert s.replies_to(call_id) == [reply]
    assert s.replies_to(call_id) == [reply]


async def test_server_wide_timeout() -> None:
    async with Session(make_server(tool_timeout=0.1)) as s:
        await s.initialize("2025-11-25")
        result = await s.call("slow", {"seconds": 10})
        assert text(result) == "Tool 'slow' timed out after 0.1 seconds and was stopped."
        assert text(await s.call("slow", {"seconds": 0})) == "slept"


async def test_concurrent_tools_are_bounded() -> None:
    """Two slots: the third call starts only when one of the first two ends, the fourth only
    when another does; a ping is never queued behind the bound."""
    app = Server("bounded", max_concurrent_tools=2)
    started: list[int] = []
    running = 0
    peak = 0
    gates: dict[int, anyio.Event] = {}
    one_started = anyio.Event()

    @app.tool
    async def work(n: int) -> int:
        nonlocal running, peak
        started.append(n)
        running += 1
        peak = max(peak, running)
        one_started.set()
        try:
            await gates[n].wait()
        finally:
            running -= 1
        return n

    async def until_started(count: int) -> None:
        nonlocal one_started
        with anyio.fail_after(5):
            while len(started) < count:
                await one_started.wait()
                one_started = anyio.Event()

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        gates.update({n: anyio.Event() for n in (1, 2, 3, 4)})
        ids = {}
        for n in gates:
            ids[n] = await s.start("tools/call", {"name": "work", "arguments": {"n": n}})
        await until_started(2)
        # The calls behind the bound had every chance to start while the ping was served.
        assert await s.result("ping") == {}
        assert started == [1, 2]
        gates[1].set()
        assert text((await s.response(ids[1]))["result"]) == "1"
        await until_started(3)
        assert await s.result("ping") == {}
        assert started == [1, 2, 3]
        gates[3].set()
        assert text((await s.response(ids[3]))["result"]) == "3"
        await until_started(4)
        gates[2].set()
        gates[4].set()
        for n in (2, 4):
            assert text((await s.response(ids[n]))["result"]) == str(n)
        assert started == [1, 2, 3, 4]
    assert peak == 2


async def test_a_sync_tool_can_see_cancellation() -> None:
    app = Server("cancel")
    seen = threading.Event()
    stop_seen = threading.Event()

    @app.tool
    def loop(ctx: Context) -> str:
        seen.set()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if ctx.cancelled:
                stop_seen.set()
                return "stopped"
            time.sleep(0.01)
        return "ran out"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        call_id = await s.start("tools/call", {"name": "loop"})
        await anyio.to_thread.run_sync(seen.wait, 5)
        await s.notify("notifications/cancelled", {"requestId": call_id, "reason": "user"})
        assert await anyio.to_thread.run_sync(stop_seen.wait, 5)
        await s.settle()
        assert await s.result("ping") == {}
        assert s.replies_to(call_id) == []
    assert s.replies_to(call_id) == []


async def test_multi_select_elicitation_needs_2025_11_25() -> None:
    app = Server("multi")

    @app.tool
    async def pick(ctx: Context) -> str:
        schema = {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["a"]}}},
        }
        answer = await ctx.elicit("Pick tags", schema)
        return answer.action

    async with Session(app, revision_hint="2025-06-18") as s:
        await s.initialize("2025-06-18", capabilities={"elicitation": {}})
        assert text(await s.call("pick")) == (
            "Tool 'pick' failed: ClientCapabilityError: protocol revision 2025-06-18 has no"
            " multi-select (array) elicitation fields"
        )
        assert s.notifications("elicitation/create") == []
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={"elicitation": {}})
        call_id = await s.start("tools/call", {"name": "pick"})
        await answer_next_request(s, "elicitation/create", {"action": "cancel"})
        assert text((await s.response(call_id))["result"]) == "cancel"


def test_the_log_level_type_and_the_wire_table_name_the_same_levels() -> None:
    import typing

    from plainmcp.context import LogLevel
    from plainmcp.wire.meta import LOG_LEVELS

    assert typing.get_args(LogLevel) == LOG_LEVELS
