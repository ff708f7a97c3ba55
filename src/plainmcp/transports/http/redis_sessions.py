"""Handshake sessions on Redis: any process serves any request of any session.

Each session's state (`SessionState.to_dict()` and the subject that opened it) is one Redis
string, `<prefix>session:<id>`, whose TTL is the idle timeout. A process keeps a local Session
(Connection, GET stream) for each session it serves, as a cache: its state is read again on
every request and written back when a reply changed it.

Round trips per POST: one to read the state (GETEX, which also renews the TTL), one more only
when the request changed the state (initialize, notifications/initialized, logging/setLevel,
resources/subscribe and unsubscribe). A response to another process's request or a
cancellation of another process's call costs one PUBLISH.

Messages between processes go over pub/sub: `<prefix>proc:<name>` reaches one process (the
client's responses to requests it sent: their ids carry its name), `<prefix>all` reaches
every process (cancellations, ended sessions, list changes and resource updates).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from plainmcp.redis_link import open_client, reachable, redis_errors, safe_url
from plainmcp.transports.http.sessions import (
    Session,
    Sessions,
    StoreUnavailable,
    make_session,
)
from plainmcp.wire.jsonrpc import Notification, Response
from plainmcp.wire.session import SessionState

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

    from plainmcp.server import Server

log = logging.getLogger("plainmcp")

RECONNECT_DELAY = 1.0
"""Seconds between attempts to subscribe again after Redis was lost."""


class RedisSessions(Sessions):
    """Sessions whose state lives in Redis, shared by every process given the same URL."""

    shared = True

    def __init__(
        self,
        url: str,
        idle_timeout: float,
        limit: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        prefix: str = "plainmcp:",
    ) -> None:
        super().__init__(idle_timeout, limit, clock)
        self.url = url
        self.prefix = prefix
        self.name = secrets.token_hex(6)
        """This process's name: in the ids of its requests to clients, and its channel."""
        self.ask_prefix = f"plainmcp-{self.name}-"
        self.ttl = max(1, round(idle_timeout))
        self._redis: Redis | None = None
        self._server: Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listening = asyncio.Event()
        self._down = False

    # --- keys ------------------------------------------------------------------------------

    def key(self, session_id: str) -> str:
        return f"{self.prefix}session:{session_id}"

    @property
    def everyone(self) -> str:
        return f"{self.prefix}all"

    def channel(self, name: str) -> str:
        return f"{self.prefix}proc:{name}"

    @property
    def redis(self) -> Redis:
        if self._redis is None:
            raise StoreUnavailable("Redis sessions are not started: run the app's lifespan")
        return self._redis

    # --- lifespan --------------------------------------------------------------------------

    async def start(self, server: Server) -> None:
        """Check that Redis answers (a clear error when not), subscribe, and relay the
        server's list changes and resource updates through Redis."""
        self._redis = open_client(self.url)
        await reachable(self._redis, self.url)
        self._server = server
        self._loop = asyncio.get_running_loop()
        self._listening = asyncio.Event()
        self._spawn(self._listen())
        self._spawn(self._renew())
        server.relay = self.relay
        await asyncio.wait_for(self._listening.wait(), 10)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.relay = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- the store -------------------------------------------------------------------------

    async def admit(self) -> bool:
        return not self.full()  # bounds this process's local sessions; Redis bounds the rest

    async def opened(self, session: Session) -> None:
        self.add(session)
        await self._save(session)

    async def find(self, session_id: str) -> Session | None:
        raw = await self._call(self.redis.getex(self.key(session_id), ex=self.ttl))
        local = self._by_id.get(session_id)
        if raw is None:
            if local is not None:
                self.end(local)
            return None
        try:
            stored = orjson.loads(raw)
            state = SessionState.from_dict(stored["state"])
            subject = stored.get("subject")
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("session %s: unreadable state in Redis (%s)", session_id, exc)
            return None
        now = self.clock()
        if local is None:
            local = make_session(self._server_(), session_id, subject, self.ask_prefix, now)
            self.add(local)
        _assign(local.conn.session, state)
        local.saved = stored["state"]
        local.subject = subject
        local.last_active = now
        return local

    async def changed(self, session: Session) -> None:
        if session.conn.session.to_dict() != session.saved:
            await self._save(session)

    async def close(self, session: Session) -> None:
        self.end(session)
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(self.key(session.id))
        pipe.publish(self.everyone, _event("ended", session=session.id))
        await self._call(pipe.execute())

    async def forward(self, session: Session, message: Notification | Response) -> bool:
        conn = session.conn
        if isinstance(message, Response):
            owner = self._owner(message.id)
            if owner is None or owner == self.name or conn.awaits(message.id):
                return False
            payload = {"id": message.id, "result": message.result, "error": message.error}
            event = _event("response", session=session.id, message=payload)
            heard = await self._call(self.redis.publish(self.channel(owner), event))
            if not heard:
                log.warning(
                    "session %s: the process that sent request %r is gone; its call is lost",
                    session.id,
                    message.id,
                )
            return True
        if message.method == "notifications/cancelled":
            request_id = message.params.get("requestId")
            if isinstance(request_id, int | str) and conn.cancel_scope(request_id) is None:
                event = _event("cancel", session=session.id, request=request_id)
                await self._call(self.redis.publish(self.everyone, event))
                return True
        return False

    def _owner(self, request_id: object) -> str | None:
        """The process whose request to a client has this id (`plainmcp-<name>-<n>`)."""
        if not isinstance(request_id, str) or not request_id.startswith("plainmcp-"):
            return None
        parts = request_id.split("-")
        return parts[1] if len(parts) == 3 else None

    async def _save(self, session: Session) -> None:
        state = session.conn.session.to_dict()
        value = orjson.dumps({"state": state, "subject": session.subject})
        await self._call(self.redis.set(self.key(session.id), value, ex=self.ttl))
        session.saved = state

    async def _call(self, pending: Any) -> Any:
        """Await one Redis command; a lost Redis becomes StoreUnavailable (logged once until it
        answers again)."""
        try:
            result = await pending
        except redis_errors() as exc:
            self._down = True
            raise StoreUnavailable(f"Redis at {safe_url(self.url)} is unavailable: {exc}") from exc
        if self._down:
            self._down = False
            log.warning("Redis at %s answers again", safe_url(self.url))
        return result

    def _server_(self) -> Server:
        if self._server is None:
            raise StoreUnavailable("Redis sessions are not started: run the app's lifespan")
        return self._server

    # --- messages from other processes -----------------------------------------------------

    def relay(self, kind: str, subject: str) -> None:
        """Server.relay: publish a list change or resource update (from any thread)."""
        loop = self._loop
        if loop is None:
            return
        if self._loop_thread():
            self._spawn(self._publish(kind, subject))
        else:
            loop.call_soon_threadsafe(lambda: self._spawn(self._publish(kind, subject)))

    def _loop_thread(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    async def _publish(self, kind: str, subject: str) -> None:
        try:
            await self._call(self.redis.publish(self.everyone, _event(kind, subject=subject)))
        except StoreUnavailable as exc:
            log.error("%s: %s of %s not sent to the other processes", exc, kind, subject)
            self._server_().fan_out(kind, subject)  # this process's clients still hear it

    async def _listen(self) -> None:
        """Subscribe to our channels and act on what arrives, subscribing again when Redis
        comes back after a loss."""
        while True:
            pubsub: PubSub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.everyone, self.channel(self.name))
                self._listening.set()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        await self._heard(message["data"])
            except redis_errors() as exc:
                log.error(
                    "lost the subscription to Redis at %s (%s); retrying", safe_url(self.url), exc
                )
            finally:
                await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(RECONNECT_DELAY)

    async def _heard(self, data: bytes) -> None:
        try:
            event = orjson.loads(data)
            kind = event["kind"]
        except (ValueError, KeyError, TypeError):
            log.warning("ignored an unreadable message from Redis: %r", data[:200])
            return
        try:
            if kind in ("updated", "list_changed"):
                await self._refresh_streams()
                self._server_().fan_out(kind, str(event["subject"]))
                return
            session = self._by_id.get(str(event.get("session")))
            if session is None:
                return
            if kind == "response":
                m = event["message"]
                session.conn.accept(Response(m["id"], m.get("result"), m.get("error")))
            elif kind == "cancel":
                scope = session.conn.cancel_scope(event["request"])
                if scope is not None:
                    scope.cancel()
            elif kind == "ended":
                self.end(session)
        except StoreUnavailable as exc:
            log.error("%s: a %s message was not acted on", exc, kind)
        except Exception:
            log.exception("failed to act on a %s message from Redis", kind)

    async def _refresh_streams(self) -> None:
        """Read again the state of the sessions whose GET stream is here (one MGET): whether
        they hear a change depends on subscriptions another process may have taken."""
        streaming = [s for s in self if s.stream is not None]
        if not streaming:
            return
        values = await self._call(self.redis.mget([self.key(s.id) for s in streaming]))
        for session, raw in zip(streaming, values, strict=True):
            if raw is None:
                self.end(session)
                continue
            try:
                stored = orjson.loads(raw)
                _assign(session.conn.session, SessionState.from_dict(stored["state"]))
                session.saved = stored["state"]
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("session %s: unreadable state in Redis (%s)", session.id, exc)

    async def _renew(self) -> None:
        """Sessions with an open stream or a running call are not idle: renew their TTL
        (one pipelined round trip per period for all of them)."""
        period = max(0.5, self.idle_timeout / 3)
        while True:
            await asyncio.sleep(period)
            alive = [s for s in self if s.stream is not None or s.conn.busy]
            if not alive:
                continue
            pipe = self.redis.pipeline(transaction=False)
            for session in alive:
                pipe.expire(self.key(session.id), self.ttl)
                session.last_active = self.clock()
            try:
                await self._call(pipe.execute())
            except StoreUnavailable as exc:
                log.error("%s: session TTLs not renewed", exc)


def _event(kind: str, **fields: Any) -> bytes:
    return orjson.dumps({"kind": kind, **fields})


def _assign(target: SessionState, source: SessionState) -> None:
    """Copy a stored state into the live one in place: requests running here hold it."""
    for f in dataclasses.fields(SessionState):
        setattr(target, f.name, getattr(source, f.name))
