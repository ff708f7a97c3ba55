"""Streamable HTTP for the client (`Client.http`), handshake revisions (2024-11-05 to 2025-11-25).

`initialize` gets a session id (`Mcp-Session-Id`), sent with `MCP-Protocol-Version` on every
later request. Each request is its own POST, read in a task of its own so that a slow call
does not hold up the others; its answer is JSON or an SSE stream whose events (progress, log
messages, the server's own requests, then the reply) reach the Client as stdio lines do. A GET
stream carries the server's messages outside any request; DELETE ends the session at close.
Needs httpx2 (`plainmcp[client]`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING

import anyio
import anyio.abc
import httpx2

from plainmcp.client.errors import (
    CONNECTION_CLOSED,
    ConnectionClosed,
    McpError,
    SessionExpired,
    http_error,
)
from plainmcp.client.sse import EventReader
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import Request, RequestId

if TYPE_CHECKING:
    from plainmcp.client.session import Client

log = logging.getLogger("plainmcp.client")

ACCEPT = "application/json, text/event-stream"


def _request_ids(data: bytes) -> list[RequestId]:
    """The ids of the requests in an outgoing message (none: a notification or a response)."""
    parsed = jsonrpc.parse(data)
    return [
        m.id for m in (parsed if isinstance(parsed, list) else [parsed]) if isinstance(m, Request)
    ]


class HttpLink:
    """One client's HTTP exchanges with one endpoint; `send` is the Client's way out."""

    def __init__(self, http: httpx2.AsyncClient, url: str, tasks: anyio.abc.TaskGroup) -> None:
        self.http = http
        self.url = url
        self.tasks = tasks
        self.client: Client | None = None
        self.session_id: str | None = None
        self.expired = False

    def _headers(self, accept: str = ACCEPT) -> dict[str, str]:
        headers = {"accept": accept}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        if self.client is not None and self.client.protocol_version:
            headers["mcp-protocol-version"] = self.client.protocol_version
        return headers

    async def send(self, data: bytes) -> None:
        """Requests are posted in a task (their answers arrive as the Client's replies);
        notifications and responses are posted in order, and their refusal raises here."""
        ids = _request_ids(data)
        if ids:
            self.tasks.start_soon(self._post_request, data, ids)
        else:
            await self._post(data)

    async def _post_request(self, data: bytes, ids: list[RequestId]) -> None:
        assert self.client is not None
        try:
            await self._post(data)
        except McpError as exc:
            error = exc
        else:
            error = McpError(CONNECTION_CLOSED, "The server ended its HTTP answer without a reply")
        for request_id in ids:
            self.client._fail(request_id, error)

    async def _post(self, data: bytes) -> None:
        headers = {**self._headers(), "content-type": "application/json"}
        try:
            async with self.http.stream("POST", self.url, content=data, headers=headers) as answer:
                await self._read(answer)
        except httpx2.HTTPError as exc:
            raise ConnectionClosed(f"HTTP POST to {self.url} failed: {exc}") from None

    async def _read(self, answer: httpx2.Response) -> None:
        assert self.client is not None
        if self.session_id is None and "mcp-session-id" in answer.headers:
            self.session_id = answer.headers["mcp-session-id"]
        if answer.status_code == 404 and self.session_id is not None:
            expired = SessionExpired(
                f"The server no longer knows session {self.session_id!r} (HTTP 404):"
                " open a new Client to start another"
            )
            self.expired = True
            self.client._close(expired)
            raise expired
        if answer.status_code >= 400:
            raise http_error(answer.status_code, await answer.aread())
        kind = answer.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            await self._events(answer)
        else:
            body = await answer.aread()
            if body.strip():
                self.client._receive(body)

    async def _events(self, answer: httpx2.Response) -> None:
        assert self.client is not None
        reader = EventReader()
        async for line in answer.aiter_lines():
            event = reader.line(line)
            if event is not None and event[0] == "message":
                self.client._receive(event[1].encode())

    async def listen(self) -> None:
        """The GET stream, for as long as the server keeps it open (405: it offers none)."""
        try:
            async with self.http.stream(
                "GET", self.url, headers=self._headers("text/event-stream")
            ) as answer:
                kind = answer.headers.get("content-type", "")
                if answer.status_code == 200 and kind.startswith("text/event-stream"):
                    await self._events(answer)
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
    cls: type[Client],
    url: str,
    *,
    headers: Mapping[str, str] | None,
    auth: str | httpx2.Auth | None,
    protocol_version: str,
    listen: bool,
    timeout: float,
    transport: httpx2.AsyncBaseTransport | None,
) -> AsyncIterator[Client]:
    from plainmcp.client.session import _single_errors

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
    async with http, _single_errors(), anyio.create_task_group() as tasks:
        link = HttpLink(http, url, tasks)
        client = cls(link.send, tasks)
        link.client = client
        try:
            await client._initialize(protocol_version)
            if listen:
                tasks.start_soon(link.listen)
            yield client
        finally:
            with anyio.CancelScope(shield=True):
                client._close(ConnectionClosed("The client closed the session"))
                await link.end_session()
                tasks.cancel_scope.cancel()
