"""Where sync user functions run: a worker thread, so a blocking tool, resource, prompt or
completer does not stop the event loop (timeouts and cancellation keep working)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio.to_thread

T = TypeVar("T")


async def run_in_worker(call: Callable[[], T]) -> T:
    """Run a sync function in one of anyio's worker threads.

    Cancelling the caller stops the wait, not the thread (Python cannot interrupt it): the
    function is abandoned and its result ignored. anyio's threads, not a plain executor (which
    costs about half as much per call): code in them may use `anyio.from_thread` to reach the
    event loop, as anyio documents.
    """
    return await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
