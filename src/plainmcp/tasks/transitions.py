"""The status machine of a task, as pure functions: a record and a change give the next record.

working -> input_required | working | a terminal state; input_required -> working | terminal.
completed, failed and cancelled are final: every change to a terminal task is a no-op that
returns the record unchanged (so a cancel of a finished task is idempotent, and of a cancel and
a completion racing, the one the store applies first wins). A store applies these under its
own atomicity (a lock, a Redis transaction); the rules live here once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from plainmcp.tasks.record import TaskRecord

__all__ = [
    "Answer",
    "Ask",
    "Cancel",
    "Change",
    "Fail",
    "Finish",
    "Progress",
    "apply",
]


@dataclass(frozen=True, slots=True)
class Progress:
    """Still working; a new status message (None keeps the one it has)."""

    message: str | None = None


@dataclass(frozen=True, slots=True)
class Ask:
    """The runner needs the client: these requests (key -> {method, params}) are outstanding."""

    requests: dict[str, dict[str, Any]]
    message: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """The client answered (tasks/update, or a 2025-11-25 response): only outstanding keys count."""

    responses: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Finish:
    """Ended with this wire result: `completed`, or `failed` where the era counts a tool's own
    error (isError) as a failure (2025-11-25); the result is kept either way."""

    result: dict[str, Any]
    message: str | None = None
    status: Literal["completed", "failed"] = "completed"


@dataclass(frozen=True, slots=True)
class Fail:
    """Failed with this JSON-RPC error ({code, message, data?}): protocol errors only."""

    error: dict[str, Any]
    message: str | None = None


@dataclass(frozen=True, slots=True)
class Cancel:
    """The client cancelled: the task is cancelled at once, its runner told (cancel_requested)."""

    message: str | None = "The task was cancelled."


Change = Progress | Ask | Answer | Finish | Fail | Cancel


def apply(record: TaskRecord, change: Change, now: float) -> TaskRecord:
    """The record after `change` at `now`; `record` itself when nothing changes."""
    if record.terminal:
        return record
    if isinstance(change, Progress):
        message = record.message if change.message is None else change.message
        if record.status == "working" and message == record.message:
            return record
        return _next(record, now, status="working", message=message)
    if isinstance(change, Ask):
        fresh = {k: v for k, v in change.requests.items() if k not in record.answered}
        if not fresh:
            return record
        asked = {**record.input_requests, **fresh}
        message = record.message if change.message is None else change.message
        return _next(record, now, status="input_required", input_requests=asked, message=message)
    if isinstance(change, Answer):
        taken = {k: v for k, v in change.responses.items() if k in record.input_requests}
        if not taken:
            return record
        left = {k: v for k, v in record.input_requests.items() if k not in taken}
        return _next(
            record,
            now,
            status="input_required" if left else "working",
            input_requests=left,
            responses={**record.responses, **taken},
            answered=(*record.answered, *taken),
        )
    if isinstance(change, Finish):
        return _end(record, now, change.status, change.message, result=change.result)
    if isinstance(change, Fail):
        return _end(record, now, "failed", change.message, error=change.error)
    return replace(_end(record, now, "cancelled", change.message), cancel_requested=True)


def _end(
    record: TaskRecord, now: float, status: Any, message: str | None, **payload: Any
) -> TaskRecord:
    """A terminal record: nothing outstanding any more."""
    return _next(
        record,
        now,
        status=status,
        message=record.message if message is None else message,
        input_requests={},
        responses={},
        **payload,
    )


def _next(record: TaskRecord, now: float, **fields: Any) -> TaskRecord:
    return replace(
        record, updated_at=max(now, record.updated_at), version=record.version + 1, **fields
    )
