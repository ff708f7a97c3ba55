"""Connection: one client session over one transport.

It owns the task and thread plumbing of one client: the requests in flight, each with its
state (inflight.py: received, running, answered, cancelled, timed out), the requests to the
client (asks.py), batches (batches.py), the order of replies. What the session is (revision,
client, level, subscriptions) is `session`, plain data (wire/session.py). Transports feed it
lines with `receive()` and give it a `send` function; `Server.connect` gives it the function
that serves a request, so this module imports neither the server nor the dispatcher. What a
request's Exchange and Context use of it is the Peer interface (peer.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc

from plainmcp.asks import Asks
from plainmcp.batches import serve_batch
from plainmcp.inflight import TIMED_OUT, InFlight, Target
from plainmcp.peer import Cancellable as Cancellable  # its home was here
from plainmcp.peer import Send as Send
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    Invalid,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from plainmcp.wire.session import SessionState

log = logging.getLogger("plainmcp")

Serve = Callable[["Connection", Request], Awaitable[dict[str, Any]]]
"""What serves one request of a connection to its reply (the dispatcher, bound to its server:
handed in by `Server.connect`, so this module knows neither)."""

STOPPED = RpcError(INTERNAL_ERROR, "The server shut down before the call finished; call again")
"""The answer to a call a shutdown stopped at its deadline (stdio and HTTP alike)."""


class Connection:
    """One client session over one transport: its state, and the requests in flight."""

    def __init__(
        self,
        serve: Serve,
        send: Send,
        max_message_bytes: int = 64 * 1024 * 1024,
        *,
        push: Callable[[bytes], None] | None = None,
        ask_prefix: str = "plainmcp-",
        on_close: Callable[[Connection], None] | None = None,
    ) -> None:
        self.serve = serve
        """Serves one request to its reply (the dispatcher, bound to its server)."""
        self.send = send
        """Where replies and unrelated messages go."""
        self.max_message_bytes = max_message_bytes
        """A longer line is refused unread (-32600)."""
        self._push = push
        """A non-blocking `send` (HTTP streams have unbounded buffers): lets post() deliver
        without a task group."""
        self._on_close = on_close
        self._streams: dict[RequestId, Send] = {}
        """Per-request streams (HTTP): a request's own messages and reply go there."""
        self.stream_closers: dict[RequestId, Callable[[], bool]] = {}
        """Per-request streams the transport can close mid-call for the client to resume
        (HTTP, 2025-11-25 polling); see close_stream."""
        self.principal: Any = None
        """Who the transport authenticated (HTTP bearer auth); None when nobody was."""
        self.session = SessionState()
        """The handshake session's state (revision, client, log level, subscriptions)."""
        self._running: dict[RequestId, InFlight] = {}
        """The requests received and not yet answered, each with its state (inflight.py)."""
        self._timed_out: list[InFlight] = []
        """Requests `stop()` timed out: answered with its error by their task or, at the end,
        by `answer_stopped`."""
        self._active = 0
        self._quiet: asyncio.Event | None = None
        """Set when `_active` drops to 0 while `settled()` waits."""
        self.listens: dict[RequestId, dict[str, Any]] = {}
        """Open subscriptions/listen streams (2026-07-28): request id -> what was honoured.
        Each is a request in flight, not session state: it ends with its task."""
        self.closing = asyncio.Event()
        """Set when the transport is ending: open listen streams answer and close."""
        self._asks = Asks(ask_prefix)
        self._tasks: anyio.abc.TaskGroup | None = None
        self._requests: set[asyncio.Task[None]] = set()
        self._loop_thread: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, tasks: anyio.abc.TaskGroup | None = None) -> None:
        """Attach the event loop (and the task group that runs `receive()`'s requests)."""
        self._tasks = tasks
        self._loop_thread = threading.get_ident()
        self._loop = asyncio.get_running_loop()

    def close(self) -> None:
        """The transport is done: cancel what still runs and forget this connection, so
        nothing more is posted to it."""
        for scope in list(self._running.values()):
            scope.cancel()
        self._tasks = None
        self._push = None
        if self._on_close is not None:
            self._on_close(self)

    def _spawn(self, request: Request) -> None:
        """Run one request concurrently, as a plain asyncio task (plainmcp serves on asyncio):
        anyio's start_soon and a cancel scope per request cost several times more, and requests
        are the hot path. close() and notifications/cancelled cancel the task."""
        assert self._loop is not None, "bind() first"
        running = InFlight(request.id)
        self._running[request.id] = running
        self._active += 1
        task = self._loop.create_task(self._serve(request, running))
        running.start(task)
        self._requests.add(task)
        task.add_done_callback(functools.partial(self._served, running))

    def _served(self, running: InFlight, task: asyncio.Task[None]) -> None:
        # Here, not in _serve: a task cancelled before its first step never runs its body.
        if self._running.get(running.id) is running:
            del self._running[running.id]
        self._requests.discard(task)
        self._active -= 1
        if not self._active and self._quiet is not None:
            self._quiet.set()

    def post(self, message: dict[str, Any]) -> None:
        """Send a server-initiated message from any thread, without waiting."""
        push = self._push
        if push is not None:
            data = jsonrpc.encode(message)
            if threading.get_ident() == self._loop_thread:
                push(data)
            elif self._loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    self._loop.call_soon_threadsafe(self._push_now, data)
            return
        if self._tasks is None:
            return
        data = jsonrpc.encode(message)
        if threading.get_ident() == self._loop_thread:
            self._send_soon(data)
        elif self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                self._loop.call_soon_threadsafe(self._send_soon, data)

    def _push_now(self, data: bytes) -> None:
        push = self._push
        if push is not None:  # None: the connection closed before this ran
            push(data)

    def _send_soon(self, data: bytes) -> None:
        """Send `data` from a task of its own. An asyncio task, not the task group's
        start_soon: this runs as a loop callback when another thread posted, outside any task,
        where anyio cannot tell the event loop once sniffio is installed (openai does)."""
        if self._tasks is None:  # None: the connection closed before this ran
            return
        assert self._loop is not None, "bind() first"
        self._active += 1
        task = self._loop.create_task(self.send(data))
        self._requests.add(task)
        task.add_done_callback(self._sent)

    async def receive(self, data: bytes) -> None:
        """Handle one line of input (see receive_nowait), for callers in a task."""
        self.receive_nowait(data)

    def receive_nowait(self, data: bytes) -> None:
        """Handle one line of input without waiting: requests start as tasks of their own, and
        so do error replies. A transport can call it from a reader callback, with no task
        switch between the read and the request."""
        try:
            self._take(data)
        except Exception:
            # A bug of ours, not the client's: answered, logged, and the next line is read.
            log.exception("internal error handling a message")
            self._reply_error_soon(
                jsonrpc.sniff_id(data), RpcError(INTERNAL_ERROR, "Internal error")
            )

    def _take(self, data: bytes) -> None:
        assert self._tasks is not None, "bind() first"
        if len(data) > self.max_message_bytes:
            self._reply_error_soon(
                jsonrpc.sniff_id(data),
                RpcError(
                    INVALID_REQUEST,
                    f"Invalid Request: message exceeds the limit of {self.max_message_bytes} bytes",
                ),
            )
            return
        parsed = jsonrpc.parse(data)
        if isinstance(parsed, list):
            self._active += 1
            self._tasks.start_soon(self._batch, parsed)
            return
        self._one(parsed)

    def error_message(self, request_id: RequestId | None, error: RpcError) -> dict[str, Any] | None:
        """The error response to send, or None when the revision cannot express it (an error
        for a message whose id is unknown is then logged instead of sent)."""
        if request_id is None and not self.session.errors_without_id:
            rev = self.session.revision
            log.warning(
                "not answering an unidentifiable message (%s has no error without an id): %s",
                rev.version if rev is not None else None,
                error.message,
            )
            return None
        return jsonrpc.error_message(request_id, error)

    async def reply_error(self, request_id: RequestId | None, error: RpcError) -> None:
        """Send the error reply (nothing where the revision cannot express it)."""
        message = self.error_message(request_id, error)
        if message is not None:
            await self.send(jsonrpc.encode(message))

    def _reply_error_soon(self, request_id: RequestId | None, error: RpcError) -> None:
        """Send an error reply from a task of its own (tasks start in order, so it still goes
        out before the replies of lines read after it)."""
        message = self.error_message(request_id, error)
        if message is None:
            return
        assert self._loop is not None, "bind() first"
        self._active += 1
        task = self._loop.create_task(self.send(jsonrpc.encode(message)))
        self._requests.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._requests.discard(task)
        self._active -= 1
        if not self._active and self._quiet is not None:
            self._quiet.set()

    def _one(self, message: Message) -> None:
        if isinstance(message, Request):
            if message.id in self._running:
                self._reply_error_soon(
                    message.id,
                    RpcError(INVALID_REQUEST, f"Invalid Request: id {message.id!r} is in use"),
                )
                return
            self._spawn(message)
        elif isinstance(message, Notification):
            self.accept(message)
        elif isinstance(message, Invalid):
            if message.reply:
                self._reply_error_soon(message.id, message.error)
            else:
                log.warning("dropped a malformed notification: %s", message.error.message)
        elif isinstance(message, Response):
            self.accept(message)

    async def notify(
        self, method: str, params: dict[str, Any], *, related_to: RequestId | None = None
    ) -> None:
        """Send a notification; `related_to` names the request it belongs to (for transports
        that keep one stream per request)."""
        message = jsonrpc.encode(jsonrpc.notification_message(method, params))
        await self.sender(related_to)(message)

    def sender(self, related_to: RequestId | None) -> Send:
        """Where a message about the request `related_to` goes: its own stream, else `send`."""
        if related_to is not None:
            stream = self._streams.get(related_to)
            if stream is not None:
                return stream
        return self.send

    async def ask(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        related_to: RequestId | None = None,
    ) -> dict[str, Any]:
        """Send a request to the client and wait for its result.

        An error answer raises RpcError; no answer within `timeout` seconds raises TimeoutError
        and tells the client the request is cancelled. Cancelling the caller does the same.
        """
        return await self._asks.ask(self, method, params, timeout=timeout, related_to=related_to)

    def awaits(self, request_id: RequestId) -> bool:
        """One of our requests to the client with this id waits for its answer here."""
        return self._asks.waits_for(request_id)

    def close_stream(self, request_id: RequestId) -> bool:
        """Close the request's response stream while it keeps running; the client reconnects
        and resumes it. False where the transport cannot (stdio, JSON-only replies, revisions
        without resumable streams)."""
        closer = self.stream_closers.get(request_id)
        return closer() if closer is not None else False

    def cancel_scope(self, request_id: RequestId) -> Cancellable | None:
        """What the client cancels `request_id` through (None once it has finished)."""
        return self._running.get(request_id)

    @property
    def busy(self) -> bool:
        """Requests are still running or their replies are still being written."""
        return self._active > 0

    async def settled(self) -> None:
        """Wait until the connection is not `busy` (woken by the last request's end)."""
        while self._active:
            if self._quiet is None or self._quiet.is_set():
                self._quiet = asyncio.Event()
            await self._quiet.wait()

    def stop(self, error: RpcError) -> int:
        """A shutdown's deadline has passed: time out the requests still running, each to be
        answered with `error` instead of no reply (as its task ends, or by `answer_stopped`).
        Returns how many."""
        count = 0
        for running in list(self._running.values()):
            if running.time_out(error):  # one the client cancelled gets no answer
                self._timed_out.append(running)
                count += 1
        return count

    async def answer_stopped(self) -> None:
        """Answer the stopped requests that have not answered for themselves (not started, or
        deaf to cancellation), just before the transport ends."""
        while self._timed_out:
            running = self._timed_out.pop(0)
            error = running.answer_late()
            if error is not None:
                await self.reply_error(running.id, error)

    async def _serve(self, request: Request, running: InFlight) -> None:
        try:
            reply = await self.serve(self, request)
        except asyncio.CancelledError:
            if not running.cancel_called:
                raise
            if running.state != TIMED_OUT or running.error is None:
                return  # cancelled by the client or by close(): no reply
            task = running.target
            if isinstance(task, asyncio.Task):
                task.uncancel()
            reply = jsonrpc.error_message(request.id, running.error)
        # Done: a cancellation from now on comes too late, the reply goes out.
        if self._running.get(request.id) is running:
            del self._running[request.id]
        if running.finish():  # False: answered for it already
            await self.send(jsonrpc.encode(reply))

    def in_use(self, request_id: RequestId) -> bool:
        """A request with this id is still running on this connection."""
        return request_id in self._running

    def begin(self, request_id: RequestId, target: Target) -> InFlight:
        """A request the caller runs in `target` (a batch's): in flight until `end`."""
        running = InFlight(request_id, target)
        self._running[request_id] = running
        return running

    def end(self, running: InFlight) -> None:
        if self._running.get(running.id) is running:
            del self._running[running.id]

    async def serve_request(self, request: Request, stream: Send) -> dict[str, Any] | None:
        """Serve one request in the caller's task, which must be a task of its own (HTTP: one
        per request of a POST): cancelling the request cancels that task. The messages it
        causes go to `stream`. Returns the reply, or None when the request was cancelled."""
        task = asyncio.current_task()
        assert task is not None
        running = InFlight(request.id, task)
        self._running[request.id] = running
        self._streams[request.id] = stream
        self._active += 1
        try:
            reply = await self.serve(self, request)
        except asyncio.CancelledError:
            if not running.cancel_called:
                raise
            task.uncancel()
            return None
        finally:
            self._running.pop(request.id, None)
            self._streams.pop(request.id, None)
            self._active -= 1
            if not self._active and self._quiet is not None:
                self._quiet.set()
        return reply  # its record is gone already: answered

    def accept(self, message: Message) -> None:
        """A notification or a response from the client (HTTP delivers these one POST each)."""
        if isinstance(message, Notification):
            if message.method == "notifications/initialized":
                self.session.complete_handshake()
            elif message.method == "notifications/cancelled":
                request_id = message.params.get("requestId")
                found = self._running.get(request_id) if isinstance(request_id, int | str) else None
                if found is not None:
                    found.cancel()
        elif isinstance(message, Response):
            self._asks.answered(message)

    async def _batch(self, messages: list[Message]) -> None:
        try:
            await serve_batch(self, messages)
        finally:
            self._active -= 1
            if not self._active and self._quiet is not None:
                self._quiet.set()
