"""What tasks look like on each era's wire: one table of data (ERAS) and one renderer.

2025-11-25 has tasks in the core: the client asks for one (`task` in the params), the result
is fetched with tasks/result, tasks/list exists, a CreateTaskResult nests the task. 2026-07-28
has them as the extension io.modelcontextprotocol/tasks (SEP-2663): the server decides, the
result is inlined in tasks/get, tasks/update answers input requests, a CreateTaskResult is
flat (`resultType: "task"`). Every difference is a field of `Era`; nothing else in the package
asks which revision it serves. Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from plainmcp.tasks.record import TaskRecord
from plainmcp.wire.extension_ids import TASKS_EXTENSION

__all__ = ["ERAS", "RELATED_TASK", "Era", "era_of"]

RELATED_TASK = "io.modelcontextprotocol/related-task"
EXTENSION_ID = TASKS_EXTENSION

METHOD_NOT_FOUND = -32601
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021


@dataclass(frozen=True, slots=True)
class Era:
    """One era's rules for tasks."""

    version: str
    methods: frozenset[str]
    """The tasks/* methods that exist (any other is -32601)."""
    gate: Literal["server", "client"]
    """"server": served wherever the server announces its `tasks` capability (2025-11-25);
    "client": only for a request whose client names the extension (else -32021)."""
    decides: Literal["client", "server"]
    """Who makes a call a task: the client's `task` param, or the server (task_budget)."""
    created: Literal["nested", "flat"]
    """CreateTaskResult: {task: {...}}, or the task's fields with resultType "task"."""
    ttl_key: str
    poll_key: str
    detailed: bool
    """tasks/get inlines result, error and inputRequests (and nothing asks tasks/result)."""
    tool_error: Literal["completed", "failed"]
    """The status of a task whose tool returned its own error (isError)."""
    cancel_answer: Literal["task", "empty"]
    cancel_terminal: Literal["refuse", "ack"]
    """A cancel of a finished task: -32602, or the same acknowledgement."""
    related_meta: bool
    """Messages of a task carry _meta[io.modelcontextprotocol/related-task]."""
    required_error: int
    """The error for a call of a task="required" tool that cannot become a task."""
    status_notification: str | None
    """The notification a status change may send (None: none on this era's streams)."""
    progress_to_status: bool
    """A running task's progress becomes its status message (no progress notifications)."""


ERAS: dict[str, Era] = {
    era.version: era
    for era in (
        Era(
            version="2025-11-25",
            methods=frozenset({"tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}),
            gate="server",
            decides="client",
            created="nested",
            ttl_key="ttl",
            poll_key="pollInterval",
            detailed=False,
            tool_error="failed",
            cancel_answer="task",
            cancel_terminal="refuse",
            related_meta=True,
            # The tool-level rule says -32601 (MUST); the error section's -32600 is a MAY.
            required_error=METHOD_NOT_FOUND,
            status_notification="notifications/tasks/status",
            progress_to_status=False,
        ),
        Era(
            version="2026-07-28",
            methods=frozenset({"tasks/get", "tasks/update", "tasks/cancel"}),
            gate="client",
            decides="server",
            created="flat",
            ttl_key="ttlMs",
            poll_key="pollIntervalMs",
            detailed=True,
            tool_error="completed",
            cancel_answer="empty",
            cancel_terminal="ack",
            related_meta=False,
            required_error=MISSING_REQUIRED_CLIENT_CAPABILITY,
            status_notification=None,
            progress_to_status=True,
        ),
    )
}
"""Every era that has tasks, by revision."""

ALL_METHODS: frozenset[str] = frozenset().union(*(e.methods for e in ERAS.values()))


def era_of(version: str) -> Era | None:
    """The era rules of a revision (None: it has no tasks)."""
    return ERAS.get(version)


def timestamp(seconds: float) -> str:
    """ISO 8601 in UTC, to the millisecond, with a Z."""
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def task(record: TaskRecord, era: Era) -> dict[str, Any]:
    """The Task object: what every era's task-bearing message starts from."""
    out: dict[str, Any] = {"taskId": record.task_id, "status": record.status}
    if record.message is not None:
        out["statusMessage"] = record.message
    out["createdAt"] = timestamp(record.created_at)
    out["lastUpdatedAt"] = timestamp(record.updated_at)
    out[era.ttl_key] = record.ttl_ms
    out[era.poll_key] = record.poll_ms
    return out


def detailed(record: TaskRecord, era: Era) -> dict[str, Any]:
    """tasks/get's answer (and a status notification's params): the task, and where the era
    inlines them its result, error or outstanding input requests."""
    out = task(record, era)
    if not era.detailed:
        return out
    if record.status == "input_required":
        out["inputRequests"] = dict(record.input_requests)
    elif record.result is not None and record.status in ("completed", "failed"):
        out["result"] = record.result
    if record.status == "failed" and record.error is not None:
        out["error"] = record.error
    return out


def created(record: TaskRecord, era: Era) -> dict[str, Any]:
    """The CreateTaskResult a call is answered with."""
    if era.created == "nested":
        return {"task": task(record, era)}
    return {"resultType": "task", **task(record, era)}


def cancelled(record: TaskRecord, era: Era) -> dict[str, Any]:
    """tasks/cancel's answer once the cancel is taken."""
    return task(record, era) if era.cancel_answer == "task" else {}


def listing(records: Iterable[TaskRecord], era: Era, next_cursor: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"tasks": [task(r, era) for r in records]}
    if next_cursor is not None:
        out["nextCursor"] = next_cursor
    return out


def payload(record: TaskRecord, era: Era) -> dict[str, Any]:
    """tasks/result's answer for a finished task with a result: that result, naming its task
    where the era relates messages to tasks."""
    out = dict(record.result or {})
    if era.related_meta:
        out["_meta"] = {**(out.get("_meta") or {}), RELATED_TASK: {"taskId": record.task_id}}
    return out


def related(params: dict[str, Any], task_id: str, era: Era) -> dict[str, Any]:
    """A message's params naming the task it belongs to, where the era does that."""
    if not era.related_meta:
        return params
    meta = params.get("_meta")
    return {
        **params,
        "_meta": {**(meta if isinstance(meta, dict) else {}), RELATED_TASK: {"taskId": task_id}},
    }


def tool_error_status(result: dict[str, Any], era: Era) -> Literal["completed", "failed"]:
    """The terminal status of a task whose tool answered `result`."""
    return era.tool_error if result.get("isError") is True else "completed"
