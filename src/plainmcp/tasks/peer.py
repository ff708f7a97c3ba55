"""The peer a call running as a task talks to: the client's end while it answers inline, the
task's record once it runs on.

Before a call becomes a task (2026-07-28: within the server's task budget) everything goes to
the request's own connection, as for any call. After, the request is answered and may be gone
(a stateless POST closes): a question to the client becomes an input request on the task (the
store), answered by tasks/update (2026-07-28) or by the client's answer to a request sent on
the session with the related-task `_meta` (2025-11-25); progress becomes the status message
(2026-07-28) or a related-task notification on the session (2025-11-25); log messages go where
the era has them. Cancellation is the task's own scope, never the finished request's.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from plainmcp.tasks import eras
from plainmcp.tasks.transitions import Answer, Ask, Progress
from plainmcp.wire.jsonrpc import RequestId

if TYPE_CHECKING:
    from plainmcp.peer import Cancellable, Peer
    from plainmcp.tasks.eras import Era
    from plainmcp.tasks.record import TaskRecord
    from plainmcp.tasks.store import TaskStore
    from plainmcp.wire.session import SessionState

log = logging.getLogger("plainmcp.tasks")

WATCH_SECONDS = 30.0
"""How long one wait on the store lasts before it is asked again (a store may drop a wake-up:
another process's change, a reconnection)."""


class Running(Protocol):
    """What the peer reads of the run it belongs to (runner.py's Run)."""

    task_id: str | None
    """None until the call becomes a task."""
    owner: str | None
    era: Era
    store: TaskStore
    scope: anyio.CancelScope
    streams: dict[str, tuple[Any, Any]]
    """Open tasks/result requests by task id: (peer, request id)."""

    async def become_task(self) -> bool: ...


class TaskPeer:
    """A Peer (peer.py) for one call that may run as a task."""

    def __init__(self, original: Peer, run: Running) -> None:
        self.original = original
        self.run = run
        self._keys: dict[str, int] = {}

    # --- the session's state, as the original's --------------------------------------------

    @property
    def session(self) -> SessionState:
        return self.original.session

    @session.setter
    def session(self, value: SessionState) -> None:
        self.original.session = value

    @property
    def principal(self) -> Any:
        return self.original.principal

    @principal.setter
    def principal(self, value: Any) -> None:
        self.original.principal = value

    @property
    def listens(self) -> dict[RequestId, dict[str, Any]]:
        return self.original.listens

    @listens.setter
    def listens(self, value: dict[RequestId, dict[str, Any]]) -> None:
        self.original.listens = value

    @property
    def closing(self) -> asyncio.Event:
        return self.original.closing

    @closing.setter
    def closing(self, value: asyncio.Event) -> None:
        self.original.closing = value

    # --- what a running function sends -----------------------------------------------------

    async def notify(
        self, method: str, params: dict[str, Any], *, related_to: RequestId | None = None
    ) -> None:
        run = self.run
        if run.task_id is None:
            await self.original.notify(method, params, related_to=related_to)
            return
        era = run.era
        if method == "notifications/progress" and era.progress_to_status:
            await run.store.change(run.task_id, run.owner, Progress(progress_text(params)))
            return
        if method == "notifications/message" and era.progress_to_status:
            return  # 2026-07-28: a task has no log stream (SEP-2663)
        try:
            await self.original.notify(method, eras.related(params, run.task_id, era))
        except Exception:  # the session is gone: the task runs on
            log.debug("task %s: %s not delivered", run.task_id, method, exc_info=True)

    async def ask(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        related_to: RequestId | None = None,
    ) -> dict[str, Any]:
        run = self.run
        if run.task_id is None:
            return await self.original.ask(method, params, timeout=timeout, related_to=related_to)
        kind = method.split("/", 1)[0]
        self._keys[kind] = self._keys.get(kind, 0) + 1
        key = f"{kind}-{self._keys[kind]}"
        asked = await run.store.change(
            run.task_id, run.owner, Ask({key: {"method": method, "params": params}})
        )
        if asked is None:
            raise anyio.get_cancelled_exc_class()()
        await self.announce(asked)
        with anyio.fail_after(timeout):
            if run.era.detailed:
                return await self._answer_of(key, asked.version)
            # On the stream of a tasks/result the client keeps open for this task, if any
            # (2025-11-25's advice), else wherever the session sends requests.
            open_result = run.streams.get(run.task_id)
            on = open_result[1] if open_result and open_result[0] is self.original else None
            answer = await self.original.ask(
                method, eras.related(params, run.task_id, run.era), timeout=timeout, related_to=on
            )
        await run.store.change(run.task_id, run.owner, Answer({key: answer}))
        return answer

    async def announce(self, record: TaskRecord) -> None:
        """Tell the session the task's new status, where the era has a notification for it
        (2025-11-25: notifications/tasks/status, optional, so a lost one is no failure)."""
        method = self.run.era.status_notification
        if method is None:
            return
        try:
            await self.original.notify(method, eras.task(record, self.run.era))
        except Exception:
            log.debug("task %s: %s not delivered", record.task_id, method, exc_info=True)

    async def _answer_of(self, key: str, seen: int) -> dict[str, Any]:
        """The client's answer to `key`, delivered to the store by tasks/update."""
        run = self.run
        assert run.task_id is not None
        while True:
            record = await run.store.wait(run.task_id, run.owner, seen, WATCH_SECONDS)
            if record is None or record.terminal:
                raise anyio.get_cancelled_exc_class()()
            answer = record.responses.get(key)
            if isinstance(answer, dict):
                return answer
            seen = record.version

    async def become_task(self) -> bool:
        """The function asks to run on as a task (`ctx.become_task()`)."""
        return await self.run.become_task()

    def close_stream(self, request_id: RequestId) -> bool:
        if self.run.task_id is None:
            return self.original.close_stream(request_id)
        return False

    def cancel_scope(self, request_id: RequestId) -> Cancellable | None:
        return self.run.scope


def progress_text(params: dict[str, Any]) -> str:
    """A progress notification as a status message: its message, else "n/total" or "n"."""
    message = params.get("message")
    if isinstance(message, str) and message:
        return message
    progress, total = params.get("progress"), params.get("total")
    done = f"{progress:g}" if isinstance(progress, int | float) else str(progress)
    return f"{done}/{total:g}" if isinstance(total, int | float) else done
