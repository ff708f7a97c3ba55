"""The Streamable HTTP endpoint as an ASGI application (served by uvicorn, or mounted).

One endpoint serves both eras; this module checks Host, Origin and auth, what every POST must
pass, and routes a POST to one of three modes behind one interface (modes.py):
- 2026-07-28 requests (their `_meta` names the version) are served on their own, each POST with
  its own Connection, so nothing outlives the request and any process can answer any request
  (stateless.py).
- Handshake-era clients get a session on `initialize` (`Mcp-Session-Id`), POST their messages
  to it, may open a GET stream for the server's own messages, and end it with DELETE
  (handshake.py); with `sessions=None`, each of their POSTs stands alone (sessionless.py).

A POST's reply is plain JSON when nothing else has to travel with it, and becomes an SSE
stream as soon as the request sends progress, a log message or a request to the client
(answer.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

from plainmcp.connection import Connection
from plainmcp.lifespan import LifespanError, running
from plainmcp.redis_link import close_shared
from plainmcp.telemetry import TRANSPORT, http_attributes
from plainmcp.transports.http import handshake, modes, protected, rules, state_secret
from plainmcp.transports.http.answer import Answering
from plainmcp.transports.http.events import EventLog, MemoryEventLog
from plainmcp.transports.http.handshake import ALLOW_POST
from plainmcp.transports.http.protected import PRM_PATH
from plainmcp.transports.http.responses import (
    AsgiSend,
    Receive,
    Scope,
    headers_of,
    read_body,
    route_path,
    send_error,
    send_json,
    send_text,
)
from plainmcp.transports.http.security import (
    AuthFailure,
    BearerAuth,
    OriginPolicy,
    Principal,
    authenticate,
)
from plainmcp.transports.http.sessions import REDIS_SCHEMES as REDIS_SCHEMES  # cli/run.py
from plainmcp.transports.http.sessions import Sessions, open_sessions
from plainmcp.transports.stdout import release_stdout
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import INVALID_REQUEST, Invalid, Message, Request, RpcError

if TYPE_CHECKING:
    from plainmcp.authorization.server import AuthorizationServer
    from plainmcp.served import Served

log = logging.getLogger("plainmcp")


MAX_HEADER_BYTES = 16 * 1024  # Node's default and h11's (nginx: 4 buffers of 8 KiB)
MAX_HEADERS = 100  # Apache's LimitRequestFields


class HttpApp:
    """`app.http_app()`: an ASGI app serving one MCP endpoint (and its auth metadata)."""

    def __init__(
        self,
        server: Served,
        *,
        path: str = "/mcp",
        allowed_hosts: list[str] | tuple[str, ...] = (),
        allowed_origins: list[str] | tuple[str, ...] = (),
        max_body_bytes: int = 4 * 1024 * 1024,
        max_header_bytes: int = MAX_HEADER_BYTES,
        max_headers: int = MAX_HEADERS,
        session_idle_timeout: float = 1800.0,
        max_sessions: int = 10_000,
        max_sessions_per_client: int = 100,
        session_evict_after: float = 10.0,
        keepalive_interval: float = 15.0,
        auth: BearerAuth | None = None,
        authorization: AuthorizationServer | None = None,
        clock: Callable[[], float] = time.monotonic,
        sessions: str | Sessions | None = "memory",
        event_log: EventLog | None = None,
        retry_interval: float = 1.0,
        shutdown_deadline: float = 30.0,
    ) -> None:
        """`clock`: seconds, what session idle time and the event log's ttl are measured with
        (tests pass their own). `sessions`: where handshake sessions live: "memory" (this
        process), a Redis URL ("redis://host:6379/0", shared by every process given it), a
        Sessions object, or None (no sessions: each handshake-era request stands alone, see
        sessionless.py). `max_sessions` bounds the sessions in all (of this process, or on the
        Redis), `max_sessions_per_client` those of one client (its authenticated subject, else
        its address); a new one evicts the least recently used session idle for at least
        `session_evict_after` seconds, its client's own first (docs/http.md). `event_log`:
        where resumable streams keep their events, 5 minutes (default: the sessions' Redis when
        they are on Redis, so a stream resumes on any process; else this process's memory).
        `retry_interval`: seconds a client waits before
        reconnecting to a stream the server closed. `shutdown_deadline`: seconds running calls
        get to finish once a shutdown starts (`drain`). `max_header_bytes`, `max_headers`: the
        request line and headers plainmcp's own servers accept (more: 431; head_bounds.py).
        `authorization`: an AuthorizationServer (plainmcp.authorization) served beside the
        endpoint; unless `auth` is given, the endpoint then accepts its tokens, and its
        metadata names it."""
        self.server = server
        self.path = "/" + path.strip("/")
        self.policy = OriginPolicy(allowed_hosts, allowed_origins)
        if min(max_body_bytes, max_header_bytes, max_headers) < 1:
            raise ValueError("max_body_bytes, max_header_bytes and max_headers must be positive")
        self.max_body_bytes = max_body_bytes
        self.max_header_bytes = max_header_bytes
        self.max_headers = max_headers
        self.stateful = sessions is not None
        """Handshake-era clients get sessions (False: `sessions=None`)."""
        self.sessions = open_sessions(
            sessions,
            session_idle_timeout,
            max_sessions,
            clock,
            per_client=max_sessions_per_client,
            evict_after=session_evict_after,
        )
        self.keepalive_interval = keepalive_interval
        self.authorization = authorization
        if authorization is not None and auth is None:
            auth = BearerAuth(
                verify=authorization.verifier(),
                authorization_servers=[authorization.issuer],
                resource=authorization.resource,
                scopes_supported=authorization.scopes or None,
            )
        self.auth = auth
        self.live: set[Connection] = set()
        """Connections of POSTs in progress (ended at shutdown)."""
        if retry_interval < 0 or shutdown_deadline < 0:
            raise ValueError("retry_interval and shutdown_deadline must not be negative")
        self.event_log: EventLog = (
            event_log if event_log is not None else _default_event_log(self.sessions, clock)
        )
        self.retry_ms = round(retry_interval * 1000)
        self.shutdown_deadline = shutdown_deadline
        self.answering = Answering()
        """The POSTs being answered, which `drain` waits for."""
        self.stopping = asyncio.Event()
        """Set by `drain`: new requests get 503 from then on."""
        self._draining: asyncio.Task[bool] | None = None

    # --- ASGI entry ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: AsgiSend) -> None:
        release_stdout()  # served over HTTP: stdout is no protocol stream (transports/stdout.py)
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
        if self.authorization is not None and self.authorization.serves(path):
            # Its own checks: a browser's consent POST names its Origin, clients' calls do not.
            from plainmcp.authorization.asgi import serve

            await serve(self.authorization, scope, receive, send, headers, path)
            return
        if not self.policy.origin_allowed(headers.get("origin")):
            await send_text(send, 403, "Forbidden: this Origin may not use this server")
            return
        if self.auth is not None and path.rstrip("/") in (PRM_PATH, PRM_PATH + self.path):
            await protected.serve_metadata(self.auth, scope, headers, self.path, send)
            return
        if path.rstrip("/") != self.path:
            await send_text(send, 404, "Not Found")
            return
        principal: Principal | None = None
        metadata_url = ""
        if self.auth is not None:
            metadata_url = protected.metadata_url(scope, headers, self.path)
            verdict = await authenticate(self.auth, headers.get("authorization"), metadata_url)
            if isinstance(verdict, AuthFailure):
                await protected.refuse(send, verdict)
                return
            principal = verdict
        method = scope["method"]
        if method == "POST":
            if self.server.telemetry is None:
                await self._post(
                    headers, principal, receive, send, metadata_url, scope.get("client")
                )
                return
            session_id = headers.get("mcp-session-id")
            attributes = http_attributes(scope, session_id.strip() if session_id else None)
            token = TRANSPORT.set(attributes)  # the requests' tasks inherit it
            try:
                await self._post(
                    headers, principal, receive, send, metadata_url, scope.get("client")
                )
            finally:
                TRANSPORT.reset(token)
        elif method in ("GET", "DELETE") and not self.stateful:
            await send_text(
                send, 405, "Method Not Allowed: this server keeps no sessions", ALLOW_POST
            )
        elif method == "GET":
            if self.stopping.is_set():
                await self._unavailable(send)
                return
            await handshake.get_stream(self, headers, principal, receive, send)
        elif method == "DELETE":
            await handshake.delete_session(self, headers, principal, send)
        else:
            await send_text(send, 405, "Method Not Allowed", [(b"allow", b"GET, POST, DELETE")])

    async def _lifespan(self, receive: Receive, send: AsgiSend) -> None:
        """The ASGI lifespan (uvicorn's): the server's lifespan runs from startup to shutdown; a
        start-up that raises is reported as lifespan.startup.failed, and the server stops."""
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        try:
            async with self.lifespan():
                with _draining_on_signals(self._start_draining):
                    await send({"type": "lifespan.startup.complete"})
                    while (await receive())["type"] != "lifespan.shutdown":
                        pass
        except LifespanError as exc:
            log.error("%s", exc, exc_info=exc.__cause__)
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        except Exception as exc:
            log.error("the server's lifespan failed at shutdown", exc_info=exc)
            await send({"type": "lifespan.shutdown.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})

    @contextlib.asynccontextmanager
    async def lifespan(self, host: object = None) -> AsyncIterator[None]:
        """The app's lifespan, for a host that mounts it (mounted apps get no lifespan events):
        `Starlette(routes=[Mount("/", app=mcp)], lifespan=mcp.lifespan)`. Enters the server's
        lifespan, and at the end closes every session and stream, then exits it."""
        release_stdout()
        async with running(self.server):
            try:
                await self.sessions.start(self.server)
            except Exception as exc:
                raise LifespanError(f"the session store did not start: {exc}") from exc
            tasks = None
            if self.sessions.shared:  # sessions on Redis: the tasks go there too
                from plainmcp.transports.http.redis_tasks import tasks_on_redis

                tasks = tasks_on_redis(self.server, self.sessions)
            try:
                await state_secret.share(self)
            except Exception as exc:
                raise LifespanError(f"the shared state secret is unusable: {exc}") from exc
            try:
                yield
            finally:
                self.shutdown()
                if tasks is not None:
                    await tasks.aclose()
                await self.sessions.stop()
                await close_shared()  # the event log's and blob store's Redis clients
                if self.auth is not None:
                    await self.auth.aclose()  # what its verifier keeps open
                if self.authorization is not None:
                    await self.authorization.aclose()  # its HTTP client (upstream, CIMD)

    async def drain(self) -> bool:
        """A graceful shutdown's first half, before the HTTP server stops: new requests get 503
        with Retry-After (answers to the server's own requests and cancellations still go
        through), GET and listen streams close with a retry hint so their clients reconnect
        elsewhere, and running calls get `shutdown_deadline` seconds to finish. Calls still
        running then are cancelled and answered with an error. True when every call finished
        in time. Runs once: later calls wait for the first. Under uvicorn (and gunicorn's
        uvicorn workers) SIGTERM and SIGINT start it (see `_lifespan`)."""
        if self._draining is None:
            self._draining = asyncio.get_running_loop().create_task(self._drain())
        return await asyncio.shield(self._draining)

    def _start_draining(self) -> None:
        if self._draining is None:
            self._draining = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> bool:
        deadline = self.shutdown_deadline
        self.stopping.set()
        for session in self.sessions:
            session.close_stream()
        for conn in list(self.live):
            conn.closing.set()
        if await self.answering.idle(deadline):
            return True
        log.warning(
            "shutdown: %d request(s) still running after %.1f s; answering them with an error",
            len(self.answering),
            deadline,
        )
        self.answering.stop_all()
        await self.answering.idle(1.0)
        return False

    async def _unavailable(self, send: AsgiSend) -> None:
        """503 while draining: a load balancer or client tries another process."""
        retry_after = str(max(1, math.ceil(self.retry_ms / 1000))).encode()
        await send_json(
            send,
            503,
            jsonrpc.error_message(
                None, RpcError(INVALID_REQUEST, "Service Unavailable: the server is shutting down")
            ),
            [(b"retry-after", retry_after), (b"connection", b"close")],
        )

    def shutdown(self) -> None:
        """End every session and open stream: listen streams answer, GET streams close."""
        for session in self.sessions:
            self.sessions.end(session)
        for conn in list(self.live):
            conn.closing.set()

    # --- POST ------------------------------------------------------------------------------

    async def _post(
        self,
        headers: dict[str, str],
        principal: Principal | None,
        receive: Receive,
        send: AsgiSend,
        metadata_url: str = "",
        client: tuple[str, int] | None = None,
    ) -> None:
        """`client`: the peer's (host, port) as the ASGI server reports it."""
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
        if self.stopping.is_set() and _asks_anything(parsed):
            await self._unavailable(send)
            return
        if principal is not None and self.auth is not None:
            refusal = protected.step_up(self.server, self.auth, parsed, principal, metadata_url)
            if refusal is not None:
                await protected.refuse(send, refusal)
                return
        if isinstance(parsed, Invalid):
            await send_error(send, 400, parsed.error, parsed.id)
            return
        mode = modes.route(parsed, headers, self.stateful)
        await mode(self, parsed, headers, principal, receive, send, client)


@contextlib.contextmanager
def _draining_on_signals(start: Callable[[], None]) -> Iterator[None]:
    """While the app runs, SIGTERM and SIGINT also start its drain, before the handler the
    server installed (uvicorn's, which then stops the server: its wait for open connections
    ends as the drain closes them). Nothing is chained where no Python handler is installed
    or outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()
    previous: dict[int, Callable[[int, FrameType | None], Any]] = {}

    def chained(sig: int, frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(start)
        previous[sig](sig, frame)

    for sig in (signal.SIGTERM, signal.SIGINT):
        handler = signal.getsignal(sig)
        if callable(handler):
            previous[sig] = handler
            signal.signal(sig, chained)
    try:
        yield
    finally:
        for number, handler in previous.items():
            if signal.getsignal(number) is chained:
                signal.signal(number, handler)


def _default_event_log(sessions: Sessions, clock: Callable[[], float]) -> EventLog:
    from plainmcp.transports.http.redis_sessions import RedisSessions

    if isinstance(sessions, RedisSessions):
        from plainmcp.transports.http.redis_events import RedisEventLog

        return RedisEventLog(sessions.url, prefix=f"{sessions.prefix}events:")
    return MemoryEventLog(clock=clock)


def _asks_anything(parsed: Message | list[Message] | Invalid) -> bool:
    """The body holds a request (or what may be one): not only answers and notifications."""
    messages = parsed if isinstance(parsed, list) else [parsed]
    return any(isinstance(m, Request | Invalid) for m in messages)
