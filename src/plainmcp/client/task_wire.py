"""A client's view of a task on the wire, sans-I/O: the two eras as one table of data, a task's
state parsed from either, and how long to wait before the next poll.

2025-11-25 (core tasks): the client asks with `task: {ttl}` in the call's params, the server
answers `{task: {...}}`, the result comes from `tasks/result`, input arrives as the server's own
requests. 2026-07-28 (extension io.modelcontextprotocol/tasks, SEP-2663): the server decides,
answers a flat task with `resultType: "task"`, inlines the result in `tasks/get`, and asks for
input in `inputRequests`, answered with `tasks/update`. Nothing else in the client branches on
the era: it reads a `TaskEra`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from plainmcp.client.errors import bad_reply
from plainmcp.wire.extension_ids import TASKS_EXTENSION

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
RELATED_TASK = "io.modelcontextprotocol/related-task"


@dataclass(frozen=True, slots=True)
class TaskEra:
    """How one revision carries tasks (the client's side of it)."""

    version: str
    client_asks: bool
    """The client asks for a task (`task: {ttl}` in the params); else the server decides."""
    nested: bool
    """A CreateTaskResult wraps the task in `task`; else it is flat, with resultType "task"."""
    ttl_key: str
    poll_key: str
    result_method: str | None
    """The method giving a finished task's result (None: inlined in tasks/get)."""
    update_method: str | None
    """The method answering `inputRequests` (None: the server sends its own requests)."""
    extension: str | None
    """The extension a client declares to get tasks (None: a core capability of the server)."""


CORE = TaskEra(
    version="2025-11-25",
    client_asks=True,
    nested=True,
    ttl_key="ttl",
    poll_key="pollInterval",
    result_method="tasks/result",
    update_method=None,
    extension=None,
)
EXTENSION = TaskEra(
    version="2026-07-28",
    client_asks=False,
    nested=False,
    ttl_key="ttlMs",
    poll_key="pollIntervalMs",
    result_method=None,
    update_method="tasks/update",
    extension=TASKS_EXTENSION,
)
ROUTED = {"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
"""The extension's methods sent with `Mcp-Name` over HTTP (2026-07-28), and the param it names:
a load balancer routes a task's requests to where it is kept."""
ERAS: dict[str, TaskEra] = {era.version: era for era in (CORE, EXTENSION)}
"""The revisions with tasks; the others have none (a task call there is a plain call)."""


@dataclass(frozen=True, slots=True)
class TaskState:
    """One snapshot of a task: what tasks/get (or the call creating it) said."""

    task_id: str
    status: str
    status_message: str | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    ttl_ms: int | None = None
    """How long the server keeps the task from its creation (None: no limit)."""
    poll_interval_ms: int | None = None
    """How often the server wants to be polled (None: it did not say)."""
    result: dict[str, Any] | None = None
    """The inlined final result (2026-07-28, completed)."""
    error: dict[str, Any] | None = None
    """The JSON-RPC error of a failed task (2026-07-28)."""
    input_requests: dict[str, Any] = field(default_factory=dict)
    """The questions an input_required task waits on (2026-07-28), by key."""

    @property
    def done(self) -> bool:
        return self.status in TERMINAL


def is_task_result(era: TaskEra | None, result: Mapping[str, Any]) -> bool:
    """Whether a tools/call result is a CreateTaskResult of `era` (not the call's own result)."""
    if era is None:
        return False
    if era.nested:
        return isinstance(result.get("task"), Mapping) and "content" not in result
    return result.get("resultType") == "task"


def created(era: TaskEra, result: Mapping[str, Any]) -> TaskState:
    """The task a CreateTaskResult announces."""
    return parse_task(era, result["task"] if era.nested else result)


def parse_task(era: TaskEra, raw: object) -> TaskState:
    """A Task (or DetailedTask) object of `era`; a malformed one raises McpError."""
    if not isinstance(raw, Mapping):
        raise bad_reply("a task must be an object")
    task_id = raw.get("taskId")
    status = raw.get("status")
    if not isinstance(task_id, str) or not task_id:
        raise bad_reply("a task must have a taskId string")
    if status not in STATUSES:
        raise bad_reply(f"a task's status must be one of {', '.join(STATUSES)}, not {status!r}")
    result = raw.get("result")
    error = raw.get("error")
    asks = raw.get("inputRequests")
    return TaskState(
        task_id=task_id,
        status=status,
        status_message=_text(raw, "statusMessage"),
        created_at=_text(raw, "createdAt"),
        last_updated_at=_text(raw, "lastUpdatedAt"),
        ttl_ms=_millis(raw, era.ttl_key),
        poll_interval_ms=_millis(raw, era.poll_key),
        result=dict(result) if isinstance(result, Mapping) else None,
        error=dict(error) if isinstance(error, Mapping) else None,
        input_requests=dict(asks) if isinstance(asks, Mapping) else {},
    )


def call_params(
    era: TaskEra | None, name: str, arguments: Mapping[str, Any], ttl_ms: int | None
) -> dict[str, Any]:
    """A tools/call's params asking for a task where the client asks (2025-11-25)."""
    params: dict[str, Any] = {"name": name, "arguments": dict(arguments)}
    if era is not None and era.client_asks:
        params["task"] = {} if ttl_ms is None else {"ttl": ttl_ms}
    return params


def server_offers(era: TaskEra, capabilities: Mapping[str, Any]) -> bool:
    """Whether the server's capabilities offer task-augmented tools/call in `era`."""
    if era.extension is not None:
        extensions = capabilities.get("extensions")
        return isinstance(extensions, Mapping) and era.extension in extensions
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, Mapping) else None
    tools = requests.get("tools") if isinstance(requests, Mapping) else None
    return isinstance(tools, Mapping) and "call" in tools


DEFAULT_POLL_MS = 1000
"""The poll interval when the server names none."""
BACKOFF = 1.5
"""Each poll that finds the task unchanged waits this much longer than the one before..."""
MAX_BACKOFF = 8.0
"""... up to this many times the server's interval (and never below it)."""
MIN_POLL = 0.05
"""Seconds: the shortest interval taken from a server (0 would poll without pause)."""


def next_delay(poll_interval_ms: int | None, unchanged: int) -> float:
    """Seconds to wait before the next tasks/get: the server's interval, growing by BACKOFF
    for each poll in a row that saw no change (`unchanged`), capped at MAX_BACKOFF times it."""
    asked = poll_interval_ms if poll_interval_ms is not None else DEFAULT_POLL_MS
    base = max(asked / 1000, MIN_POLL)
    return base * min(BACKOFF**unchanged, MAX_BACKOFF)


def _text(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    return value if isinstance(value, str) else None


def _millis(raw: Mapping[str, Any], key: str) -> int | None:
    value = raw.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
