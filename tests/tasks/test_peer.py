"""What a running task's Context reaches: its progress as a status message, its logs per era."""

from __future__ import annotations

import anyio
import pytest

from plainmcp import Context, Server
from plainmcp.tasks.peer import progress_text
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
