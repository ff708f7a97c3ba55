"""The tasks/* handlers on their own: paging per principal, and another principal's task
answered exactly as an unknown one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from plainmcp.tasks import MemoryTaskStore, TaskRecord
from plainmcp.tasks.handlers import TaskMethods
from plainmcp.wire.jsonrpc import RpcError
from plainmcp.wire.revisions import REVISIONS

pytestmark = pytest.mark.anyio


def exchange(principal: Any, **params: Any) -> Any:
    request = SimpleNamespace(params=params, id=1)
    return SimpleNamespace(revision=REVISIONS["2025-11-25"], principal=principal, request=request)


ANN, BOB = SimpleNamespace(key="sub:ann"), SimpleNamespace(key="sub:bob")


async def served() -> TaskMethods:
    store = MemoryTaskStore()
    for n, owner in enumerate(["sub:ann", "sub:bob", "sub:ann", "sub:ann"]):
        await store.create(
            TaskRecord(f"t{n}", owner, created_at=n, updated_at=n, ttl_ms=None, poll_ms=1)
        )
    return TaskMethods(store, page_size=2)


async def test_tasks_list_pages_through_the_callers_own_tasks_only() -> None:
    methods = await served()
    first = await methods.list(None, exchange(ANN))
    assert [t["taskId"] for t in first["tasks"]] == ["t0", "t2"]
    second = await methods.list(None, exchange(ANN, cursor=first["nextCursor"]))
    assert ([t["taskId"] for t in second["tasks"]], "nextCursor" in second) == (["t3"], False)
    assert [t["taskId"] for t in (await methods.list(None, exchange(BOB)))["tasks"]] == ["t1"]


async def test_another_principals_task_is_answered_as_an_unknown_one() -> None:
    methods = await served()
    answers = []
    for task_id in ("t1", "no-such-task"):
        with pytest.raises(RpcError) as caught:
            await methods.get(None, exchange(ANN, taskId=task_id))
        answers.append((caught.value.code, caught.value.message, caught.value.data))
    assert answers[0] == answers[1] == (-32602, "Failed to retrieve task: Task not found", None)
