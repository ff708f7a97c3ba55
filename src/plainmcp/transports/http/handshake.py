"""The handshake-era endpoint: `initialize` makes a session (`Mcp-Session-Id`), the client POSTs
its messages to it, may open a GET stream for the server's own messages, and ends it with DELETE.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
from typing import TYPE_CHECKING, Any

from plainmcp.model.identity import identity
from plainmcp.telemetry import TRANSPORT
from plainmcp.transports.http import rules, sse
from plainmcp.transports.http.answer import Posted, answer
from plainmcp.transports.http.events import Batch, LogUnavailable
from plainmcp.transports.http.responses import (
    AsgiSend,
    Receive,
    Resumable,
    Writer,
    accepted,
    send_error,
    send_json,
    send_text,
    until_disconnect,
)
from plainmcp.transports.http.security import Principal
from plainmcp.transports.http.sessions import (
    Refusal,
    Session,
    StoreUnavailable,
    client_key,
    new_session_id,
)
from plainmcp.transports.http.stateless import stateless_version
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    Message,
    Notification,
    Request,
    Response,
    RpcError,
)

if TYPE_CHECKING:
    from plainmcp.transports.http.endpoint import Endpoint

log = logging.getLogger("plainmcp")

ALLOW_POST = [(b"allow", b"POST")]
GET_STREAM = "get"
"""The token of a session's GET stream in its event ids: the same in every process, so a
client that lost it reconnects to any process and gets what it missed (POST streams have
random tokens of 12 characters)."""
STORE_DOWN = RpcError(INTERNAL_ERROR, "Internal error: the session store is unavailable")


async def initialize(
    app: Endpoint,
    request: Request,
    principal: Principal | None,
    client: tuple[str, int] | None,
    receive: Receive,
    send: AsgiSend,
) -> None:
    subject = identity(principal)
    owner = client_key(subject, client)
    session_id = new_session_id()
    try:
        refusal = await app.sessions.admit(session_id, owner)
    except StoreUnavailable as exc:
        await store_down(send, exc, request.id)
        return
    if refusal is not None:
        await refuse(app, send, refusal, request.id)
        return
    session = app.sessions.new(app.server, session_id, subject, owner)
    transport = TRANSPORT.get()
    if transport is not None:  # telemetry is on: the session's first request names it too
        TRANSPORT.set({**transport, "mcp.session.id": session.id})
    session.conn.principal = principal
    header = [(b"mcp-session-id", session.id.encode())]

    async def kept(reply: dict[str, Any]) -> dict[str, Any]:
        if "error" not in reply:
            try:
                await app.sessions.opened(session)
                return reply
            except StoreUnavailable as exc:
                log.error("%s", exc)
                reply = jsonrpc.error_message(request.id, STORE_DOWN)
                posted.status = 503
        header.clear()
        try:
            await app.sessions.discard(session)  # ended here at once, then forgotten
        except StoreUnavailable as exc:  # its entry is forgotten once it is old enough
            log.error("%s", exc)
        return reply

    posted = Posted(
        session.conn,
        [request],
        receive,
        send,
        headers=header,
        on_reply=kept,
        answering=app.answering,
    )
    async with app.sessions.using(session):
        await answer(posted, app.keepalive_interval)


async def refuse(app: Endpoint, send: AsgiSend, refusal: Refusal, request_id: Any) -> None:
    """No room for a new session: 429 when its client has too many (its own doing, and no
    other process would answer otherwise), 503 when the store is full. Retry-After: the
    soonest a session can have been idle long enough to be evicted."""
    sessions = app.sessions
    if refusal == "client":
        status = 429
        error = RpcError(
            INVALID_REQUEST,
            f"Too many sessions for this client (the limit is {sessions.per_client});"
            " end one or try again later",
        )
    else:
        status = 503
        error = RpcError(INVALID_REQUEST, "Too many sessions; try again later")
    retry_after = str(max(1, math.ceil(sessions.evict_after))).encode()
    await send_json(
        send, status, jsonrpc.error_message(request_id, error), [(b"retry-after", retry_after)]
    )


async def store_down(send: AsgiSend, exc: Exception, request_id: Any = None) -> None:
    """The shared session store is unreachable: logged, and 503 with -32603."""
    log.error("%s", exc)
    await send_errors(send, 503, STORE_DOWN, request_id)


async def send_errors(send: AsgiSend, status: int, error: RpcError, request_id: Any) -> None:
    """`error` for what was posted: with its id, or for a batch (a list of the ids of its
    requests) one error each."""
    if isinstance(request_id, list):
        await send_json(send, status, [jsonrpc.error_message(i, error) for i in request_id])
        return
    await send_error(send, status, error, request_id)


async def find_session(
    app: Endpoint,
    headers: dict[str, str],
    principal: Principal | None,
    send: AsgiSend,
    request_id: Any = None,
) -> Session | None:
    """The request's session, or None after answering 400/404 (503 when the store is down);
    the answer carries `request_id`: the id, or the ids of a batch, of what was posted."""
    session_id = headers.get("mcp-session-id")
    if session_id is None:
        await send_errors(
            send,
            400,
            RpcError(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required"),
            request_id,
        )
        return None
    problem = rules.session_version_error(headers.get("mcp-protocol-version"))
    if problem is not None:
        await send_errors(send, 400, problem, request_id)
        return None
    try:
        session = await app.sessions.find(session_id.strip())
    except StoreUnavailable as exc:
        await store_down(send, exc, request_id)
        return None
    if session is None or (session.subject is not None and identity(principal) != session.subject):
        await send_errors(
            send, 404, RpcError(INVALID_REQUEST, "Session not found: initialize again"), request_id
        )
        return None
    if principal is not None:
        session.conn.principal = principal
    return session


async def post_to_session(
    app: Endpoint,
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
                refusals.append(jsonrpc.error_message(message.id, RpcError(INVALID_REQUEST, why)))
            else:
                requests.append(message)
        elif isinstance(message, Notification | Response):
            try:
                if not await app.sessions.forward(session, message):
                    conn.accept(message)
            except StoreUnavailable as exc:
                log.error("%s", exc)
        elif message.reply:
            refusals.append(jsonrpc.error_message(message.id, message.error))
    if not requests:
        try:
            await app.sessions.changed(session)  # notifications/initialized
        except StoreUnavailable as exc:
            await store_down(send, exc)
            return
    if not requests and not refusals:
        await accepted(send)
        return
    if not requests:
        await send_json(send, 400 if not batch else 200, refusals if batch else refusals[0])
        return

    async def saved(reply: dict[str, Any]) -> dict[str, Any]:
        # Before the reply goes out: the client's next request may reach another process.
        try:
            await app.sessions.changed(session)
        except StoreUnavailable as exc:
            log.error("%s", exc)
            posted.status = 503
            return jsonrpc.error_message(reply.get("id"), STORE_DOWN)
        return reply

    posted = Posted(
        conn,
        requests,
        receive,
        send,
        batch=batch,
        extra=refusals,
        on_reply=saved,
        resumable=resumable(app, session),
        answering=app.answering,
    )
    await answer(posted, app.keepalive_interval)


def resumable(app: Endpoint, session: Session, token: str | None = None) -> Resumable:
    """Where a stream of this session logs its events: a new stream unless `token` names one.
    The log key starts with the session id, so no other session can resume it."""
    token = token or secrets.token_urlsafe(9)
    rev = session.conn.session.revision
    polling = rev is not None and rev.stream_polling
    return Resumable(app.event_log, f"{session.id}:{token}", token, app.retry_ms, polling)


async def get_stream(
    app: Endpoint,
    headers: dict[str, str],
    principal: Principal | None,
    receive: Receive,
    send: AsgiSend,
) -> None:
    """GET: the session's stream of the server's own messages (one at a time), or, with
    `Last-Event-ID`, the rest of a stream the client lost."""
    if stateless_version(headers.get("mcp-protocol-version")):
        await send_text(send, 405, "Method Not Allowed: 2026-07-28 is POST only", ALLOW_POST)
        return
    if not rules.accepts_stream(headers.get("accept")):
        await send_error(
            send,
            406,
            RpcError(INVALID_REQUEST, "Not Acceptable: Accept must list text/event-stream"),
        )
        return
    session = await find_session(app, headers, principal, send)
    if session is None:
        return
    async with app.sessions.using(session):
        await _get(app, session, headers, receive, send)


async def _get(
    app: Endpoint, session: Session, headers: dict[str, str], receive: Receive, send: AsgiSend
) -> None:
    last = headers.get("last-event-id")
    resume = sse.parse_event_id(last) if last is not None else None
    if last is not None and resume is None:
        await send_error(
            send, 400, RpcError(INVALID_REQUEST, "Bad Request: Last-Event-ID is not an event id")
        )
        return
    if resume is not None and resume[0] != GET_STREAM:
        await resume_stream(app, session, resume, receive, send)
        return
    if session.stream is not None:
        await send_error(
            send,
            409,
            RpcError(INVALID_REQUEST, "Conflict: this session's stream is already open"),
        )
        return
    logged = resumable(app, session, GET_STREAM)
    stream = session.open_stream()
    gone = asyncio.Event()
    writer = Writer(send, gone, [], app.keepalive_interval, logged)

    def client_gone(_: object) -> None:
        gone.set()
        session.close_stream()  # ends the loop below

    watcher = asyncio.get_running_loop().create_task(until_disconnect(receive))
    watcher.add_done_callback(client_gone)
    try:
        await writer.start_stream(prime=resume is None)
        if resume is not None:
            # What was logged after the client's last event was lost on the way: again.
            batch = await _read(app, logged.key, resume[1], 0)
            for seq, data in batch.events if batch is not None else ():
                await writer.replayed(data, sse.event_id(logged.token, seq))
        async with stream:
            async for data in stream:
                if writer.detached:
                    break
                await writer.event(data)
        if not writer.detached:
            await writer.detach(app.retry_ms)  # the server is ending it: come back later
    finally:
        writer.stop()
        watcher.cancel()
        session.close_stream()


async def resume_stream(
    app: Endpoint,
    session: Session,
    resume: tuple[str, int],
    receive: Receive,
    send: AsgiSend,
) -> None:
    """GET with the Last-Event-ID of a POST's stream: the events logged after it, then the
    ones still to come, until the stream's reply."""
    token, after = resume
    key = f"{session.id}:{token}"
    try:
        first = await app.event_log.read(key, after, 0)
    except LogUnavailable as exc:
        await store_down(send, exc)
        return
    if first is None:
        await send_error(
            send,
            404,
            RpcError(INVALID_REQUEST, "Not Found: no stream has this Last-Event-ID any more"),
        )
        return
    gone = asyncio.Event()
    writer = Writer(send, gone, [], app.keepalive_interval)
    watcher = asyncio.get_running_loop().create_task(until_disconnect(receive))
    watcher.add_done_callback(lambda _: gone.set())
    stopping = app.stopping
    try:
        await writer.start_stream()
        batch: Batch | None = first
        while batch is not None:
            for seq, data in batch.events:
                await writer.replayed(data, sse.event_id(token, seq))
                after = seq
            if batch.ended or gone.is_set():
                break
            if stopping.is_set():
                await writer.detach(app.retry_ms)
                return
            try:
                batch = await app.event_log.read(key, after, app.keepalive_interval)
            except LogUnavailable as exc:
                log.error("%s: stream %s closed, its client may resume later", exc, token)
                await writer.detach(app.retry_ms)
                return
        await writer.finish()
    finally:
        writer.stop()
        watcher.cancel()


async def _read(app: Endpoint, key: str, after: int, timeout: float) -> Batch | None:
    """A read of the event log whose failure replays nothing (logged)."""
    try:
        return await app.event_log.read(key, after, timeout)
    except LogUnavailable as exc:
        log.error("%s: the lost events of %s are not replayed", exc, key)
        return None


async def delete_session(
    app: Endpoint, headers: dict[str, str], principal: Principal | None, send: AsgiSend
) -> None:
    if stateless_version(headers.get("mcp-protocol-version")):
        await send_text(send, 405, "Method Not Allowed: 2026-07-28 is POST only", ALLOW_POST)
        return
    session = await find_session(app, headers, principal, send)
    if session is None:
        return
    try:
        await app.sessions.close(session)
    except StoreUnavailable as exc:
        await store_down(send, exc)
        return
    await accepted(send, 204)
