"""`Client.call_tool_stream`: one call's progress as an async iterator, then its result."""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from plainmcp.client.notifications import OnProgress, Progress
from plainmcp.client.results import CallToolResult

Call = Callable[[OnProgress], Awaitable[CallToolResult]]
"""The call itself, given the callback its progress goes to."""
Queue = Callable[[Callable[..., Any], Any], bool]
"""The client's notification queue (`Listeners.queue_call`): False once it has closed."""


class Outcome:
    """How a streamed call ended: its result or what it raised, once `done` is set."""

    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: CallToolResult | None = None
        self.error: BaseException | None = None


class ToolCall:
    """A call in progress: `async for progress in call` until it ends, `await call.result()`."""

    def __init__(self, updates: MemoryObjectReceiveStream[Progress], outcome: Outcome) -> None:
        self._updates = updates
        self._outcome = outcome

    def __aiter__(self) -> AsyncIterator[Progress]:
        return self._updates.__aiter__()

    async def result(self) -> CallToolResult:
        """The call's result (raises what the call raised)."""
        outcome = self._outcome
        await outcome.done.wait()
        if outcome.error is not None:
            raise outcome.error
        assert outcome.result is not None
        return outcome.result


@contextlib.asynccontextmanager
async def stream_call(call: Call, queue: Queue) -> AsyncIterator[ToolCall]:
    send, receive = anyio.create_memory_object_stream[Progress](math.inf)
    outcome = Outcome()

    def forward(progress: Progress) -> None:
        with contextlib.suppress(anyio.ClosedResourceError):
            send.send_nowait(progress)

    async def run() -> None:
        try:
            outcome.result = await call(forward)
        except Exception as exc:
            outcome.error = exc
        finally:
            # Progress is handed over through the client's notification task: close the
            # iteration only after what arrived before the result has been forwarded.
            if not queue(lambda _: send.close(), None):
                send.close()
            outcome.done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run)
        try:
            yield ToolCall(receive, outcome)
        finally:
            tasks.cancel_scope.cancel()
            receive.close()
