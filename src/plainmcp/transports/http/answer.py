"""Serving the requests of one POST and writing their answers, in either era.

The answer is plain JSON when only replies come out, and becomes an SSE stream as soon as
anything else does (progress, a log message, a request to the client, a listen notification).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plainmcp.connection import STOPPED
from plainmcp.transports.http import rules
from plainmcp.transports.http.responses import (
    AsgiSend,
    Receive,
    Resumable,
    Writer,
    until_disconnect,
)
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import Request

if TYPE_CHECKING:
    from plainmcp.connection import Connection


@dataclass(slots=True)
class Posted:
    """The requests of one POST, the connection that serves them and where their answers go."""

    conn: Connection
    requests: list[Request]
    receive: Receive
    send: AsgiSend
    batch: bool = False
    """The body was a JSON-RPC batch: the replies go back as one array."""
    stateless: bool = False
    """2026-07-28: the status follows the reply, and closing the stream cancels the requests."""
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    """Response headers (Mcp-Session-Id on initialize); cleared when `on_reply` refuses."""
    on_reply: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None
    """Sees each reply before it is written, and gives the reply to write (a session's state
    is stored here; a failed initialize clears `headers`, keeping no session)."""
    extra: list[dict[str, Any]] | None = None
    """Replies already made (refusals of a batch's bad requests), sent with the others."""
    outbox: Outbox | None = None
    """A stateless POST's own connection's messages not tied to a request, which join it."""
    resumable: Resumable | None = None
    """A handshake session's stream: its events are logged, with ids, for Last-Event-ID."""
    answering: Answering | None = None
    """The app's POSTs in progress, which a shutdown waits for and stops."""
    status: int | None = None
    """Set by `on_reply`: the status of a JSON answer instead of the rules' (503 when the
    session store failed)."""


class Answering:
    """The POSTs being answered: a graceful shutdown waits until there are none, and answers
    the ones still running at its deadline (`stop_all`)."""

    def __init__(self) -> None:
        self._stops: set[Callable[[], None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def __len__(self) -> int:
        return len(self._stops)

    def add(self, stop: Callable[[], None]) -> None:
        self._stops.add(stop)
        self._idle.clear()

    def discard(self, stop: Callable[[], None]) -> None:
        self._stops.discard(stop)
        if not self._stops:
            self._idle.set()

    async def idle(self, timeout: float) -> bool:
        """Wait until no POST is being answered; False if some still are after `timeout`."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def stop_all(self) -> None:
        """Cancel the calls still running and answer each with an error (STOPPED)."""
        for stop in list(self._stops):
            stop()


class Outbox:
    """Where a stateless POST's own Connection sends what is not tied to a request: the
    notifications of its subscriptions/listen stream. They join that POST's stream."""

    def __init__(self) -> None:
        self.sink: Callable[[bytes], None] | None = None

    async def send(self, data: bytes) -> None:
        self.push(data)

    def push(self, data: bytes) -> None:
        if self.sink is not None:
            self.sink(data)


async def answer(posted: Posted, keepalive_interval: float) -> None:
    """Serve the requests of one POST and write their answers: JSON when only replies come
    out, an SSE stream as soon as anything else does."""
    conn, requests, batch, stateless = posted.conn, posted.requests, posted.batch, posted.stateless
    headers, receive, send = posted.headers, posted.receive, posted.send
    on_reply, extra, outbox = posted.on_reply, posted.extra, posted.outbox
    resumable, answering = posted.resumable, posted.answering
    loop = asyncio.get_running_loop()
    queue: deque[tuple[bool, Any]] = deque()
    """(is a reply, message): replies as dicts, other messages encoded."""
    wake = asyncio.Event()
    unanswered = len(requests)

    def related_now(data: bytes) -> None:
        queue.append((False, data))
        wake.set()

    async def related(data: bytes) -> None:
        related_now(data)

    if outbox is not None:
        outbox.sink = related_now

    taken = 0
    """Messages taken from the queue so far."""
    detach_after: int | None = None
    """Close the response once this many are taken: those queued before close_stream()."""
    stopped = False

    def close_stream() -> bool:
        nonlocal detach_after
        if detach_after is None:
            detach_after = taken + len(queue)
            wake.set()
        return True

    def stop() -> None:
        nonlocal stopped
        stopped = True
        for request in requests:
            scope = conn.cancel_scope(request.id)
            if scope is not None:
                scope.cancel()

    async def serve(request: Request) -> None:
        nonlocal unanswered
        try:
            reply = await conn.serve_request(request, related)
            if reply is None and stopped:
                reply = jsonrpc.error_message(request.id, STOPPED)
            if reply is not None:
                if on_reply is not None:
                    reply = await on_reply(reply)
                queue.append((True, reply))
        finally:
            unanswered -= 1
            wake.set()

    gone = asyncio.Event()

    async def watch() -> None:
        await until_disconnect(receive)
        gone.set()
        if stateless:
            # 2026-07-28: closing the stream cancels the request.
            for request in requests:
                scope = conn.cancel_scope(request.id)
                if scope is not None:
                    scope.cancel()

    writer = Writer(send, gone, headers, keepalive_interval, resumable)
    if resumable is not None and resumable.polling:
        for request in requests:
            conn.stream_closers[request.id] = close_stream
    if answering is not None:
        answering.add(stop)
    serving = [loop.create_task(serve(request)) for request in requests]
    watcher = loop.create_task(watch())
    replies: list[dict[str, Any]] = list(extra or [])
    try:
        while queue or unanswered:
            if (
                detach_after is not None
                and taken >= detach_after
                and not writer.detached
                and resumable is not None
            ):
                if not writer.streaming:
                    await writer.start_stream()
                    for reply in replies:
                        await writer.event(jsonrpc.encode(reply))
                await writer.detach(resumable.retry_ms)
            if not queue:
                wake.clear()
                await wake.wait()
                continue
            is_reply, item = queue.popleft()
            taken += 1
            if writer.streaming:
                await writer.event(jsonrpc.encode(item) if is_reply else item)
            elif is_reply:
                replies.append(item)
            else:
                await writer.start_stream()
                for reply in replies:
                    await writer.event(jsonrpc.encode(reply))
                await writer.event(item)
        if writer.streaming:
            await writer.finish()
        elif replies:
            body: Any = replies if batch else replies[0]
            status = 200 if batch else rules.status_for(replies[0], stateless=stateless)
            await writer.json(posted.status or status, body)
        else:
            await writer.json(202, None)
    finally:
        writer.stop()
        watcher.cancel()
        for task in serving:
            task.cancel()
        for request in requests:
            conn.stream_closers.pop(request.id, None)
        if answering is not None:
            answering.discard(stop)
