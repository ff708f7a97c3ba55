"""A task's result is the result a plain call of the same tool gets: the same pipeline (the
host's profile, the payload guards, read_more, valid cuts) on both eras; only the envelope
that carries it differs."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from plainmcp import Context, Server
from plainmcp.tasks import MemoryTaskStore
from plainmcp.tasks.extension import Tasks
from tests.conftest import Session

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
HOST = {"name": "claude-code", "version": "2.1.328"}
REPORT = "".join(f"line {n}: {'x' * 60}\n" for n in range(20_000))  # about 1.4 MB of text


def make_app() -> Server:
    app = Server("pipeline", tasks=Tasks(clock=lambda: 1_780_000_000.0))

    @app.tool(task="optional")
    async def report(ctx: Context) -> str:
        await ctx.become_task()  # a task at once, for a client that can take one
        return REPORT

    return app


def modern_meta(declares_tasks: bool) -> dict[str, Any]:
    capabilities: dict[str, Any] = {"extensions": {TASKS: {}}} if declares_tasks else {}
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": HOST,
    }


def without_envelope(result: dict[str, Any]) -> Any:
    """The result without what says which request carried it, and with each call's own blob
    key and read_more ref (every call stores its own copy) named alike."""
    related = "io.modelcontextprotocol/related-task"
    meta = {k: v for k, v in result.get("_meta", {}).items() if k != related}
    plain = {k: v for k, v in result.items() if k not in ("_meta", "resultType")}
    text = json.dumps({**plain, "_meta": meta} if meta else plain)
    text = re.sub(r"plainmcp://blob/[A-Za-z0-9_.-]+", "plainmcp://blob/KEY", text)
    return json.loads(re.sub(r'\\"ref\\":\\"[^"\\]+\\"', "REF", text))


def read_more_ref(result: dict[str, Any]) -> str:
    found = re.search(r'"ref":"([^"]+)"', result["content"][0]["text"])
    assert found is not None
    return found.group(1)


def assert_cut(result: dict[str, Any]) -> None:
    """The plain call's result really went through the guards: cut, with a way to read on."""
    text = "".join(block.get("text", "") for block in result["content"])
    assert len(text) < len(REPORT) // 4
    assert "read_more" in text


async def finished(app: Server, task_id: str) -> None:
    store = app.tasks.store if app.tasks else None
    assert isinstance(store, MemoryTaskStore)
    record = await store.wait(task_id, None, 0, 5.0)
    while record is not None and not record.terminal:
        record = await store.wait(task_id, None, record.version, 5.0)


async def test_a_2025_11_25_task_result_is_the_plain_calls_result() -> None:
    app = make_app()
    async with Session(app) as s:
        await s.initialize("2025-11-25", client_info=HOST)
        plain = await s.result("tools/call", {"name": "report", "arguments": {}})
        created = await s.result("tools/call", {"name": "report", "arguments": {}, "task": {}})
        task_id = created["task"]["taskId"]
        via_task = await s.result("tasks/result", {"taskId": task_id})
        # The task's read_more ref reads on from where its cut ended, as the plain call's does.
        more = await s.result(
            "tools/call", {"name": "read_more", "arguments": {"ref": read_more_ref(via_task)}}
        )
        assert more["content"][0]["text"].startswith(REPORT[39_578:39_678])
    assert_cut(plain)
    assert via_task["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
    assert without_envelope(via_task) == without_envelope(plain)


async def test_a_2026_07_28_task_result_is_the_plain_calls_result() -> None:
    app = make_app()
    async with Session(app, revision_hint=MODERN) as s:
        call = {"name": "report", "arguments": {}}
        plain = await s.result("tools/call", {**call, "_meta": modern_meta(False)})
        created = await s.result("tools/call", {**call, "_meta": modern_meta(True)})
        assert (created["resultType"], created["status"]) == ("task", "working")
        await finished(app, created["taskId"])
        got = await s.result("tasks/get", {"taskId": created["taskId"], "_meta": modern_meta(True)})
    assert_cut(plain)
    assert got["status"] == "completed"
    assert without_envelope(got["result"]) == without_envelope(plain)
