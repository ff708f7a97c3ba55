"""Writing HTTP answers through ASGI: plain JSON bodies, and SSE streams with keep-alives.

The ASGI plumbing the endpoint (app.py, handshake.py, stateless.py, answer.py) needs, kept apart
so that those read as the protocol.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from plainmcp.transports.http import sse
from plainmcp.transports.http.events import EventLog, LogUnavailable
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import RpcError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
AsgiSend = Callable[[MutableMapping[str, Any]], Awaitable[None]]

log = logging.getLogger("plainmcp")

STREAM_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]


@dataclass(frozen=True, slots=True)
class Resumable:
    """Where a resumable stream's events are logged: `key` in the log, `token` on the wire
    (event ids are `token:seq`)."""

    log: EventLog
    key: str
    token: str
    retry_ms: int
    """The reconnection delay the stream asks for."""
    polling: bool
    """The session's revision has priming events and server-closed streams (2025-11-25)."""

    async def record(self, data: bytes) -> str | None:
        """The event's id once logged; None when the log is unreachable (the event still goes
        out, without an id: it cannot be resumed)."""
        try:
            return sse.event_id(self.token, await self.log.append(self.key, data))
        except LogUnavailable as exc:
            log.error("%s: an event of stream %s is not resumable", exc, self.token)
            return None

    async def end(self) -> None:
        try:
            await self.log.end(self.key)
        except LogUnavailable as exc:
            log.error("%s: the end of stream %s is not logged", exc, self.token)


class Writer:
    """Writes one HTTP response: a JSON body, or an SSE stream with keep-alive comments.
    With `resumable`, every event is logged first and carries its id, and the stream can be
    closed before its end (`detach`): what follows is only logged, for the client to resume.

    Plain asyncio (the HTTP server runs on asyncio): this is per request, and anyio's tasks and
    locks cost several times more.
    """

    def __init__(
        self,
        send: AsgiSend,
        gone: asyncio.Event,
        headers: list[tuple[bytes, bytes]],
        keepalive: float,
        resumable: Resumable | None = None,
    ) -> None:
        self._send = send
        self._gone = gone
        self._headers = headers
        self._keepalive = keepalive
        self._lock = asyncio.Lock()
        self._keeper: asyncio.Task[None] | None = None
        self._closed = False
        self.resumable = resumable
        self.streaming = False

    @property
    def detached(self) -> bool:
        """The HTTP response has ended while the stream goes on in the log."""
        return self._closed

    async def _write(self, message: MutableMapping[str, Any]) -> None:
        if self._gone.is_set() or self._closed:
            return
        try:
            await self._send(message)
        except OSError:
            self._gone.set()

    async def json(self, status: int, body: Any) -> None:
        data = b"" if body is None else jsonrpc.encode(body)
        headers = [(b"content-type", b"application/json"), *self._headers] if data else []
        headers.append((b"content-length", str(len(data)).encode()))
        await self._write({"type": "http.response.start", "status": status, "headers": headers})
        await self._write({"type": "http.response.body", "body": data})

    async def start_stream(self, *, prime: bool = True) -> None:
        """Headers, then (resumable at 2025-11-25, unless `prime` is False: a reconnect, whose
        client has an id already) the priming event."""
        self.streaming = True
        await self._write(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*STREAM_HEADERS, *self._headers],
            }
        )
        self._keeper = asyncio.get_running_loop().create_task(self._keep_alive())
        if prime and self.resumable is not None and self.resumable.polling:
            first = await self.resumable.record(b"")
            if first is not None:
                await self._chunk(sse.priming(first, self.resumable.retry_ms))

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self._keepalive)
            await self._chunk(sse.KEEPALIVE)

    async def event(self, data: bytes) -> None:
        if self.resumable is None:
            await self._chunk(sse.event(data))
        else:
            await self._chunk(sse.event(data, await self.resumable.record(data)))

    async def replayed(self, data: bytes, event_id: str) -> None:
        """An event logged before, sent again to a client resuming its stream."""
        if data:  # a priming event has nothing to repeat
            await self._chunk(sse.event(data, event_id))

    async def detach(self, retry_ms: int) -> None:
        """End the HTTP response with a reconnection hint; later events are only logged."""
        self.stop()
        async with self._lock:
            hint = sse.retry(retry_ms)
            await self._write({"type": "http.response.body", "body": hint, "more_body": True})
            await self._write({"type": "http.response.body", "body": b""})
            self._closed = True

    async def _chunk(self, data: bytes) -> None:
        async with self._lock:
            await self._write({"type": "http.response.body", "body": data, "more_body": True})

    async def finish(self) -> None:
        self.stop()
        if self.resumable is not None:
            await self.resumable.end()
        async with self._lock:
            await self._write({"type": "http.response.body", "body": b""})

    def stop(self) -> None:
        """No more keep-alives (the stream ends, or the request was abandoned)."""
        if self._keeper is not None:
            self._keeper.cancel()
            self._keeper = None


async def until_disconnect(receive: Receive) -> None:
    """Return when the client has gone (the request body was read already)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def headers_of(scope: Scope) -> dict[str, str]:
    found: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        found[name] = f"{found[name]}, {value}" if name in found else value
    return found


def route_path(scope: Scope) -> str:
    path: str = scope.get("path", "/")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path or "/"


async def read_body(receive: Receive, headers: dict[str, str], limit: int) -> bytes | None:
    """The request body, or None when it exceeds `limit` (then the rest is not read)."""
    declared = headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def accepted(send: AsgiSend, status: int = 202) -> None:
    """An answer without a body (202 Accepted, 204 No Content)."""
    headers = [(b"content-length", b"0")] if status != 204 else []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def send_body(
    send: AsgiSend,
    status: int,
    content_type: bytes,
    data: bytes,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """A whole response with a body of known length."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-length", str(len(data)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})


async def send_json(
    send: AsgiSend, status: int, body: Any, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send_body(send, status, b"application/json", jsonrpc.encode(body), headers)


async def send_error(send: AsgiSend, status: int, error: RpcError, request_id: Any = None) -> None:
    await send_json(send, status, jsonrpc.error_message(request_id, error))


async def send_text(
    send: AsgiSend, status: int, text: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send_body(send, status, b"text/plain; charset=utf-8", text.encode(), headers)
