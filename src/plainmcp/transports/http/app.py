"""The Streamable HTTP endpoint as an ASGI application (served by uvicorn, or mounted).

One endpoint serves both eras:
- 2026-07-28 requests (their `_meta` names the version) are served on their own, each POST with
  its own Connection, so nothing outlives the request and any process can answer any request.
- Handshake-era clients get a session on `initialize` (`Mcp-Session-Id`), POST their messages
  to it, may open a GET stream for the server's own messages, and end it with DELETE.

A POST's reply is plain JSON when nothing else has to travel with it, and becomes an SSE
stream as soon as the request sends progress, a log message or a request to the client.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plainmcp.connection import Connection
from plainmcp.transports.http import rules
from plainmcp.transports.http.responses import (
    AsgiSend,
    Receive,
    Scope,
    Writer,
    accepted,
    headers_of,
    read_body,
    route_path,
    send_error,
    send_json,
    send_text,
    until_disconnect,
)
from plainmcp.transports.http.security import (
    AuthFailure,
    BearerAuth,
    OriginPolicy,
    Principal,
    authenticate,
    resource_metadata,
)
from plainmcp.transports.http.sessions import Session, Sessions, new_session_id
from plainmcp.wire import jsonrpc
from plainmcp.wire.envelope import is_stateless, stateless_revision
from plainmcp.wire.jsonrpc import (
    INVALID_REQUEST,
    Invalid,
    Message,
    Notification,
    Request,
    Response,
    RpcError,
)
from plainmcp.wire.revisions import REVISIONS

if TYPE_CHECKING:
    from plainmcp.server import Server

log = logging.getLogger("plainmcp")


PRM_PATH = "/.well-known/oauth-protected-resource"


class HttpApp:
    """`app.http_app()`: an ASGI app serving one MCP endpoint (and its auth metadata)."""

    def __init__(
        self,
        server: Server,
        *,
        path: str = "/mcp",
        allowed_hosts: list[str] | tuple[str, ...] = (),
        allowed_origins: list[str] | tuple[str, ...] = (),
        max_body_bytes: int = 4 * 1024 * 1024,
        session_idle_timeout: float = 1800.0,
        max_sessions: int = 10_000,
        keepalive_interval: float = 15.0,
        auth: BearerAuth | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock`: seconds, what session idle time is measured with (tests pass their own)."""
        self.server = server
        self.path = "/" + path.strip("/")
        self.policy = OriginPolicy(allowed_hosts, allowed_origins)
        if max_body_bytes < 1:
            raise ValueError("max_body_bytes must be positive")
        self.max_body_bytes = max_body_bytes
        self.sessions = Sessions(session_idle_timeout, max_sessions, clock)
        self.keepalive_interval = keepalive_interval
        self.auth = auth
        self._live: set[Connection] = set()
        """Connections of POSTs in progress (ended at shutdown)."""

    # --- ASGI entry ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: AsgiSend) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = headers_of(scope)
        path = route_path(scope)
        if not self.policy.host_allowed(headers.get("host")):
            await send_text(send, 421, "Misdirected Request: this Host is not served here")
            return
        if not self.policy.origin_allowed(headers.get("origin")):
            await send_text(send, 403, "Forbidden: this Origin may not use this server")
            return
        if self.auth is not None and path.rstrip("/") in (PRM_PATH, PRM_PATH + self.path):
            await self._resource_metadata(scope, headers, send)
            return
        if path.rstrip("/") != self.path:
            await send_text(send, 404, "Not Found")
            return
        principal: Principal | None = None
        if self.auth is not None:
            verdict = await authenticate(
                self.auth, headers.get("authorization"), self._metadata_url(scope, headers)
            )
            if isinstance(verdict, AuthFailure):
                await send_json(
                    send,
                    verdict.status,
                    {"error": verdict.error, "error_description": verdict.description},
                    [(b"www-authenticate", verdict.challenge.encode())],
                )
                return
            principal = verdict
        method = scope["method"]
        if method == "POST":
            await self._post(headers, principal, receive, send)
        elif method == "GET":
            await self._get(headers, principal, receive, send)
        elif method == "DELETE":
            await self._delete(headers, principal, send)
        else:
            await send_text(send, 405, "Method Not Allowed", [(b"allow", b"GET, POST, DELETE")])

    async def _lifespan(self, receive: Receive, send: AsgiSend) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def shutdown(self) -> None:
        """End every session and open stream: listen streams answer, GET streams close."""
        for session in self.sessions:
            self.sessions.end(session)
        for conn in list(self._live):
            conn.closing.set()

    # --- POST ------------------------------------------------------------------------------

    async def _post(
        self, headers: dict[str, str], principal: Principal | None, receive: Receive, send: AsgiSend
    ) -> None:
        if not rules.is_json(headers.get("content-type")):
            await send_error(
                send, 415, RpcError(INVALID_REQUEST, "Content-Type must be application/json")
            )
            return
        if not rules.accepts_post_reply(headers.get("accept")):
            await send_error(
                send,
                406,
                RpcError(
                    INVALID_REQUEST,
                    "Not Acceptable: Accept must list application/json and text/event-stream",
                ),
            )
            return
        body = await read_body(receive, headers, self.max_body_bytes)
        if body is None:
            await send_error(
                send,
                413,
                RpcError(
                    INVALID_REQUEST,
                    f"Invalid Request: the body exceeds the limit of {self.max_body_bytes} bytes",
                ),
            )
            return
        parsed = jsonrpc.parse(body)
        session_id = headers.get("mcp-session-id")
        version_header = headers.get("mcp-protocol-version")
        if isinstance(parsed, Request) and (
            is_stateless(parsed.params)
            or (session_id is None and _stateless_version(version_header))
        ):
            await self._post_stateless(parsed, headers, principal, receive, send)
            return
        if isinstance(parsed, Invalid):
            await send_error(send, 400, parsed.error, parsed.id)
            return
        if session_id is None and _stateless_version(version_header):
            # A 2026-07-28 notification or response: nothing to act on over HTTP.
            if isinstance(parsed, list):
                await send_error(send, 400, _NO_BATCHES)
            else:
                await accepted(send)
            return
        if isinstance(parsed, Request) and parsed.method == "initialize":
            await self._initialize(parsed, principal, receive, send)
            return
        session = await self._session(headers, principal, send)
        if session is None:
            return
        messages: list[Message] = list(parsed) if isinstance(parsed, list) else [parsed]
        await self._post_session(session, messages, isinstance(parsed, list), receive, send)

    async def _post_stateless(
        self,
        request: Request,
        headers: dict[str, str],
        principal: Principal | None,
        receive: Receive,
        send: AsgiSend,
    ) -> None:
        # A body without a version is an envelope error (-32602); one with a version is first
        # compared with the headers (-32020), then checked for support (-32022).
        problem = None
        if is_stateless(request.params):
            problem = rules.stateless_header_error(headers, request, self._mirrored)
        if problem is None:
            try:
                stateless_revision(request.method, request.params)
            except RpcError as exc:
                problem = exc
        if problem is not None:
            status = 404 if problem.code == jsonrpc.METHOD_NOT_FOUND else 400
            await send_error(send, status, problem, request.id)
            return
        outbox = _Outbox()
        conn = self.server.connect(outbox.send, push=outbox.push)
        conn.principal = principal
        conn.bind()
        self._live.add(conn)
        try:
            await self._answer(conn, [request], False, True, [], receive, send, outbox=outbox)
        finally:
            self._live.discard(conn)
            conn.close()

    def _mirrored(self, tool_name: str) -> dict[str, str]:
        tool = self.server.tools.get(tool_name)
        return dict(tool.headers) if tool is not None else {}

    async def _initialize(
        self, request: Request, principal: Principal | None, receive: Receive, send: AsgiSend
    ) -> None:
        if self.sessions.full():
            await send_error(
                send, 503, RpcError(INVALID_REQUEST, "Too many sessions; try again later"), None
            )
            return
        session_id = new_session_id()
        holder: list[Session] = []

        async def session_send(data: bytes) -> None:
            if holder:
                await holder[0].send(data)

        def session_push(data: bytes) -> None:
            if holder:
                holder[0].push(data)

        conn = self.server.connect(session_send, push=session_push)
        conn.principal = principal
        conn.bind()
        session = Session(
            session_id,
            conn,
            subject=principal.subject if principal else None,
            last_active=self.sessions.clock(),
        )
        holder.append(session)
        self.sessions.add(session)
        header = [(b"mcp-session-id", session_id.encode())]

        def kept(reply: dict[str, Any]) -> bool:
            if "error" in reply:
                self.sessions.end(session)
                return False
            return True

        await self._answer(conn, [request], False, False, header, receive, send, on_reply=kept)

    async def _session(
        self, headers: dict[str, str], principal: Principal | None, send: AsgiSend
    ) -> Session | None:
        """The request's session, or None after answering 400/404."""
        session_id = headers.get("mcp-session-id")
        if session_id is None:
            await send_error(
                send,
                400,
                RpcError(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required"),
            )
            return None
        problem = rules.session_version_error(headers.get("mcp-protocol-version"))
        if problem is not None:
            await send_error(send, 400, problem)
            return None
        session = self.sessions.get(session_id.strip())
        if session is None or (
            session.subject is not None
            and (principal is None or principal.subject != session.subject)
        ):
            await send_error(
                send, 404, RpcError(INVALID_REQUEST, "Session not found: initialize again")
            )
            return None
        if principal is not None:
            session.conn.principal = principal
        return session

    async def _post_session(
        self,
        session: Session,
        messages: list[Message],
        batch: bool,
        receive: Receive,
        send: AsgiSend,
    ) -> None:
        conn = session.conn
        refusal = conn.session.batch_refusal() if batch else None
        if refusal is not None:
            await send_error(send, 400, refusal)
            return
        requests: list[Request] = []
        refusals: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, Request):
                if (
                    message.method == "initialize"
                    or conn.in_use(message.id)
                    or any(r.id == message.id for r in requests)
                ):
                    why = (
                        "initialize must be the first request of a session"
                        if message.method == "initialize"
                        else f"Invalid Request: id {message.id!r} is in use"
                    )
                    refusals.append(
                        jsonrpc.error_message(message.id, RpcError(INVALID_REQUEST, why))
                    )
                else:
                    requests.append(message)
            elif isinstance(message, Notification | Response):
                conn.accept(message)
            elif message.reply:
                refusals.append(jsonrpc.error_message(message.id, message.error))
        if not requests and not refusals:
            await accepted(send)
            return
        if not requests:
            await send_json(send, 400 if not batch else 200, refusals if batch else refusals[0])
            return
        await self._answer(conn, requests, batch, False, [], receive, send, extra=refusals)

    # --- answering requests ----------------------------------------------------------------

    async def _answer(
        self,
        conn: Connection,
        requests: list[Request],
        batch: bool,
        stateless: bool,
        headers: list[tuple[bytes, bytes]],
        receive: Receive,
        send: AsgiSend,
        *,
        on_reply: Callable[[dict[str, Any]], bool] | None = None,
        extra: list[dict[str, Any]] | None = None,
        outbox: _Outbox | None = None,
    ) -> None:
        """Serve the requests of one POST and write their answers: JSON when only replies come
        out, an SSE stream as soon as anything else does."""
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

        async def serve(request: Request) -> None:
            nonlocal unanswered
            try:
                reply = await conn.serve_request(request, related)
                if reply is not None:
                    if on_reply is not None and not on_reply(reply):
                        headers.clear()
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

        writer = Writer(send, gone, headers, self.keepalive_interval)
        serving = [loop.create_task(serve(request)) for request in requests]
        watcher = loop.create_task(watch())
        replies: list[dict[str, Any]] = list(extra or [])
        try:
            while queue or unanswered:
                if not queue:
                    wake.clear()
                    await wake.wait()
                    continue
                is_reply, item = queue.popleft()
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
                await writer.json(status, body)
            else:
                await writer.json(202, None)
        finally:
            writer.stop()
            watcher.cancel()
            for task in serving:
                task.cancel()

    # --- GET and DELETE --------------------------------------------------------------------

    async def _get(
        self, headers: dict[str, str], principal: Principal | None, receive: Receive, send: AsgiSend
    ) -> None:
        if _stateless_version(headers.get("mcp-protocol-version")):
            await send_text(send, 405, "Method Not Allowed: 2026-07-28 is POST only", _ALLOW_POST)
            return
        if not rules.accepts_stream(headers.get("accept")):
            await send_error(
                send,
                406,
                RpcError(INVALID_REQUEST, "Not Acceptable: Accept must list text/event-stream"),
            )
            return
        session = await self._session(headers, principal, send)
        if session is None:
            return
        if session.stream is not None:
            await send_error(
                send,
                409,
                RpcError(INVALID_REQUEST, "Conflict: this session's stream is already open"),
            )
            return
        stream = session.open_stream()
        gone = asyncio.Event()
        writer = Writer(send, gone, [], self.keepalive_interval)

        def client_gone(_: object) -> None:
            gone.set()
            session.close_stream()  # ends the loop below

        watcher = asyncio.get_running_loop().create_task(until_disconnect(receive))
        watcher.add_done_callback(client_gone)
        try:
            await writer.start_stream()
            async with stream:
                async for data in stream:
                    await writer.event(data)
            await writer.finish()
        finally:
            writer.stop()
            watcher.cancel()
            session.close_stream()

    async def _delete(
        self, headers: dict[str, str], principal: Principal | None, send: AsgiSend
    ) -> None:
        if _stateless_version(headers.get("mcp-protocol-version")):
            await send_text(send, 405, "Method Not Allowed: 2026-07-28 is POST only", _ALLOW_POST)
            return
        session = await self._session(headers, principal, send)
        if session is None:
            return
        self.sessions.end(session)
        await accepted(send, 204)

    # --- auth metadata ---------------------------------------------------------------------

    def _metadata_url(self, scope: Scope, headers: dict[str, str]) -> str:
        return f"{_origin(scope, headers)}{PRM_PATH}{self.path}"

    async def _resource_metadata(
        self, scope: Scope, headers: dict[str, str], send: AsgiSend
    ) -> None:
        assert self.auth is not None
        if scope["method"] != "GET":
            await send_text(send, 405, "Method Not Allowed", [(b"allow", b"GET")])
            return
        resource = f"{_origin(scope, headers)}{self.path}"
        await send_json(send, 200, resource_metadata(self.auth, resource))


_NO_BATCHES = RpcError(INVALID_REQUEST, "Invalid Request: 2026-07-28 has no JSON-RPC batches")
_ALLOW_POST = [(b"allow", b"POST")]


class _Outbox:
    """Where a stateless POST's own Connection sends what is not tied to a request: the
    notifications of its subscriptions/listen stream. They join that POST's stream."""

    def __init__(self) -> None:
        self.sink: Callable[[bytes], None] | None = None

    async def send(self, data: bytes) -> None:
        self.push(data)

    def push(self, data: bytes) -> None:
        if self.sink is not None:
            self.sink(data)


def _origin(scope: Scope, headers: dict[str, str]) -> str:
    host = headers.get("host") or "localhost"
    return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"


def _stateless_version(header: str | None) -> bool:
    rev = REVISIONS.get((header or "").strip())
    return rev is not None and not rev.handshake
