"""The transport-facing half of a client session: the bytes it sends and receives, and the
requests waiting for their answers.

A transport (stdio.py, memory.py, http.py) makes a `Core` over its way out, feeds it what the
server sends (`receive`) and ends it (`close`, `fail`); the public `Client` (session.py) sits on
one and is told, through its `Peer`, what the core cannot answer itself: the server's requests
and notifications, and how the session opens. Neither reads the other's internals.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc

from plainmcp.client.errors import (
    ConnectionClosed,
    McpError,
    ProtocolViolation,
    RequestTimeout,
    too_large,
)
from plainmcp.client.notifications import PROGRESS, Listeners, OnProgress, progress_of
from plainmcp.client.options import DEFAULT_MAX_MESSAGE
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, Notification, Request, RequestId, Response
from plainmcp.wire.revisions import Revision

log = logging.getLogger("plainmcp.client")

Send = Callable[[bytes], Awaitable[None]]
"""A transport's way out: one encoded message (or batch)."""


@contextlib.asynccontextmanager
async def single_errors() -> AsyncIterator[None]:
    """Raise a lone exception from a task group as itself, not as an ExceptionGroup of one."""
    try:
        yield
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


async def _closed_send(data: bytes) -> None:
    raise anyio.ClosedResourceError


class Waiter:
    """One request in flight: its answer, once in, and the progress callbacks of its call."""

    __slots__ = ("answered", "done", "error", "progress", "result")

    def __init__(self, progress: list[OnProgress]) -> None:
        self.done = anyio.Event()
        self.answered = False
        """The reply is in; `done` follows once the notifications before it are handled."""
        self.result: dict[str, Any] | None = None
        self.error: McpError | None = None
        self.progress = progress


@dataclass(frozen=True, slots=True)
class Peer:
    """What the session on top of a core does with what the core cannot answer itself."""

    start: Callable[[], Awaitable[None]]
    """Choose the revision (discover or initialize) and open what it needs."""
    answer: Callable[[Request], Coroutine[Any, Any, None]]
    """A request from the server (ping, and those the callbacks answer)."""
    notified: Callable[[Notification], None]
    """A notification from the server (progress has reached its call already)."""
    listeners: Listeners
    """The notification callbacks, in arrival order: a reply is seen after what preceded it."""


class Core:
    """One client connection's plumbing: ids, the requests in flight, sending and receiving."""

    def __init__(self, send: Send, tasks: anyio.abc.TaskGroup) -> None:
        self.tasks = tasks
        self._send_bytes = send
        self._lock = anyio.Lock()
        self._next_id = 0
        self._pending: dict[RequestId, Waiter] = {}
        self._peer: Peer | None = None
        self.closed: ConnectionClosed | None = None
        """Why the connection ended, once it has: every later request raises it."""
        self.stray: list[RequestId] = []
        """Ids the server answered that no request had (told in a timeout's message)."""
        self.revision: Revision | None = None
        """The revision spoken, once the session has chosen it."""
        self.max_message_size = DEFAULT_MAX_MESSAGE
        self.abort: Callable[[RequestId], bool] | None = None
        """The transport's own way to cancel a request (closing its HTTP stream, 2026-07-28):
        True when it did, else the server is sent notifications/cancelled."""
        self.mirrors = False
        """The transport mirrors tool arguments into headers (HTTP): it needs the schemas."""
        self.tool_schemas: dict[str, dict[str, Any]] = {}
        """Input schemas of the tools listed so far, by name."""
        self.sleep: Callable[[float], Awaitable[None]] = anyio.sleep
        """How the transport waits before reconnecting (the client's `poll_sleep`)."""

    @property
    def protocol_version(self) -> str:
        return self.revision.version if self.revision is not None else ""

    def attach(self, peer: Peer) -> None:
        """The session on top: it hears what the server sends from now on."""
        self._peer = peer

    def _session(self) -> Peer:
        assert self._peer is not None, "a Core is attached to its session before it is used"
        return self._peer

    async def start(self) -> None:
        """Open the session (the transport calls it once it can carry messages)."""
        await self._session().start()

    async def call(
        self,
        method: str,
        params: dict[str, Any] | None,
        limit: float | None,
        progress: list[OnProgress],
        *,
        token: bool,
    ) -> dict[str, Any]:
        """Send one request and wait `limit` seconds for its answer (a JSON-RPC error raises
        McpError). `token`: ask for progress (its token is the request's id), to `progress`."""
        if self.closed is not None:
            raise self.closed
        self._next_id += 1
        request_id = self._next_id
        wire = params
        if token:
            wire = dict(wire or {})
            wire["_meta"] = {**(wire.get("_meta") or {}), "progressToken": request_id}
        waiter = Waiter(progress)
        self._pending[request_id] = waiter
        try:
            with anyio.fail_after(limit):
                await self.send(jsonrpc.request_message(request_id, method, wire))
                await waiter.done.wait()
        except TimeoutError:
            await self._cancel(request_id, "timed out")
            stray = f"; meanwhile it answered unknown ids {self.stray}" if self.stray else ""
            raise RequestTimeout(
                f"No answer to {method} (id {request_id}) within {limit} s{stray}"
            ) from None
        except anyio.get_cancelled_exc_class():
            await self._cancel(request_id, "cancelled by the client")
            raise
        finally:
            self._pending.pop(request_id, None)
        if waiter.error is not None:
            raise waiter.error
        assert waiter.result is not None
        return waiter.result

    async def _cancel(self, request_id: RequestId, reason: str) -> None:
        """Tell the server to stop `request_id`: by the transport's own means, else with
        notifications/cancelled."""
        if self.closed is not None:
            return
        with anyio.CancelScope(shield=True):
            if self.abort is not None and self.abort(request_id):
                return
            with contextlib.suppress(Exception):
                await self.send(
                    jsonrpc.notification_message(
                        "notifications/cancelled", {"requestId": request_id, "reason": reason}
                    )
                )

    async def send(self, message: dict[str, Any]) -> None:
        data = jsonrpc.encode(message)
        try:
            async with self._lock:
                await self._send_bytes(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise self.closed or ConnectionClosed("The server closed the connection") from None

    def receive(self, data: bytes) -> None:
        """One message (or batch) from the server; ProtocolViolation when it is not MCP."""
        if len(data) > self.max_message_size:
            raise too_large(self.max_message_size)
        peer = self._session()
        parsed = jsonrpc.parse(data)
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, Response):
                self._answered(message, peer.listeners)
            elif isinstance(message, Request):
                self.tasks.start_soon(peer.answer, message)
            elif isinstance(message, Notification):
                if message.method == PROGRESS:
                    self._progressed(message, peer.listeners)
                peer.notified(message)
            else:
                raise ProtocolViolation(
                    f"The server sent an invalid message ({message.error.message}): {data[:200]!r}"
                )

    def _answered(self, message: Response, listeners: Listeners) -> None:
        waiter = self._pending.get(message.id)
        if waiter is None:
            log.warning("ignored a response to unknown request %r", message.id)
            self.stray.append(message.id)
            return
        if message.error is not None:
            error = message.error
            code = error.get("code")
            waiter.error = McpError(
                code if isinstance(code, int) else INTERNAL_ERROR,
                str(error.get("message", "")),
                error.get("data"),
            )
        else:
            waiter.result = message.result or {}
        waiter.answered = True
        listeners.after(waiter.done.set)

    def _progressed(self, note: Notification, listeners: Listeners) -> None:
        """Progress goes to its own call's callbacks too (the client's own hears it after)."""
        progress = progress_of(note.params)
        waiter = self._pending.get(progress.token) if progress and progress.token else None
        if waiter is not None and progress is not None:
            for sink in waiter.progress:
                listeners.queue_call(sink, progress)

    def awaiting(self, request_id: RequestId) -> bool:
        """The request is still waiting for its answer."""
        waiter = self._pending.get(request_id)
        return waiter is not None and not waiter.answered

    def fail(self, request_id: RequestId, error: McpError) -> None:
        """End a request the transport could not deliver (or got no reply to)."""
        waiter = self._pending.get(request_id)
        if waiter is not None and not waiter.answered:
            waiter.error = error
            waiter.answered = True
            waiter.done.set()

    def close(self, reason: ConnectionClosed) -> None:
        """The connection ended: the requests waiting get `reason`, and so does every later one."""
        if self.closed is None:
            self.closed = reason
        if self._peer is not None:
            self._peer.listeners.close()
        for waiter in self._pending.values():
            if not waiter.answered:
                waiter.error = reason
                waiter.answered = True
            waiter.done.set()

    def detach(self) -> None:
        """Drop the way out (an in-process server's connection): nothing is sent any more, and
        the server can forget this session now rather than at the next garbage collection."""
        self._send_bytes = _closed_send
