"""Streamable HTTP for the client (`Client.http`), in every revision.

Handshake revisions (2024-11-05 to 2025-11-25): `initialize` gets a session id
(`Mcp-Session-Id`), sent with `MCP-Protocol-Version` on every later request. 2026-07-28: no
session; each request carries `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and its tool's
`Mcp-Param-*` headers (`wire.request_headers`), and closing its stream cancels it.

Each request is its own POST, read in a task of its own so that a slow call
does not hold up the others; its answer is JSON or an SSE stream whose events (progress, log
messages, the server's own requests, then the reply) reach the Client as stdio lines do. A GET
stream carries the server's messages outside any request; DELETE ends the session at close.
Needs httpx2 (`plainmcp[client]`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TypeVar

import anyio
import anyio.abc
import httpx2

from plainmcp.client.core import Core, single_errors
from plainmcp.client.errors import (
    CONNECTION_CLOSED,
    ConnectionClosed,
    McpError,
    SessionExpired,
    http_error,
    too_large,
)
from plainmcp.client.sse import EventReader
from plainmcp.client.task_wire import ROUTED
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import Request, RequestId
from plainmcp.wire.request_headers import stateless_headers

log = logging.getLogger("plainmcp.client")

ACCEPT = "application/json, text/event-stream"
RESUME_AFTER_MS = 1000
"""The wait before resuming a stream whose server gave no `retry`."""
MAX_RESUMES = 3
"""Reconnects in a row that bring no new event before the request is given up."""
S = TypeVar("S")


def _requests(data: bytes) -> list[Request]:
    """The requests in an outgoing message (none: a notification or a response)."""
    parsed = jsonrpc.parse(data)
    return [m for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, Request)]


class HttpLink:
    """One client's HTTP exchanges with one endpoint; `send` is its core's way out."""

    def __init__(self, http: httpx2.AsyncClient, url: str, tasks: anyio.abc.TaskGroup) -> None:
        self.http = http
        self.url = url
        self.tasks = tasks
        self.core: Core | None = None
        self.session_id: str | None = None
        self.expired = False
        self.stateless: dict[RequestId, anyio.CancelScope] = {}
        """The stateless requests in flight, each its own POST (cancelled by closing it)."""

    def _headers(self, accept: str = ACCEPT) -> dict[str, str]:
        headers = {"accept": accept}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.core is not None and self.core.protocol_version:
            headers["mcp-protocol-version"] = self.core.protocol_version
        return headers

    async def send(self, data: bytes) -> None:
        """Requests are posted in a task (their answers arrive as the Client's replies);
        notifications and responses are posted in order, and their refusal raises here."""
        requests = _requests(data)
        if requests:
            extra: dict[str, str] = {}
            if len(requests) == 1:
                extra = self._stateless_headers(requests[0])
            scope = anyio.CancelScope()
            if extra:
                self.stateless[requests[0].id] = scope
            self.tasks.start_soon(self._post_request, data, [r.id for r in requests], extra, scope)
        else:
            await self._post(data, answers=False)

    def _stateless_headers(self, request: Request) -> dict[str, str]:
        schema = None
        if self.core is not None and request.method == "tools/call":
            schema = self.core.tool_schemas.get(str(request.params.get("name")))
        target = ROUTED.get(request.method)  # the tasks extension's methods name their task
        return stateless_headers(request.method, request.params, schema, target=target)

    def abort(self, request_id: RequestId) -> bool:
        """Cancel a stateless request by closing its stream (2026-07-28 has no
        notifications/cancelled over HTTP); False for a session's request."""
        scope = self.stateless.pop(request_id, None)
        if scope is None:
            return False
        scope.cancel()
        return True

    async def _post_request(
        self,
        data: bytes,
        ids: list[RequestId],
        extra: dict[str, str],
        scope: anyio.CancelScope,
    ) -> None:
        assert self.core is not None
        error: McpError = McpError(
            CONNECTION_CLOSED, "The server ended its HTTP answer without a reply"
        )
        with scope:
            try:
                stream = await self._post(data, extra)
                if not extra:  # a session's stream resumes; a stateless one is lost
                    await self._resume(stream, ids)
            except McpError as exc:
                error = exc
            finally:
                for request_id in ids:
                    self.stateless.pop(request_id, None)
        if scope.cancelled_caught:
            return
        for request_id in ids:
            self.core.fail(request_id, error)

    async def _post(
        self, data: bytes, extra: dict[str, str] | None = None, *, answers: bool = True
    ) -> EventReader | None:
        """Post `data`; the SSE stream it was answered with, once ended (None: JSON). A
        notification or response (`answers` False) has no answer: a 2xx accepts it and any
        body is not read (some servers send 200 with one instead of 202)."""
        headers = {**self._headers(), "content-type": "application/json", **(extra or {})}
        if extra:  # a stateless request: its own version header, and no session
            headers.pop("mcp-session-id", None)
        try:
            async with self.http.stream("POST", self.url, content=data, headers=headers) as answer:
                if not answers and answer.status_code < 300:
                    return None
                return await self._read(answer)
        except httpx2.HTTPError as exc:
            raise ConnectionClosed(f"HTTP POST to {self.url} failed: {exc}") from None

    async def _resume(self, stream: EventReader | None, ids: list[RequestId]) -> None:
        """A stream that ended before its reply, having given an event id, is resumed (SEP-1699):
        after the server's `retry`, a GET with Last-Event-ID, and again while events come."""
        assert self.core is not None
        idle = 0
        while (
            stream is not None
            and stream.last_id is not None
            and idle < MAX_RESUMES
            and any(self.core.awaiting(request_id) for request_id in ids)
        ):
            retry = stream.retry_ms if stream.retry_ms is not None else RESUME_AFTER_MS
            await self.core.sleep(retry / 1000)
            last = stream.last_id
            headers = {**self._headers("text/event-stream"), "last-event-id": last}
            try:
                async with self.http.stream("GET", self.url, headers=headers) as answer:
                    stream = await self._read(answer, EventReader(last, stream.retry_ms))
            except httpx2.HTTPError as exc:
                raise ConnectionClosed(f"HTTP GET to {self.url} failed: {exc}") from None
            idle = idle + 1 if stream is None or stream.last_id == last else 0

    async def _read(
        self, answer: httpx2.Response, reader: EventReader | None = None
    ) -> EventReader | None:
        assert self.core is not None
        if self.session_id is None and "mcp-session-id" in answer.headers:
            self.session_id = answer.headers["mcp-session-id"]
        if answer.status_code == 404 and self.session_id is not None:
            expired = SessionExpired(
                f"The server no longer knows session {self.session_id!r} (HTTP 404):"
                " open a new Client to start another"
            )
            self.expired = True
            self.core.close(expired)
            raise expired
        if answer.status_code >= 400:
            raise http_error(answer.status_code, await answer.aread())
        kind = answer.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            return await self._events(answer, reader or EventReader())
        body = await self._body(answer)
        if body.strip():
            self.core.receive(body)
        return None

    async def _body(self, answer: httpx2.Response) -> bytes:
        """The answer's body, refused once it grows past the client's limit."""
        assert self.core is not None
        limit = self.core.max_message_size
        body = bytearray()
        async for chunk in answer.aiter_bytes():
            body += chunk
            if len(body) > limit:
                raise too_large(limit)
        return bytes(body)

    async def _events(self, answer: httpx2.Response, reader: EventReader) -> EventReader:
        assert self.core is not None
        limit = self.core.max_message_size
        size = 0
        async for line in answer.aiter_lines():
            size = size + len(line) if line else 0
            if size > limit:
                raise too_large(limit)
            event = reader.line(line)
            if event is not None and event[0] == "message":
                self.core.receive(event[1].encode())
        return reader

    async def listen(self) -> None:
        """The GET stream, for as long as the server keeps it open (405: it offers none)."""
        try:
            async with self.http.stream(
                "GET", self.url, headers=self._headers("text/event-stream")
            ) as answer:
                kind = answer.headers.get("content-type", "")
                if answer.status_code == 200 and kind.startswith("text/event-stream"):
                    await self._events(answer, EventReader())
                else:
                    log.debug("no GET stream: HTTP %s", answer.status_code)
        except httpx2.HTTPError as exc:
            log.debug("the GET stream ended: %s", exc)

    async def end_session(self) -> None:
        """DELETE the session, so the server frees it now rather than when it idles out."""
        if self.session_id is None or self.expired:
            return
        with anyio.move_on_after(5), contextlib.suppress(httpx2.HTTPError):
            await self.http.delete(self.url, headers=self._headers())


@contextlib.asynccontextmanager
async def connect(
    url: str,
    *,
    headers: Mapping[str, str] | None,
    auth: str | httpx2.Auth | None,
    listen: bool,
    timeout: float,
    transport: httpx2.AsyncBaseTransport | None,
    session: Callable[[Core], S],
) -> AsyncIterator[S]:
    """Build `session` on a core that posts to `url`, open it, and (a handshake session,
    `listen`) keep the GET stream open; at the end, DELETE the session."""
    all_headers = dict(headers or {})
    if isinstance(auth, str):
        all_headers["authorization"] = f"Bearer {auth}"
        auth = None
    http = httpx2.AsyncClient(
        headers=all_headers,
        auth=auth,
        timeout=httpx2.Timeout(timeout, read=None),  # tool calls and streams take their time
        transport=transport,
    )
    async with http, single_errors(), anyio.create_task_group() as tasks:
        link = HttpLink(http, url, tasks)
        core = Core(link.send, tasks)
        link.core = core
        core.abort = link.abort
        core.mirrors = True
        opened = session(core)
        try:
            await core.start()
            if listen and core.revision is not None and core.revision.handshake:
                tasks.start_soon(link.listen)
            yield opened
        finally:
            with anyio.CancelScope(shield=True):
                core.close(ConnectionClosed("The client closed the session"))
                await link.end_session()
                tasks.cancel_scope.cancel()
