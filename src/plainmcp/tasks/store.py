"""The TaskStore Protocol: the one contract between the task engine and where tasks live.

The store is the only state tasks share. Every process reads and changes a task through it
alone: the process running a task learns of a cancel and of the client's input responses by
watching the record (`wait`), and any process answers tasks/get, tasks/list, tasks/result from
it. MemoryTaskStore (memory.py) is the in-process implementation; a store shared by many
processes (Redis) implements the same five methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from plainmcp.tasks.record import TaskRecord
from plainmcp.tasks.transitions import Change

__all__ = ["BadCursor", "TaskPage", "TaskStore", "TaskStoreFull"]


class TaskStoreFull(Exception):
    """No room for another task: every task held is still running (the bound is reached)."""


class BadCursor(ValueError):
    """A list cursor this store did not hand out (for this owner)."""


@dataclass(frozen=True, slots=True)
class TaskPage:
    records: tuple[TaskRecord, ...]
    next_cursor: str | None


@runtime_checkable
class TaskStore(Protocol):
    """Where tasks live. The contract an implementation keeps:

    - Ownership. Every read and change names the caller's `owner` (the principal's key, None
      where nobody is authenticated). A task whose owner differs answers exactly as an unknown
      id does: None, never an error that tells the two apart.
    - Expiry. A record whose `expired(now)` is true (created_at + ttl_ms, by the store's
      clock) is gone: get, change and wait answer None; it is never listed.
    - `create(record)`: stores a new record (version 0). When `create` returns, `get` of that id
      answers it from every process (no eventual consistency: the CreateTaskResult is sent
      after it). Raises TaskStoreFull when the store's bound is reached and nothing can go.
    - `get(task_id, owner)`: the current record, or None.
    - `change(task_id, owner, change)`: applies `transitions.apply(record, change, now)`
      atomically (no change of another process is lost between read and write), stores the
      result when it differs, wakes every `wait` on that task, and returns the record as it
      is afterwards (unchanged when the change was refused: a terminal task is final). None:
      unknown.
    - `wait(task_id, owner, seen, timeout)`: the record as soon as its `version` is above
      `seen` (at once if it already is), or the current record after `timeout` seconds, or
      None (unknown, expired). A change made by any process wakes it: this is how the runner
      of a task hears a cancel (`cancel_requested`, status cancelled) and input responses
      (`responses`), and how tasks/result waits for a terminal status.
    - `page(owner, cursor, limit)`: that owner's tasks, oldest first (by created_at, then id),
      at most `limit`, and the cursor of the next page (None on the last). A cursor is opaque;
      one it did not hand out raises BadCursor.
    """

    async def create(self, record: TaskRecord) -> None: ...

    async def get(self, task_id: str, owner: str | None) -> TaskRecord | None: ...

    async def change(
        self, task_id: str, owner: str | None, change: Change
    ) -> TaskRecord | None: ...

    async def wait(
        self, task_id: str, owner: str | None, seen: int, timeout: float
    ) -> TaskRecord | None: ...

    async def page(self, owner: str | None, cursor: str | None, limit: int) -> TaskPage: ...
