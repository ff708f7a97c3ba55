"""Running tasks: cancellation reaching async and sync tools, a cancel racing the end (the
first terminal state wins), progress as a status message, TTL expiry stopping the run."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import anyio
import pytest

from plainmcp import Context, Server
from plainmcp.tasks import MemoryTaskStore, TaskRecord
from plainmcp.tasks.extension import Tasks
from tests.conftest import Session

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
    "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "0"},
}


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0

    def __call__(self) -> float:
        return self.now


async def until(store: MemoryTaskStore, task_id: str, done: Any) -> TaskRecord:
    """The task's record once `done(record)` holds, woken by its changes (never polled)."""
    record = await store.get(task_id, None)
    while record is not None and not done(record):
        record = await store.wait(task_id, None, record.version, 5.0)
    assert record is not None
    return record


async def finished(app: Server) -> None:
    """Every run of the server has ended."""
    assert app.tasks is not None
    await asyncio.gather(*app.tasks.runner.running)


def served(app: Server) -> MemoryTaskStore:
    assert app.tasks is not None and isinstance(app.tasks.store, MemoryTaskStore)
    return app.tasks.store


async def start(s: Session, name: str) -> str:
    created = await s.result("tools/call", {"name": name, "_meta": META})
    assert created["resultType"] == "task"
    task_id: str = created["taskId"]
    return task_id


async def test_a_cancel_before_the_end_wins_over_the_result() -> None:
    entered, release = threading.Event(), threading.Event()
    app = Server("t", tasks=Tasks(budget=0))

    @app.tool(task="optional")
    def stubborn() -> str:  # ignores ctx: its thread runs to the end whatever happens
        entered.set()
        release.wait(5)
        return "finished anyway"

    async with Session(app, revision_hint=MODERN) as s:
        task_id = await start(s, "stubborn")
        await anyio.to_thread.run_sync(entered.wait, 5)
        ack = await s.result("tasks/cancel", {"taskId": task_id, "_meta": META})
        assert ack["resultType"] == "complete" and "status" not in ack
        release.set()
        await finished(app)
        record = await served(app).get(task_id, None)
        assert record is not None and (record.status, record.result) == ("cancelled", None)


async def test_an_end_before_the_cancel_wins_and_the_cancel_is_an_idempotent_ack() -> None:
    app = Server("t", tasks=Tasks(budget=0))

    @app.tool(task="optional")
    async def quick() -> str:
        return "done"

    async with Session(app, revision_hint=MODERN) as s:
        task_id = await start(s, "quick")
        await finished(app)
        for _ in range(2):
            ack = await s.result("tasks/cancel", {"taskId": task_id, "_meta": META})
            assert set(ack) == {"resultType", "_meta"}
        got = await s.result("tasks/get", {"taskId": task_id, "_meta": META})
        assert (got["status"], got["result"]["content"][0]["text"]) == ("completed", "done")


async def test_a_cancel_reaches_an_async_tool_as_cancellation() -> None:
    seen: list[str] = []
    entered = anyio.Event()
    app = Server("t", tasks=Tasks(budget=0))

    @app.tool(task="optional")
    async def waits() -> str:
        entered.set()
        try:
            await anyio.Event().wait()
        except anyio.get_cancelled_exc_class():
            seen.append("cancelled")
            raise
        return "never"

    async with Session(app, revision_hint=MODERN) as s:
        task_id = await start(s, "waits")
        await entered.wait()
        await s.result("tasks/cancel", {"taskId": task_id, "_meta": META})
        await finished(app)
    assert seen == ["cancelled"]


async def test_a_sync_tool_sees_the_cancel_through_its_context() -> None:
    entered, stopped = threading.Event(), threading.Event()
    app = Server("t", tasks=Tasks(budget=0))

    @app.tool(task="optional")
    def loops(ctx: Context) -> str:
        entered.set()
        while not ctx.cancelled:
            stopped.wait(0.01)
        stopped.set()
        return "stopped"

    async with Session(app, revision_hint=MODERN) as s:
        task_id = await start(s, "loops")
        await anyio.to_thread.run_sync(entered.wait, 5)
        await s.result("tasks/cancel", {"taskId": task_id, "_meta": META})
        await anyio.to_thread.run_sync(stopped.wait, 5)
        await finished(app)
    assert stopped.is_set()


async def test_progress_of_a_running_task_is_its_status_message() -> None:
    release = anyio.Event()
    app = Server("t", tasks=Tasks(budget=0))

    @app.tool(task="optional")
    async def steps(ctx: Context) -> str:
        await ctx.report_progress(1, 4)
        await ctx.report_progress(2, 4, "half way")
        await release.wait()
        return "all steps"

    async with Session(app, revision_hint=MODERN) as s:
        task_id = await start(s, "steps")
        await until(served(app), task_id, lambda r: r.message == "half way")
        got = await s.result("tasks/get", {"taskId": task_id, "_meta": META})
        assert (got["status"], got["statusMessage"]) == ("working", "half way")
        release.set()
        await finished(app)
        assert not [m for m in s.messages if m.get("method") == "notifications/progress"]


async def test_a_core_task_reports_progress_with_its_related_task() -> None:
    release = anyio.Event()
    app = Server("t", tasks=Tasks())

    @app.tool(task="optional")
    async def steps(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await release.wait()
        return "ok"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        params = {"name": "steps", "task": {}, "_meta": {"progressToken": "p1"}}
        created = await s.result("tools/call", params)
        note = await s.wait_for(lambda m: m.get("method") == "notifications/progress")
        assert note["params"] == {
            "progressToken": "p1",
            "progress": 1,
            "total": 2,
            "_meta": {
                "io.modelcontextprotocol/related-task": {"taskId": created["task"]["taskId"]}
            },
        }
        release.set()
        await finished(app)


async def test_an_expired_task_stops_its_run_and_is_unknown() -> None:
    clock = Clock()
    entered = anyio.Event()
    stopped: list[bool] = []
    app = Server(
        "t", tasks=Tasks(budget=0, ttl_ms=1000, clock=clock, store=MemoryTaskStore(clock=clock))
    )

    @app.tool(task="optional")
    async def forever() -> str:
        entered.set()
        try:
            await anyio.Event().wait()
        finally:
            stopped.append(True)
        return "never"

    async with Session(app, revision_hint=MODERN) as s:
        task_id = await start(s, "forever")
        await entered.wait()
        clock.now += 1.0
        reply = await s.request("tasks/get", {"taskId": task_id, "_meta": META})
        assert reply["error"]["code"] == -32602
        await finished(app)
    assert stopped == [True]


async def test_become_task_is_false_for_a_plain_call() -> None:
    seen: list[bool] = []
    app = Server("t")

    @app.tool(task="optional")
    async def maybe(ctx: Context) -> str:
        seen.append(await ctx.become_task())
        return "inline"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        assert (await s.call("maybe"))["content"][0]["text"] == "inline"
    assert seen == [False]
