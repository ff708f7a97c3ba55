"""A task as plain data: what the store keeps, what every process reads, and its ids.

A record is frozen; a change makes a new one (transitions.py). It carries the task's result as
the wire dict rendered for the request that started it, so a reader in another process answers
it without running anything. Its `version` grows with every change: a watcher waits for a
version above the one it saw (store.py).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, fields
from typing import Any, Literal

__all__ = [
    "TERMINAL",
    "Status",
    "TaskRecord",
    "new_task_id",
]

Status = Literal["working", "input_required", "completed", "failed", "cancelled"]
STATUSES: tuple[Status, ...] = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
"""A task in one of these never changes again."""


def new_task_id() -> str:
    """An unguessable id (192 random bits): holding one is how a client names its task, so it
    must not be derivable from another (the owner check stands behind it too). Hex, because
    people paste it into `plainmcp task URL ID`: a URL-safe id starts with `-` one time in 64
    and reads as an option there."""
    return secrets.token_hex(24)


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """One task. Times are wall-clock seconds (the store's clock); durations are integer ms."""

    task_id: str
    owner: str | None
    """The principal's key (model/identity.py); None where nobody is authenticated."""
    created_at: float
    updated_at: float
    ttl_ms: int | None
    """From creation; None: kept until the store's bound evicts it."""
    poll_ms: int
    status: Status = "working"
    message: str | None = None
    method: str = "tools/call"
    name: str = ""
    """What the task runs (the tool's name), for logs and listings."""
    revision: str = ""
    """The protocol revision of the request that made it: its result is rendered for that
    revision, so a request of another revision finds no such task ("": any)."""
    result: dict[str, Any] | None = None
    """A completed task's result, as the wire dict of the request that started it."""
    error: dict[str, Any] | None = None
    """A failed task's JSON-RPC error: {code, message, data?}."""
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Outstanding requests to the client, key -> {method, params}; keys unique per task."""
    responses: dict[str, Any] = field(default_factory=dict)
    """Answers delivered for this task (key -> the client's result), read by its runner."""
    answered: tuple[str, ...] = ()
    """Every key ever answered or withdrawn: never asked again, never answered twice."""
    cancel_requested: bool = False
    version: int = 0

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def expires_at(self) -> float | None:
        """When the store may forget it (None: never by time)."""
        return None if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000

    def expired(self, now: float) -> bool:
        until = self.expires_at()
        return until is not None and now >= until

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (a store shared by processes keeps this). Its fields as they
        are, not `dataclasses.asdict`: that deep-copies every value, and a result may hold
        orjson.Fragment (pre-encoded JSON, written as it is), which cannot be copied."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["answered"] = list(self.answered)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskRecord:
        fields = dict(data)
        status = fields.get("status")
        if status not in STATUSES:
            raise ValueError(f"a task record has no status {status!r}")
        fields["answered"] = tuple(fields.get("answered", ()))
        return cls(**fields)
