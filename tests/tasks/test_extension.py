"""Tasks through the server, in memory, on both eras: every message the server writes is
validated (the core schema; the extension's own for its 2026-07-28 messages)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from plainmcp import Context, Server, ToolError
from plainmcp.tasks import MemoryTaskStore
from plainmcp.tasks.extension import Tasks
from tests.conftest import Session

pytestmark = pytest.mark.anyio

AT = 1_780_000_000.0
MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"


def clock() -> float:
    return AT


def modern_meta(extensions: bool = True) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"elicitation": {}}
    if extensions:
        capabilities["extensions"] = {TASKS: {}}
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
    }


class Gate:
    """A tool's way to wait for the test: the test releases it."""

    def __init__(self) -> None:
        self.entered = anyio.Event()
        self.release = anyio.Event()

    async def __call__(self) -> None:
        self.entered.set()
        await self.release.wait()


def make_app(gate: Gate, **tasks: Any) -> Server:
    app = Server("tasks-test", tasks=Tasks(clock=clock, **tasks), continuation=None)

    @app.tool(task="optional")
    async def build(target: str) -> str:
        await gate()
        return f"built {target}"

    @app.tool(task="required")
    async def report() -> str:
        await gate()
        raise ToolError("no data")

    @app.tool
    def plain() -> str:
        return "plain"

    @app.tool(task="optional")
    async def ask(ctx: Context) -> str:
        await ctx.become_task()
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {}})
        return f"{answer.action} {answer.content}"

    return app


# --- 2025-11-25: the client asks for a task -----------------------------------------------------


async def test_core_tasks_are_announced_and_each_tool_says_its_support() -> None:
    app = make_app(Gate())
    async with Session(app) as s:
        init = await s.initialize("2025-11-25")
        assert init["capabilities"]["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
        tools = {t["name"]: t.get("execution") for t in (await s.result("tools/list"))["tools"]}
        assert tools == {
            "build": {"taskSupport": "optional"},
            "report": {"taskSupport": "required"},
            "plain": None,
            "ask": {"taskSupport": "optional"},
        }


async def test_a_core_task_runs_on_and_tasks_result_waits_for_its_end() -> None:
    gate = Gate()
    app = make_app(gate)
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        created = await s.result(
            "tools/call", {"name": "build", "arguments": {"target": "x"}, "task": {"ttl": 5000}}
        )
        task = created["task"]
        assert (task["status"], task["ttl"], task["pollInterval"]) == ("working", 5000, 1000)
        await gate.entered.wait()
        got = await s.result("tasks/get", {"taskId": task["taskId"]})
        assert got["status"] == "working"
        waiting = await s.start("tasks/result", {"taskId": task["taskId"]})
        gate.release.set()
        reply = await s.response(waiting)
        assert reply["result"] == {
            "content": [{"type": "text", "text": "built x"}],
            "isError": False,
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": task["taskId"]}},
        }
        status = await s.wait_for(lambda m: m.get("method") == "notifications/tasks/status")
        assert status["params"]["status"] == "completed"
        listed = await s.result("tasks/list", {})
        assert [t["taskId"] for t in listed["tasks"]] == [task["taskId"]]


async def test_a_tool_error_fails_a_core_task_and_its_result_is_the_error_result() -> None:
    gate = Gate()
    gate.release.set()
    app = make_app(gate)
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        created = await s.result("tools/call", {"name": "report", "task": {}})
        result = await s.result("tasks/result", {"taskId": created["task"]["taskId"]})
        assert (result["isError"], result["content"][0]["text"]) == (True, "no data")
        got = await s.result("tasks/get", {"taskId": created["task"]["taskId"]})
        assert got["status"] == "failed"


async def test_core_errors_the_spec_names() -> None:
    app = make_app(Gate())
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        required = await s.request("tools/call", {"name": "report"})
        assert required["error"]["code"] == -32601
        forbidden = await s.request("tools/call", {"name": "plain", "task": {}})
        assert forbidden["error"]["code"] == -32601
        unknown = await s.request("tasks/get", {"taskId": "nope"})
        assert unknown["error"] == {
            "code": -32602,
            "message": "Failed to retrieve task: Task not found",
        }
        assert (await s.request("tasks/update", {"taskId": "x", "inputResponses": {}}))["error"][
            "code"
        ] == -32601
        assert (await s.request("tasks/list", {"cursor": "bogus"}))["error"]["code"] == -32602


async def test_an_optional_tool_answers_a_plain_call_plainly() -> None:
    gate = Gate()
    gate.release.set()
    app = make_app(gate)
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        assert await s.call("build", {"target": "y"}) == {
            "content": [{"type": "text", "text": "built y"}],
            "isError": False,
        }


async def test_core_cancel_answers_the_cancelled_task_and_refuses_a_finished_one() -> None:
    gate = Gate()
    app = make_app(gate)
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        created = await s.result(
            "tools/call", {"name": "build", "arguments": {"target": "z"}, "task": {}}
        )
        task_id = created["task"]["taskId"]
        await gate.entered.wait()
        cancelled = await s.result("tasks/cancel", {"taskId": task_id})
        assert (cancelled["taskId"], cancelled["status"]) == (task_id, "cancelled")
        again = await s.request("tasks/cancel", {"taskId": task_id})
        assert again["error"]["code"] == -32602


async def test_older_revisions_have_no_tasks() -> None:
    app = make_app(Gate())
    async with Session(app, revision_hint="2025-06-18") as s:
        init = await s.initialize("2025-06-18")
        assert "tasks" not in init["capabilities"]
        reply = await s.request("tasks/get", {"taskId": "x"})
        assert reply["error"] == {"code": -32601, "message": "Method not found: tasks/get"}


# --- 2026-07-28: the server decides -------------------------------------------------------------


async def test_a_modern_call_within_the_budget_answers_inline() -> None:
    gate = Gate()
    gate.release.set()
    app = make_app(gate)
    async with Session(app, revision_hint=MODERN) as s:
        result = await s.result(
            "tools/call", {"name": "build", "arguments": {"target": "q"}, "_meta": modern_meta()}
        )
        assert (result["resultType"], result["content"][0]["text"]) == ("complete", "built q")


async def test_a_modern_call_past_the_budget_becomes_a_task_whose_result_is_inlined() -> None:
    gate = Gate()
    spent = anyio.Event()

    async def budget(_: float) -> None:
        await spent.wait()

    app = make_app(gate, sleep=budget)
    async with Session(app, revision_hint=MODERN) as s:
        call = await s.start(
            "tools/call", {"name": "build", "arguments": {"target": "w"}, "_meta": modern_meta()}
        )
        await gate.entered.wait()
        spent.set()
        created = (await s.response(call))["result"]
        assert (created["resultType"], created["status"], created["ttlMs"]) == (
            "task",
            "working",
            3_600_000,
        )
        gate.release.set()
        task_id = created["taskId"]
        store = app.tasks.store if app.tasks else None
        assert isinstance(store, MemoryTaskStore)
        record = await store.wait(task_id, None, 0, 5.0)
        while record is not None and not record.terminal:
            record = await store.wait(task_id, None, record.version, 5.0)
        got = await s.result("tasks/get", {"taskId": task_id, "_meta": modern_meta()})
        assert got["status"] == "completed"
        assert got["result"]["content"] == [{"type": "text", "text": "built w"}]


async def test_modern_input_requests_are_answered_with_tasks_update() -> None:
    app = make_app(Gate())
    async with Session(app, revision_hint=MODERN) as s:
        created = await s.result("tools/call", {"name": "ask", "_meta": modern_meta()})
        task_id = created["taskId"]
        store = app.tasks.store if app.tasks else None
        assert store is not None
        record = await store.get(task_id, None)
        while record is not None and record.status != "input_required":
            record = await store.wait(task_id, None, record.version, 5.0)
        got = await s.result("tasks/get", {"taskId": task_id, "_meta": modern_meta()})
        assert got["inputRequests"] == {
            "elicitation-1": {
                "method": "elicitation/create",
                "params": {
                    "message": "Name?",
                    "requestedSchema": {"type": "object", "properties": {}},
                },
            }
        }
        ack = await s.result(
            "tasks/update",
            {
                "taskId": task_id,
                "inputResponses": {"elicitation-1": {"action": "accept", "content": {"n": 1}}},
                "_meta": modern_meta(),
            },
        )
        assert set(ack) == {"resultType", "_meta"}
        while record is not None and not record.terminal:
            record = await store.wait(task_id, None, record.version, 5.0)
        assert record is not None and record.result is not None
        assert record.result["content"][0]["text"] == "accept {'n': 1}"


async def test_a_modern_client_without_the_extension_gets_minus_32021() -> None:
    app = make_app(Gate())
    async with Session(app, revision_hint=MODERN) as s:
        for method in ("tasks/get", "tasks/cancel"):
            reply = await s.request(method, {"taskId": "x", "_meta": modern_meta(False)})
            assert reply["error"]["code"] == -32021
            assert reply["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
        required = await s.request("tools/call", {"name": "report", "_meta": modern_meta(False)})
        assert required["error"]["code"] == -32021
        for method in ("tasks/result", "tasks/list"):
            reply = await s.request(method, {"taskId": "x", "_meta": modern_meta()})
            assert reply["error"]["code"] == -32601


async def test_another_principal_gets_what_an_unknown_id_gets() -> None:
    gate = Gate()
    app = make_app(gate, budget=0)
    async with Session(app, revision_hint=MODERN) as s:
        created = await s.result(
            "tools/call", {"name": "build", "arguments": {"target": "p"}, "_meta": modern_meta()}
        )
        store = app.tasks.store if app.tasks else None
        assert store is not None
        assert await store.get(created["taskId"], "sub:someone-else") is None
        assert await store.get(created["taskId"], None) is not None
        gate.release.set()


async def test_a_task_is_unknown_to_a_request_of_another_revision() -> None:
    gate = Gate()
    app = make_app(gate, budget=0)
    async with Session(app, revision_hint=MODERN) as s:
        created = await s.result(
            "tools/call", {"name": "build", "arguments": {"target": "e"}, "_meta": modern_meta()}
        )
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        reply = await s.request("tasks/get", {"taskId": created["taskId"]})
        assert reply["error"]["code"] == -32602
        assert (await s.result("tasks/list", {}))["tasks"] == []
    gate.release.set()
