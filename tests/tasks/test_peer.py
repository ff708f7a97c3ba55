"""What a running task's Context reaches: its progress as a status message, its logs per era."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from plainmcp import Context, Server
from plainmcp.tasks import MemoryTaskStore, TaskRecord
from plainmcp.tasks.eras import ERAS, Era
from plainmcp.tasks.peer import TaskPeer, progress_text
from tests.conftest import Session

pytestmark = pytest.mark.anyio


def test_progress_reads_as_a_status_message() -> None:
    assert progress_text({"progress": 2, "total": 4}) == "2/4"
    assert progress_text({"progress": 0.5}) == "0.5"
    assert progress_text({"progress": 1, "message": "copying"}) == "copying"


async def test_a_core_task_logs_with_its_related_task() -> None:
    release = anyio.Event()
    app = Server("t")

    @app.tool(task="optional")
    async def chatty(ctx: Context) -> str:
        await ctx.info("working on it")
        await release.wait()
        return "ok"

    async with Session(app) as s:
        await s.initialize("2025-11-25")
        created = await s.result("tools/call", {"name": "chatty", "task": {}})
        note = await s.wait_for(lambda m: m.get("method") == "notifications/message")
        assert note["params"] == {
            "level": "info",
            "data": "working on it",
            "_meta": {
                "io.modelcontextprotocol/related-task": {"taskId": created["task"]["taskId"]}
            },
        }
        release.set()
        await s.result("tasks/result", {"taskId": created["task"]["taskId"]})


class Recorder:
    """The original peer of a 2025-11-25 task: records what it is asked, and on which stream."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any], Any]] = []

    async def ask(
        self, method: str, params: dict[str, Any], *, timeout: float, related_to: Any = None
    ) -> dict[str, Any]:
        self.asked.append((method, params, related_to))
        return {"action": "accept", "content": {"ok": True}}


@dataclass
class CoreRun:
    store: MemoryTaskStore
    streams: dict[str, tuple[Any, Any]]
    task_id: str | None = "t1"
    owner: str | None = None
    era: Era = ERAS["2025-11-25"]
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)

    async def become_task(self) -> bool:
        return True


async def test_a_core_task_asks_on_the_stream_of_its_open_tasks_result() -> None:
    store = MemoryTaskStore()
    await store.create(TaskRecord("t1", None, created_at=0, updated_at=0, ttl_ms=None, poll_ms=1))
    original = Recorder()
    run = CoreRun(store, {"t1": (original, 7)})
    peer = TaskPeer(original, run)  # type: ignore[arg-type]
    answer = await peer.ask("elicitation/create", {"message": "ok?"}, timeout=5)
    assert answer == {"action": "accept", "content": {"ok": True}}
    assert original.asked == [
        (
            "elicitation/create",
            {"message": "ok?", "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}},
            7,
        )
    ]
    record = await store.get("t1", None)
    assert record is not None
    assert (record.status, record.responses) == ("working", {"elicitation-1": answer})
    run.streams.clear()
    await peer.ask("elicitation/create", {"message": "again?"}, timeout=5)
    assert original.asked[-1][2] is None
