"""MemoryTaskStore: the TaskStore of one process (the default), bounded, with TTL expiry.

One event loop owns it (the server's); sync tools reach it through the loop. A change wakes the
watchers of that task through an anyio Event replaced at each change.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import anyio

from plainmcp.tasks.cursor import make_cursor, read_cursor
from plainmcp.tasks.record import TaskRecord
from plainmcp.tasks.store import TaskPage, TaskStoreFull
from plainmcp.tasks.transitions import Change, apply

__all__ = ["MemoryTaskStore"]


class MemoryTaskStore:
    """Tasks in a dict. At most `max_tasks`: when full, expired tasks go, then the oldest
    finished one; a store full of running tasks refuses another (TaskStoreFull)."""

    def __init__(self, *, max_tasks: int = 1000, clock: Callable[[], float] = time.time) -> None:
        if max_tasks < 1:
            raise ValueError("max_tasks must be at least 1")
        self.max_tasks = max_tasks
        self.clock = clock
        self._records: dict[str, TaskRecord] = {}
        self._changed: dict[str, anyio.Event] = {}

    def __len__(self) -> int:
        return len(self._records)

    async def create(self, record: TaskRecord) -> None:
        if record.task_id in self._records:
            raise ValueError("a task with this id exists")
        if len(self._records) >= self.max_tasks:
            self._make_room()
        self._records[record.task_id] = record

    async def get(self, task_id: str, owner: str | None) -> TaskRecord | None:
        return self._live(task_id, owner)

    async def change(self, task_id: str, owner: str | None, change: Change) -> TaskRecord | None:
        record = self._live(task_id, owner)
        if record is None:
            return None
        after = apply(record, change, self.clock())
        if after is not record:
            self._records[task_id] = after
            self._wake(task_id)
        return after

    async def wait(
        self, task_id: str, owner: str | None, seen: int, timeout: float
    ) -> TaskRecord | None:
        record = self._live(task_id, owner)
        if record is None or record.version > seen:
            return record
        event = self._changed.setdefault(task_id, anyio.Event())
        with anyio.move_on_after(timeout):
            await event.wait()
        return self._live(task_id, owner)

    async def page(self, owner: str | None, cursor: str | None, limit: int) -> TaskPage:
        now = self.clock()
        mine = sorted(
            (r for r in self._records.values() if r.owner == owner and not r.expired(now)),
            key=lambda r: (r.created_at, r.task_id),
        )
        if cursor is not None:
            after = read_cursor(cursor)
            mine = [r for r in mine if (r.created_at, r.task_id) > after]
        taken = tuple(mine[: max(limit, 1)])
        more = len(mine) > len(taken)
        return TaskPage(
            taken, make_cursor(taken[-1].created_at, taken[-1].task_id) if more else None
        )

    def _live(self, task_id: str, owner: str | None) -> TaskRecord | None:
        record = self._records.get(task_id)
        if record is None:
            return None
        if record.expired(self.clock()):
            del self._records[task_id]
            self._wake(task_id)
            return None
        return record if record.owner == owner else None

    def _wake(self, task_id: str) -> None:
        event = self._changed.pop(task_id, None)
        if event is not None:
            event.set()

    def _make_room(self) -> None:
        now = self.clock()
        for task_id in [t for t, r in self._records.items() if r.expired(now)]:
            del self._records[task_id]
            self._wake(task_id)
        if len(self._records) < self.max_tasks:
            return
        finished = [r for r in self._records.values() if r.terminal]
        if not finished:
            raise TaskStoreFull(f"{self.max_tasks} tasks are running")
        oldest = min(finished, key=lambda r: r.updated_at)
        del self._records[oldest.task_id]
        self._wake(oldest.task_id)
