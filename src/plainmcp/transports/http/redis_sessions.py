"""Handshake sessions on Redis: any process serves any request of any session.

Each session's state (`SessionState.to_dict()` and the subject that opened it) is one Redis
string, `<prefix>session:<id>`, whose TTL is the idle timeout. A process keeps a local Session
(Connection, GET stream) for each session it serves, as a cache: its state is read again on
every request and written back when a reply changed it.

Round trips per POST: one to read the state (a script: GETEX, which also renews the TTL, and
a ZADD recording the use), one more only when the request changed the state (initialize,
notifications/initialized, logging/setLevel, resources/subscribe and unsubscribe). A response
to another process's request or a cancellation of another process's call costs one PUBLISH.
The limits (max_sessions, max_sessions_per_client) are counted in Redis: redis_admission.py.

Messages between processes go over pub/sub: `<prefix>proc:<name>` reaches one process (the
client's responses to requests it sent: their ids carry its name), `<prefix>all` reaches
every process (cancellations, ended sessions, list changes and resource updates).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from plainmcp.redis_link import open_client, reachable, redis_errors, safe_url
from plainmcp.transports.http import redis_admission
from plainmcp.transports.http.sessions import (
    Refusal,
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
    from redis.commands.core import AsyncScript

    from plainmcp.served import Served

log = logging.getLogger("plainmcp")

RECONNECT_DELAY = 1.0
"""Seconds between attempts to subscribe again after Redis was lost."""


class RedisSessions(Sessions):
    """Sessions whose state lives in Redis, shared by every process given the same URL.
    `wall_clock` (seconds, `time.time` by default) scores the sessions' last use in Redis:
    shared by every process, so their clocks must agree to well within `evict_after` / 3."""

    shared = True

    def __init__(
        self,
        url: str,
        idle_timeout: float,
        limit: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        prefix: str = "plainmcp:",
        per_client: int = 100,
        evict_after: float = 10.0,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        if evict_after < 1:
            raise ValueError(
                "session_evict_after must be at least 1 s with sessions on Redis: a session in"
                " use counts as such for that long after each use its process records"
            )
        super().__init__(idle_timeout, limit, clock, per_client=per_client, evict_after=evict_after)
        self.wall_clock = wall_clock
        self.url = url
        self.prefix = prefix
        self.name = secrets.token_hex(6)
        """This process's name: in the ids of its requests to clients, and its channel."""
        self.ask_prefix = f"plainmcp-{self.name}-"
        self.ttl = max(1, round(idle_timeout))
        self._redis: Redis | None = None
        self._admit: AsyncScript | None = None
        self._touch: AsyncScript | None = None
        self._renewed: set[str] = set()
        """Sessions whose use `renew` recorded and whose end `released` records."""
        self._server: Served | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listening = asyncio.Event()
        self._down = False

    # --- keys ------------------------------------------------------------------------------

    def key(self, session_id: str) -> str:
        return f"{self.prefix}session:{session_id}"

    @property
    def active(self) -> str:
        """The sorted set of every session id by last use."""
        return f"{self.prefix}active"

    @property
    def owners(self) -> str:
        """The hash of every session id to the client it counts against."""
        return f"{self.prefix}owner"

    def client_set(self, owner: str) -> str:
        """The set of one client's session ids."""
        return f"{self.prefix}client:{owner}"

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

    async def start(self, server: Served) -> None:
        """Check that Redis answers (a clear error when not), subscribe, and relay the
        server's list changes and resource updates through Redis."""
        self._redis = open_client(self.url)
        await reachable(self._redis, self.url)
        self._admit = self._redis.register_script(redis_admission.ADMIT)
        self._touch = self._redis.register_script(redis_admission.TOUCH)
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

    async def admit(self, session_id: str, owner: str) -> Refusal | None:
        self.sweep()  # this process's copies of sessions that expired in Redis
        assert self._admit is not None, "start() first"
        keys = [self.active, self.owners, self.client_set(owner)]
        now = self.wall_clock()
        args: list[str | int] = [self.prefix, session_id, owner, repr(now)]
        args += [self.per_client, self.limit, repr(now - self.evict_after)]
        code, *evicted = await self._call(self._admit(keys=keys, args=args))
        for raw_id in evicted:
            evicted_id = raw_id.decode() if isinstance(raw_id, bytes) else str(raw_id)
            log.info("session %s evicted to make room for one of %s", evicted_id, owner)
            local = self._by_id.get(evicted_id)
            if local is not None:
                self.end(local)
        return redis_admission.REFUSALS.get(int(code))

    async def opened(self, session: Session) -> None:
        await self._save(session)

    async def discard(self, session: Session) -> None:
        self.end(session)
        await self._call(self._forget(session, announce=False).execute())

    async def find(self, session_id: str) -> Session | None:
        assert self._touch is not None, "start() first"
        keys = [self.key(session_id), self.active]
        args: list[str | int] = [self.ttl, repr(self.wall_clock()), session_id]
        raw = await self._call(self._touch(keys=keys, args=args))
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
            local.owner = str(stored.get("owner", ""))
            self.add(local)
        local.conn.session.restore(state)
        local.saved = stored["state"]
        local.subject = subject
        self.touch(local, now)
        return local

    async def changed(self, session: Session) -> None:
        if session.conn.session.to_dict() != session.saved:
            await self._save(session)

    async def close(self, session: Session) -> None:
        self.end(session)
        await self._call(self._forget(session, announce=True).execute())

    def _forget(self, session: Session, *, announce: bool) -> Any:
        """A pipeline (MULTI) removing the session and its entries; `announce`: and telling
        every process that it ended."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(self.key(session.id))
        pipe.zrem(self.active, session.id)
        pipe.srem(self.client_set(session.owner), session.id)
        pipe.hdel(self.owners, session.id)
        if announce:
            pipe.publish(self.everyone, _event("ended", session=session.id))
        return pipe

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
        value = orjson.dumps({"state": state, "subject": session.subject, "owner": session.owner})
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

    def _server_(self) -> Served:
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
                session.conn.session.restore(SessionState.from_dict(stored["state"]))
                session.saved = stored["state"]
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("session %s: unreadable state in Redis (%s)", session.id, exc)

    async def _renew(self) -> None:
        """Sessions with an open stream or a running call are not idle: renew their TTL and
        record their use (one pipelined round trip per period for all of them)."""
        period = max(0.5, min(self.idle_timeout, self.evict_after) / 3)
        while True:
            await asyncio.sleep(period)
            try:
                await self.renew()
            except StoreUnavailable as exc:
                log.error("%s: session TTLs not renewed", exc)

    async def renew(self) -> None:
        """One round of `_renew` (tests call it instead of waiting for the period)."""
        alive = [s for s in self if s.in_use]
        if not alive:
            return
        now = self.wall_clock()
        pipe = self.redis.pipeline(transaction=False)
        for session in alive:
            pipe.expire(self.key(session.id), self.ttl)
            pipe.zadd(self.active, {session.id: now}, xx=True)
            self.touch(session, self.clock())
            self._renewed.add(session.id)
        await self._call(pipe.execute())

    def end(self, session: Session) -> None:
        self._renewed.discard(session.id)
        super().end(session)

    async def released(self, session: Session) -> None:
        """A session that was in use long enough to be renewed records the end of that use
        (one ZADD); a request that ended sooner was recorded when it started."""
        if session.id not in self._renewed:
            return
        self._renewed.discard(session.id)
        try:
            await self._call(self.redis.zadd(self.active, {session.id: self.wall_clock()}, xx=True))
        except StoreUnavailable as exc:
            log.error("%s: the end of a use of session %s is not recorded", exc, session.id)


def _event(kind: str, **fields: Any) -> bytes:
    return orjson.dumps({"kind": kind, **fields})
