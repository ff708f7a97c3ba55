"""MemoryTaskStore: ownership, expiry, waiting on changes, paging and its bound."""

from __future__ import annotations

import anyio
import pytest

from plainmcp.tasks import (
    BadCursor,
    Cancel,
    Finish,
    MemoryTaskStore,
    Progress,
    TaskRecord,
    TaskStore,
    TaskStoreFull,
)

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def record(
    task_id: str, owner: str | None = "sub:ann", at: float = 1000.0, ttl: int | None = 10_000
) -> TaskRecord:
    return TaskRecord(task_id, owner, created_at=at, updated_at=at, ttl_ms=ttl, poll_ms=100)


def test_it_is_a_task_store() -> None:
    assert isinstance(MemoryTaskStore(), TaskStore)


async def test_another_owner_gets_what_an_unknown_id_gets() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("t1"))
    assert await store.get("t1", "sub:ann") == record("t1")
    for task_id, owner in (("t1", "sub:bob"), ("t1", None), ("nope", "sub:ann")):
        assert await store.get(task_id, owner) is None
        assert await store.change(task_id, owner, Cancel()) is None
        assert await store.wait(task_id, owner, 0, 0.0) is None
    assert (await store.page("sub:bob", None, 10)).records == ()


async def test_a_task_is_gone_once_its_ttl_is_over() -> None:
    clock = Clock()
    store = MemoryTaskStore(clock=clock)
    await store.create(record("t1", ttl=5_000))
    clock.now = 1004.999
    assert await store.get("t1", "sub:ann") is not None
    clock.now = 1005.0
    assert await store.get("t1", "sub:ann") is None
    assert len(store) == 0


async def test_a_change_wakes_a_waiter_and_a_refused_change_does_not_count() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("t1"))
    seen: list[TaskRecord | None] = []
    waiting = anyio.Event()

    async def watch() -> None:
        waiting.set()
        seen.append(await store.wait("t1", "sub:ann", 0, 60.0))

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        await waiting.wait()
        done = await store.change("t1", "sub:ann", Finish({"content": []}))
    assert seen == [done]
    assert done is not None and done.status == "completed"
    assert await store.change("t1", "sub:ann", Cancel()) == done
    assert await store.wait("t1", "sub:ann", 0, 60.0) == done


async def test_wait_answers_the_current_record_after_its_timeout() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("t1"))
    assert await store.wait("t1", "sub:ann", 0, 0.0) == record("t1")


async def test_cancel_racing_completion_the_first_terminal_state_wins() -> None:
    store = MemoryTaskStore(clock=Clock())
    await store.create(record("t1"))
    await store.create(record("t2"))
    first = await store.change("t1", "sub:ann", Cancel())
    later = await store.change("t1", "sub:ann", Finish({"content": []}))
    assert (first, later) == (later, later) and later is not None and later.status == "cancelled"
    await store.change("t2", "sub:ann", Finish({"content": []}))
    after = await store.change("t2", "sub:ann", Cancel())
    assert after is not None and (after.status, after.cancel_requested) == ("completed", False)


async def test_pages_are_per_owner_oldest_first_and_stable_under_expiry() -> None:
    clock = Clock()
    store = MemoryTaskStore(clock=clock)
    for n in range(5):
        await store.create(record(f"t{n}", at=1000.0 + n, ttl=100_000 if n != 2 else 1_500))
    await store.create(record("other", owner="sub:bob"))
    first = await store.page("sub:ann", None, 2)
    assert [r.task_id for r in first.records] == ["t0", "t1"]
    clock.now = 1003.6
    assert first.next_cursor is not None
    second = await store.page("sub:ann", first.next_cursor, 2)
    assert [r.task_id for r in second.records] == ["t3", "t4"]
    assert second.next_cursor is None


async def test_a_cursor_it_did_not_hand_out_is_refused() -> None:
    store = MemoryTaskStore(clock=Clock())
    with pytest.raises(BadCursor):
        await store.page("sub:ann", "not-a-cursor", 10)


async def test_when_full_the_oldest_finished_task_goes_and_running_ones_never() -> None:
    clock = Clock()
    store = MemoryTaskStore(max_tasks=2, clock=clock)
    await store.create(record("a"))
    await store.create(record("b"))
    with pytest.raises(TaskStoreFull):
        await store.create(record("c"))
    clock.now = 1001.0
    await store.change("b", "sub:ann", Finish({"content": []}))
    clock.now = 1002.0
    await store.change("a", "sub:ann", Progress("still going"))
    await store.create(record("c"))
    assert [await store.get(t, "sub:ann") is not None for t in "abc"] == [True, False, True]
