"""Where sync user functions run: a worker thread, so a blocking tool, resource, prompt or
completer does not stop the event loop (timeouts and cancellation keep working).

The threads are anyio's (each started by `anyio.to_thread.run_sync`, so `anyio.from_thread`
works in them as anyio documents), but a call does not pay anyio's hand-off: each thread runs a
loop that takes calls from one lock-free queue, and results come back in batches, one loop
wake-up for however many calls finished since the last one.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")

MAX_THREADS = 40
"""As many threads as anyio's default limiter allows: calls beyond them wait for one to free."""

IDLE_SECONDS = 10.0
"""A thread with nothing to do for this long ends (anyio's own idle time)."""

_Job = tuple[contextvars.Context, Callable[[], Any], "asyncio.Future[Any]"]
_Done = tuple["asyncio.Future[Any]", Any, BaseException | None]


class _Pool:
    """The worker threads of one event loop. Its counters are touched on the loop only."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.done: deque[_Done] = deque()
        self.waking = False
        """A drain is scheduled: workers append to `done` without waking the loop again."""
        self.busy = 0
        """Calls handed over whose result has not been drained (abandoned ones included)."""
        self.threads = 0
        self.limiter = anyio.CapacityLimiter(MAX_THREADS)
        """Our own: the threads never take the slots of anyio's default limiter."""
        self.hosts: set[asyncio.Task[None]] = set()

    def submit(self, call: Callable[[], T]) -> asyncio.Future[T]:
        future: asyncio.Future[T] = self.loop.create_future()
        self.busy += 1
        if self.busy > self.threads and self.threads < MAX_THREADS:
            self._start()
        self.jobs.put((contextvars.copy_context(), call, future))
        return future

    def _start(self) -> None:
        self.threads += 1
        host = self.loop.create_task(self._host())
        self.hosts.add(host)
        host.add_done_callback(self._ended)

    async def _host(self) -> None:
        """Keep one thread: anyio's, so that it carries anyio's thread-local token."""
        try:
            await anyio.to_thread.run_sync(self._work, limiter=self.limiter, abandon_on_cancel=True)
        finally:
            self.jobs.put(None)  # cancelled (the loop ends): the thread stops at the next take

    def _ended(self, host: asyncio.Task[None]) -> None:
        self.hosts.discard(host)
        self.threads -= 1
        if not host.cancelled() and self.busy > self.threads:
            self._start()  # a call queued as its thread timed out gets another

    def _work(self) -> None:
        """A worker thread's loop: run calls until idle for IDLE_SECONDS or told to stop."""
        take, done = self.jobs.get, self.done
        while True:
            try:
                job = take(timeout=IDLE_SECONDS)
            except queue.Empty:
                return
            if job is None:
                return
            context, call, future = job
            result: Any = None
            error: BaseException | None = None
            if not future.cancelled():
                try:
                    result = context.run(call)
                except StopIteration as exc:  # a future cannot carry it
                    error = RuntimeError("the function raised StopIteration")
                    error.__cause__ = exc
                except BaseException as exc:  # delivered to the caller, whatever it is
                    error = exc
            done.append((future, result, error))
            del job, context, call, future, result, error
            if not self.waking:
                self.waking = True
                try:
                    self.loop.call_soon_threadsafe(self._drain)
                except RuntimeError:  # the loop is closed: nobody waits for the result
                    return

    def _drain(self) -> None:
        """On the loop: hand every finished call's result to its caller."""
        self.waking = False  # before popping: a result appended after this schedules a drain
        done = self.done
        while done:
            future, result, error = done.popleft()
            self.busy -= 1
            if future.cancelled():
                continue
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)


_pools: dict[asyncio.AbstractEventLoop, _Pool] = {}


def _pool() -> _Pool:
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        for old in [other for other in _pools if other.is_closed()]:
            del _pools[old]
        pool = _pools[loop] = _Pool(loop)
    return pool


async def run_in_worker(call: Callable[[], T]) -> T:
    """Run a sync function in a worker thread, in a copy of the caller's context.

    Cancelling the caller stops the wait, not the thread (Python cannot interrupt it): the
    function is abandoned and its result ignored; one not yet started is skipped. In the thread,
    `anyio.from_thread.run` reaches the loop, but its coroutine and
    `anyio.from_thread.check_cancelled` see the thread's own scope, not the caller's: a sync
    function learns of a cancellation from `Context.cancelled`.
    """
    return await _pool().submit(call)
