"""Tasks: a call that returns a handle at once and runs on (2025-11-25 core tasks, and the
2026-07-28 extension io.modelcontextprotocol/tasks), sans-I/O records, transitions and stores.

record.py (TaskRecord, ids), transitions.py (the status machine), store.py (the TaskStore
Protocol every store implements), memory.py (MemoryTaskStore), cursor.py (list cursors);
extension.py (Tasks, what `Server(tasks=...)` takes: imported on first use, `plainmcp.tasks.Tasks`).
"""

from typing import Any

from plainmcp.tasks.memory import MemoryTaskStore
from plainmcp.tasks.record import TERMINAL, Status, TaskRecord, new_task_id
from plainmcp.tasks.store import BadCursor, TaskPage, TaskStore, TaskStoreFull
from plainmcp.tasks.transitions import Answer, Ask, Cancel, Change, Fail, Finish, Progress, apply

__all__ = [
    "TERMINAL",
    "Answer",
    "Ask",
    "BadCursor",
    "Cancel",
    "Change",
    "Fail",
    "Finish",
    "MemoryTaskStore",
    "Progress",
    "Status",
    "TaskPage",
    "TaskRecord",
    "TaskStore",
    "TaskStoreFull",
    "Tasks",
    "apply",
    "new_task_id",
]


def __getattr__(name: str) -> Any:
    """`Tasks` on first use: it imports the server's seam, which the store modules need not."""
    if name == "Tasks":
        from plainmcp.tasks.extension import Tasks

        return Tasks
    raise AttributeError(f"module 'plainmcp.tasks' has no attribute {name!r}")
