"""`Client.call_tool_stream`: one call's progress as an async iterator, then its result."""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from plainmcp.client.notifications import Progress
from plainmcp.client.results import CallToolResult

if TYPE_CHECKING:
    from plainmcp.client.session import Client


class ToolCall:
    """A call in progress: `async for progress in call` until it ends, `await call.result()`."""

    def __init__(self, updates: MemoryObjectReceiveStream[Progress]) -> None:
        self._updates = updates
        self._done = anyio.Event()
        self._result: CallToolResult | None = None
        self._error: BaseException | None = None

    def __aiter__(self) -> AsyncIterator[Progress]:
        return self._updates.__aiter__()

    async def result(self) -> CallToolResult:
        """The call's result (raises what the call raised)."""
        await self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


@contextlib.asynccontextmanager
async def stream_call(
    client: Client, name: str, arguments: Mapping[str, Any] | None, timeout: Any
) -> AsyncIterator[ToolCall]:
    send, receive = anyio.create_memory_object_stream[Progress](math.inf)
    call = ToolCall(receive)

    def forward(progress: Progress) -> None:
        with contextlib.suppress(anyio.ClosedResourceError):
            send.send_nowait(progress)

    async def run() -> None:
        try:
            call._result = await client.call_tool(
                name, arguments, timeout=timeout, on_progress=forward
            )
        except Exception as exc:
            call._error = exc
        finally:
            # Progress is handed over through the client's notification task: close the
            # iteration only after what arrived before the result has been forwarded.
            if not client._listeners._queue_call(lambda _: send.close(), None):
                send.close()
            call._done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(run)
        try:
            yield call
        finally:
            tasks.cancel_scope.cancel()
            receive.close()
