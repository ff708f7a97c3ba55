"""Serving the requests of one POST and writing their answers, in either era.

The answer is plain JSON when only replies come out, and becomes an SSE stream as soon as
anything else does (progress, a log message, a request to the client, a listen notification).
That decision is post_answer.py's state machine; this is the asyncio shell that runs the
requests, feeds it what happens and performs the actions it returns.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plainmcp.connection import STOPPED
from plainmcp.transports.http.post_answer import (
    CANCEL,
    Action,
    Detach,
    FinishStream,
    PostAnswer,
    StartStream,
    WriteEvent,
    WriteJson,
)
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
    """Serve the requests of one POST and write their answers: what to write is decided by
    `PostAnswer` (post_answer.py), told of each event as it happens; its actions are performed
    in order by this task, except cancelling, which is done at once."""
    conn, requests = posted.conn, posted.requests
    resumable, answering, on_reply = posted.resumable, posted.answering, posted.on_reply
    retry_ms = resumable.retry_ms if resumable is not None else None
    machine = PostAnswer(len(requests), posted.batch, posted.stateless, retry_ms, posted.extra)
    todo: deque[Action] = deque() if requests else deque(machine.begin())  # begin(): [] else
    wake = asyncio.Event()

    def do(actions: list[Action]) -> None:
        if actions and actions[0] is CANCEL:  # at once: a slow write must not delay it
            for request in requests:
                scope = conn.cancel_scope(request.id)
                if scope is not None:
                    scope.cancel()
            return
        if actions:
            todo.extend(actions)
            wake.set()

    def related_now(data: bytes) -> None:
        do(machine.related(data))

    async def related(data: bytes) -> None:
        do(machine.related(data))

    if posted.outbox is not None:
        posted.outbox.sink = related_now

    def close_stream() -> bool:
        do(machine.close_stream())
        return True

    def stop() -> None:
        do(machine.stop())

    async def serve(request: Request) -> None:
        ended: dict[str, Any] | None = None  # the reply to write, once on_reply has seen it
        try:
            reply = await conn.serve_request(request, related)
            if reply is None and machine.stopped:
                reply = jsonrpc.error_message(request.id, STOPPED)
            if reply is not None:
                ended = await on_reply(reply) if on_reply is not None else reply
        finally:
            do(machine.unanswered() if ended is None else machine.replied(ended, posted.status))

    gone = asyncio.Event()

    async def watch() -> None:
        await until_disconnect(posted.receive)
        gone.set()
        do(machine.disconnected())  # 2026-07-28: closing the stream cancels the request

    writer = Writer(posted.send, gone, posted.headers, keepalive_interval, resumable)
    if resumable is not None and resumable.polling:
        for request in requests:
            conn.stream_closers[request.id] = close_stream
    if answering is not None:
        answering.add(stop)
    loop = asyncio.get_running_loop()
    serving = [loop.create_task(serve(request)) for request in requests]
    watcher = loop.create_task(watch())
    try:
        while todo or not machine.done:
            if not todo:
                wake.clear()
                await wake.wait()
                continue
            action = todo.popleft()
            match action:  # inline, not a coroutine per action: this is every POST's path
                case WriteJson():
                    await writer.json(action.status, action.body)
                case WriteEvent():
                    await writer.event(action.data)
                case StartStream():
                    await writer.start_stream()
                case FinishStream():
                    await writer.finish()
                case Detach():
                    await writer.detach(action.retry_ms)
    finally:
        writer.stop()
        watcher.cancel()
        for task in serving:
            task.cancel()
        for request in requests:
            conn.stream_closers.pop(request.id, None)
        if answering is not None:
            answering.discard(stop)
        if posted.outbox is not None:  # what comes later is dropped, as no one writes it; and
            posted.outbox.sink = None  # its Connection is freed now, not by a GC cycle pass
