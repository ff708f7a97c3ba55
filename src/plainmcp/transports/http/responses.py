"""Writing HTTP answers through ASGI: plain JSON bodies, and SSE streams with keep-alives.

The ASGI plumbing the endpoint (app.py, handshake.py, stateless.py, answer.py) needs, kept apart
so that those read as the protocol.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from plainmcp.transports.http import sse
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import RpcError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
AsgiSend = Callable[[MutableMapping[str, Any]], Awaitable[None]]

STREAM_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]


class Writer:
    """Writes one HTTP response: a JSON body, or an SSE stream with keep-alive comments.

    Plain asyncio (the HTTP server runs on asyncio): this is per request, and anyio's tasks and
    locks cost several times more.
    """

    def __init__(
        self,
        send: AsgiSend,
        gone: asyncio.Event,
        headers: list[tuple[bytes, bytes]],
        keepalive: float,
    ) -> None:
        self._send = send
        self._gone = gone
        self._headers = headers
        self._keepalive = keepalive
        self._lock = asyncio.Lock()
        self._keeper: asyncio.Task[None] | None = None
        self.streaming = False

    async def _write(self, message: MutableMapping[str, Any]) -> None:
        if self._gone.is_set():
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

    async def start_stream(self) -> None:
        self.streaming = True
        await self._write(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*STREAM_HEADERS, *self._headers],
            }
        )
        self._keeper = asyncio.get_running_loop().create_task(self._keep_alive())

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self._keepalive)
            await self._chunk(sse.KEEPALIVE)

    async def event(self, data: bytes) -> None:
        await self._chunk(sse.event(data))

    async def _chunk(self, data: bytes) -> None:
        async with self._lock:
            await self._write({"type": "http.response.body", "body": data, "more_body": True})

    async def finish(self) -> None:
        self.stop()
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
