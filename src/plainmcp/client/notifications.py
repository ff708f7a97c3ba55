"""What the server tells the client unasked: progress, log messages, list changes, resource
updates. Each reaches its callback (a plain function or a coroutine function) in the order it
arrived, from one task, so a slow callback delays the next notification, never a reply."""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from plainmcp.wire.jsonrpc import Notification

log = logging.getLogger("plainmcp.client")

PROGRESS = "notifications/progress"
MESSAGE = "notifications/message"
UPDATED = "notifications/resources/updated"
LIST_CHANGED = {
    "notifications/tools/list_changed": "tools",
    "notifications/prompts/list_changed": "prompts",
    "notifications/resources/list_changed": "resources",
}


@dataclass(frozen=True, slots=True)
class Progress:
    """One notifications/progress of a call (`token` is the call's progress token)."""

    progress: float
    total: float | None = None
    message: str | None = None
    token: str | int | None = None


@dataclass(frozen=True, slots=True)
class LogMessage:
    level: str
    data: Any
    logger: str | None = None


OnProgress: TypeAlias = Callable[[Progress], Awaitable[None] | None]
OnLog: TypeAlias = Callable[[LogMessage], Awaitable[None] | None]
OnListChanged: TypeAlias = Callable[[str], Awaitable[None] | None]
"""Called with "tools", "prompts" or "resources"."""
OnResourceUpdated: TypeAlias = Callable[[str], Awaitable[None] | None]
"""Called with the URI of the resource that changed."""


def progress_of(params: Mapping[str, Any]) -> Progress | None:
    """A progress notification's params as Progress (None: not a valid one)."""
    value = params.get("progress")
    total = params.get("total")
    message = params.get("message")
    token = params.get("progressToken")
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    return Progress(
        progress=value,
        total=total if isinstance(total, int | float) and not isinstance(total, bool) else None,
        message=message if isinstance(message, str) else None,
        token=token if isinstance(token, str | int) else None,
    )


class Listeners:
    """The notification callbacks of one client, run in arrival order by `run`."""

    def __init__(
        self,
        on_progress: OnProgress | None = None,
        on_log: OnLog | None = None,
        on_list_changed: OnListChanged | None = None,
        on_resource_updated: OnResourceUpdated | None = None,
    ) -> None:
        self.on_progress = on_progress
        self.on_log = on_log
        self.on_list_changed = on_list_changed
        self.on_resource_updated = on_resource_updated
        self._send: MemoryObjectSendStream[tuple[Callable[..., Any], Any]]
        self._queue: MemoryObjectReceiveStream[tuple[Callable[..., Any], Any]]
        self._send, self._queue = anyio.create_memory_object_stream(math.inf)
        self._waiting = 0
        """Callbacks queued and not yet finished."""

    def start(self, tasks: anyio.abc.TaskGroup) -> None:
        tasks.start_soon(self._run)

    def close(self) -> None:
        self._send.close()

    def deliver(self, note: Notification) -> None:
        """Queue `note` for its callback (progress is also handed to its call by the Client)."""
        params = note.params
        if note.method == PROGRESS and self.on_progress is not None:
            progress = progress_of(params)
            if progress is not None:
                self.queue_call(self.on_progress, progress)
        elif note.method == MESSAGE and self.on_log is not None:
            logger = params.get("logger")
            entry = LogMessage(
                level=str(params.get("level", "")),
                data=params.get("data"),
                logger=logger if isinstance(logger, str) else None,
            )
            self.queue_call(self.on_log, entry)
        elif note.method in LIST_CHANGED and self.on_list_changed is not None:
            self.queue_call(self.on_list_changed, LIST_CHANGED[note.method])
        elif note.method == UPDATED and self.on_resource_updated is not None:
            uri = params.get("uri")
            if isinstance(uri, str):
                self.queue_call(self.on_resource_updated, uri)

    def queue_call(self, fn: Callable[..., Any], arg: Any) -> bool:
        """Queue `fn(arg)`; False when the client has closed (nothing runs any more)."""
        try:
            self._send.send_nowait((fn, arg))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        self._waiting += 1
        return True

    def after(self, fn: Callable[[], Any]) -> None:
        """Run `fn` once the callbacks of what arrived before have run (a reply is seen after
        the progress and log messages that preceded it)."""
        if self._waiting == 0 or not self.queue_call(lambda _: fn(), None):
            fn()

    async def _run(self) -> None:
        async with self._queue:
            async for fn, arg in self._queue:
                try:
                    value = fn(arg)
                    if inspect.isawaitable(value):
                        await value
                except Exception:
                    log.exception("a notification callback raised (the session goes on)")
                finally:
                    self._waiting -= 1
