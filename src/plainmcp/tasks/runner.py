"""Running a call as a task: it answers at once (a CreateTaskResult) and runs on, outside the
request that started it, until its result is in the store.

A run is the route's own tools/call handler (the middleware, the tool's scopes, the guards)
called with an Exchange whose peer is the run's (peer.py), in an asyncio task of its own (as
workers.py runs its threads' hosts), never in the request's scope: a stateless POST ends with
its CreateTaskResult and the run goes on. Its value is rendered by the route's own rendering
step (the revision, the host profile, result hooks), so a task's result is what the same call
answered inline would have been. Every outcome ends in one store change (Finish, Fail, Cancel):
the store decides which terminal state wins when a cancel races the end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from plainmcp.context import ClientCapabilityError, InputRequired
from plainmcp.tasks import eras
from plainmcp.tasks.peer import WATCH_SECONDS, TaskPeer
from plainmcp.tasks.record import TaskRecord, new_task_id
from plainmcp.tasks.transitions import Cancel, Change, Fail, Finish
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, RpcError
from plainmcp.wire.meta import MISSING_REQUIRED_CLIENT_CAPABILITY

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.extensions import Render
    from plainmcp.tasks.eras import Era
    from plainmcp.tasks.store import TaskStore
    from plainmcp.wire.methods import Method

log = logging.getLogger("plainmcp.tasks")

Handler = Callable[[Any, "Exchange"], Awaitable[Any]]
Sleep = Callable[[float], Awaitable[None]]


@dataclasses.dataclass(frozen=True, slots=True)
class Terms:
    """What a new task is given: its lifetime and the poll interval it suggests (ms)."""

    ttl_ms: int | None
    poll_ms: int


class Run:
    """One call that may run as a task. Made by `Runner.start`, on the server's event loop."""

    def __init__(
        self,
        store: TaskStore,
        era: Era,
        owner: str | None,
        streams: dict[str, tuple[Any, Any]],
        handler: Handler,
        render: Render,
        method: Method,
        core: Any,
        ex: Exchange,
    ) -> None:
        self.store, self.era, self.owner = store, era, owner
        self.streams = streams
        self.task_id: str | None = None
        self.scope = anyio.CancelScope()
        self._handler, self._render, self._method, self._core = handler, render, method, core
        self._peer = TaskPeer(ex.peer, self)
        self.exchange = dataclasses.replace(ex, peer=self._peer)
        self.done = anyio.Event()
        """The call has returned or raised (`value` or `error`)."""
        self.value: Any = None
        self.error: BaseException | None = None
        self._created = anyio.Event()
        self._wanted = anyio.Event()
        """The function asked to become a task (`ctx.become_task()`)."""
        self._can_detach = False
        self._detaching = False
        self._task: asyncio.Task[None] | None = None

    def start(self, keep: set[asyncio.Task[None]]) -> None:
        """Start the call in a task of its own (kept in `keep` until it ends)."""
        task = asyncio.get_running_loop().create_task(self._body())
        keep.add(task)
        task.add_done_callback(keep.discard)
        self._task = task
        if self.task_id is not None:
            self._watch_soon(0)

    async def _body(self) -> None:
        try:
            with self.scope:
                self.value = await self._handler(self._core, self.exchange)
        except BaseException as exc:  # every outcome is reported; none escapes the task
            self.error = exc
        finally:
            if self.scope.cancelled_caught and self.error is None:
                self.error = anyio.get_cancelled_exc_class()()
            self.done.set()
        if not self._detaching:
            return
        await self._created.wait()
        await self._settle()

    async def become_task(self) -> bool:
        """Become a task now, if the request still waits on the budget; True once it is."""
        if self.task_id is not None:
            return True
        if not self._can_detach:
            return False
        self._wanted.set()
        await self._created.wait()
        return True

    def as_task(self) -> None:
        """A task from the start, however soon the call ends (call before `start`)."""
        self._detaching = True

    async def wanted(self) -> None:
        """Returns once the function asked to become a task."""
        await self._wanted.wait()

    def allow_detach(self) -> None:
        """The request waits on the budget: `become_task` may cut it short."""
        self._can_detach = True

    def settled_inline(self) -> bool:
        """Called once the budget is spent: True if the call is done (answer it inline), else
        the run is a task from now on (`detach` follows)."""
        if self.done.is_set():
            return True
        self._detaching = True
        return False

    def detach(self, record: TaskRecord) -> None:
        """The task exists in the store: the run reports to it from now on."""
        self.task_id = record.task_id
        self.exchange.task_id = record.task_id
        self._created.set()
        if self._task is not None and not self.done.is_set():
            self._watch_soon(record.version)

    def _watch_soon(self, seen: int) -> None:
        watcher = asyncio.get_running_loop().create_task(self._watch(seen))
        assert self._task is not None
        self._task.add_done_callback(lambda _: watcher.cancel())

    def abandon(self) -> None:
        """The request ended before the call did, and it is no task: stop the call."""
        if not self._detaching:
            self.scope.cancel()

    async def _watch(self, seen: int) -> None:
        """Cancel the call once its task is cancelled, expired or gone (another process's
        tasks/cancel reaches it through the store)."""
        assert self.task_id is not None
        while not self.done.is_set():
            record = await self.store.wait(self.task_id, self.owner, seen, WATCH_SECONDS)
            if record is None or record.terminal:
                self.scope.cancel()
                return
            seen = record.version

    async def _settle(self) -> None:
        """The one change that ends the task (refused by the store if it ended already)."""
        assert self.task_id is not None
        change = self._outcome()
        try:
            before = await self.store.get(self.task_id, self.owner)
            after = await self.store.change(self.task_id, self.owner, change)
        except Exception:
            log.exception("task %s: its outcome could not be stored", self.task_id)
            return
        if after is not None and after is not before and after != before:
            await self._peer.announce(after)

    def _outcome(self) -> Change:
        error = self.error
        if error is None:
            try:
                result = self._render(self._core, self.exchange, self._method, self.value)
            except Exception as exc:
                return _failure(exc, self.task_id)
            return Finish(result, status=eras.tool_error_status(result, self.era))
        if isinstance(error, anyio.get_cancelled_exc_class()):
            return Cancel()
        return _failure(error, self.task_id)


def _failure(error: BaseException, task_id: str | None) -> Change:
    """A protocol error as a failed task: the JSON-RPC error the call would have answered."""
    if isinstance(error, RpcError):
        wire = error.to_wire()
    elif isinstance(error, ClientCapabilityError) and error.required is not None:
        wire = RpcError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            str(error),
            {"requiredCapabilities": dict(error.required)},
        ).to_wire()
    elif isinstance(error, InputRequired):
        wire = {"code": INTERNAL_ERROR, "message": "Internal error: a task cannot ask inline"}
    else:
        log.error("task %s failed", task_id, exc_info=error)
        wire = {"code": INTERNAL_ERROR, "message": "Internal error"}
    return Fail(wire, wire["message"])


class Runner:
    """Starts runs and turns them into tasks, on one store."""

    def __init__(self, store: TaskStore, *, budget: float, sleep: Sleep = anyio.sleep) -> None:
        self.store = store
        self.budget = budget
        self.sleep = sleep
        """How the budget is waited (tests pass one they release themselves)."""
        self.running: set[asyncio.Task[None]] = set()
        self.streams: dict[str, tuple[Any, Any]] = {}
        """Open tasks/result requests by task id (handlers.TaskMethods fills it)."""

    async def call(
        self,
        run: Run,
        terms: Terms,
        *,
        now: float,
        at_once: bool,
    ) -> TaskRecord | None:
        """Start `run`; None when it finished (or asked for input) within the budget, so the
        request answers it as any call (run.value, run.error); else the task it became.
        `at_once`: a task from the start (the client asked for one: 2025-11-25)."""
        if at_once:  # created before the call starts: it never talks to the request
            record = await self._create(run, terms, now)
            run.as_task()
            run.detach(record)
            run.start(self.running)
            return record
        run.allow_detach()
        run.start(self.running)
        try:
            await self._within_budget(run)
            if run.settled_inline():
                return None
            record = await self._create(run, terms, now)
        except BaseException:
            run.scope.cancel()
            raise
        run.detach(record)
        return record

    async def _create(self, run: Run, terms: Terms, now: float) -> TaskRecord:
        record = TaskRecord(
            new_task_id(),
            run.owner,
            created_at=now,
            updated_at=now,
            ttl_ms=terms.ttl_ms,
            poll_ms=terms.poll_ms,
            name=str(run.exchange.request.params.get("name", "")),
            revision=run.exchange.revision.version,
        )
        await self.store.create(record)
        return record

    async def _within_budget(self, run: Run) -> None:
        """Until the call is done or the budget is spent, whichever comes first."""
        if run.done.is_set() or self.budget <= 0:
            return
        try:
            async with anyio.create_task_group() as group:

                async def budget() -> None:
                    await self.sleep(self.budget)
                    group.cancel_scope.cancel()

                async def wanted() -> None:
                    await run.wanted()
                    group.cancel_scope.cancel()

                group.start_soon(budget)
                group.start_soon(wanted)
                await run.done.wait()
                group.cancel_scope.cancel()
        except BaseException:
            run.abandon()
            raise
