"""Handshake-era sessions (2024-11-05 to 2025-11-25): one Connection per `Mcp-Session-Id`.

A session's own messages (list changes, resource updates) go to its GET stream when one is
open; requests' messages go to their POST streams (see Connection._streams). Idle sessions
expire; nothing runs in the background: expiry is checked when sessions are looked up.

`Sessions` keeps them in this process's memory. Its async methods are the session store's
interface, which `RedisSessions` (redis_sessions.py) implements over Redis so that any process
can serve any request of any session; here they act on the dictionaries alone.

Limits: at most `limit` sessions in all and `per_client` per client (the authenticated subject,
else the client's address: `client_key`). A client at its limit has its own least recently
used idle session evicted for a new one; a full table evicts the least recently used idle
session of anyone. Idle means no request running, no GET stream open and nothing for
`evict_after` seconds (so a handshake in progress is never cut); when no session is idle the
initialize is refused. Both tables are kept in order of last use, so that finding the oldest
idle session and sweeping expired ones stop at the first session still wanted.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from plainmcp.connection import Connection
from plainmcp.wire.jsonrpc import Notification, Response

if TYPE_CHECKING:
    from plainmcp.served import Served

log = logging.getLogger("plainmcp")

Refusal = Literal["client", "full"]
"""Why a new session was refused: its client is at `per_client` ("client"), or the store is at
`limit` ("full"), with no idle session to evict."""


def new_session_id() -> str:
    """128 random bits as URL-safe base64: visible ASCII, as the spec requires."""
    return secrets.token_urlsafe(16)


def client_key(identity: str | None, client: tuple[str, int] | list[Any] | None) -> str:
    """Whom a session counts against: the authenticated principal's identity ('sub:NAME', see
    plainmcp.model.identity), else the client's address as the ASGI server reports it (behind a
    proxy, uvicorn rewrites it from X-Forwarded-For only for the proxies it trusts). An IPv6
    client counts by its /64, which one host can fill."""
    if identity is not None:
        return identity
    host = str(client[0]) if client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"address:{host or 'unknown'}"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"address:{address.ipv4_mapped}"
        return f"address:{ipaddress.IPv6Network((address, 64), strict=False)}"
    return f"address:{address}"


@dataclass(eq=False)
class Session:
    id: str
    conn: Connection
    subject: str | None = None
    """The authenticated subject that opened the session; later requests must match."""
    owner: str = ""
    """Whom the session counts against (`client_key`)."""
    last_active: float = field(default_factory=time.monotonic)
    users: int = 0
    """POSTs and GETs of the session being handled here (see `Sessions.using`)."""
    stream: MemoryObjectSendStream[bytes] | None = None
    """The open GET stream, if any."""
    saved: dict[str, Any] | None = None
    """The state as the shared store last had it (None: kept in memory only)."""

    def push(self, data: bytes) -> None:
        """Deliver a server-initiated message to the GET stream; dropped when none is open."""
        stream = self.stream
        if stream is not None:
            try:
                stream.send_nowait(data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self.stream = None

    async def send(self, data: bytes) -> None:
        self.push(data)

    def open_stream(self) -> MemoryObjectReceiveStream[bytes]:
        send, receive = anyio.create_memory_object_stream[bytes](math.inf)
        self.stream = send
        return receive

    def close_stream(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None

    @property
    def in_use(self) -> bool:
        """A request of it is being handled or its GET stream is open: never ended for idling."""
        return self.users > 0 or self.conn.busy or self.stream is not None

    def idle(self, now: float, timeout: float) -> bool:
        return not self.in_use and now - self.last_active > timeout


class StoreUnavailable(Exception):
    """The shared session store could not be reached; the request is answered with HTTP 503
    and -32603."""


class Sessions:
    """The live sessions, by id. `clock` (seconds, `time.monotonic` by default) is what idle
    time is measured with: tests advance their own instead of sleeping."""

    shared = False
    """Sessions live in other processes too (the store is not this process's memory)."""
    ask_prefix = "plainmcp-"
    """What the ids of our requests to clients start with (see Asks.prefix)."""

    def __init__(
        self,
        idle_timeout: float,
        limit: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        per_client: int = 100,
        evict_after: float = 10.0,
    ) -> None:
        if limit < 1 or per_client < 1 or evict_after < 0:
            raise ValueError(
                "max_sessions and max_sessions_per_client must be at least 1,"
                " session_evict_after must not be negative"
            )
        self.idle_timeout = idle_timeout
        self.limit = limit
        self.per_client = per_client
        self.evict_after = evict_after
        self.clock = clock
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        """Least recently used first."""
        self._by_owner: dict[str, OrderedDict[str, Session]] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._by_id.values()))

    def add(self, session: Session) -> None:
        self._by_id[session.id] = session
        self._by_id.move_to_end(session.id)
        mine = self._by_owner.setdefault(session.owner, OrderedDict())
        mine[session.id] = session
        mine.move_to_end(session.id)

    def touch(self, session: Session, now: float) -> None:
        """The session was used at `now`: it moves to the end of both tables."""
        session.last_active = now
        if self._by_id.get(session.id) is session:
            self._by_id.move_to_end(session.id)
            self._by_owner[session.owner].move_to_end(session.id)

    def get(self, session_id: str) -> Session | None:
        """The live session with that id (an expired one is ended and not returned)."""
        session = self._by_id.get(session_id)
        if session is None:
            return None
        now = self.clock()
        if session.idle(now, self.idle_timeout):
            self.end(session)
            return None
        self.touch(session, now)
        return session

    def end(self, session: Session) -> None:
        if self._by_id.get(session.id) is session:
            del self._by_id[session.id]
            mine = self._by_owner[session.owner]
            del mine[session.id]
            if not mine:
                del self._by_owner[session.owner]
        session.close_stream()
        session.conn.closing.set()
        session.conn.close()

    def new(self, server: Served, session_id: str, subject: str | None, owner: str) -> Session:
        """The session `admit` made room for, with its Connection, kept here from now on."""
        session = make_session(server, session_id, subject, self.ask_prefix, self.clock())
        session.owner = owner
        self.add(session)
        return session

    @contextlib.asynccontextmanager
    async def using(self, session: Session) -> AsyncIterator[Session]:
        """While a POST or GET of the session is handled: it is in use (never evicted nor
        expired), and its last use is when that ends."""
        session.users += 1
        try:
            yield session
        finally:
            session.users -= 1
            self.touch(session, self.clock())
            if not session.in_use:
                await self.released(session)

    async def released(self, session: Session) -> None:
        """The session is no longer in use (nothing more to record in memory)."""

    def oldest_idle(self, table: OrderedDict[str, Session], now: float) -> Session | None:
        """The least recently used session of `table` that may be evicted, if any."""
        for session in table.values():
            if session.in_use:
                continue
            return session if now - session.last_active >= self.evict_after else None
        return None

    def make_room(self, owner: str) -> Refusal | None:
        """Evict what a new session of `owner` needs evicted; why not, when it cannot."""
        self.sweep()
        now = self.clock()
        mine = self._by_owner.get(owner)
        if mine is not None and len(mine) >= self.per_client:
            victim = self.oldest_idle(mine, now)
            if victim is None:
                return "client"
            self.evict(victim, "its client has max_sessions_per_client sessions")
        if len(self._by_id) >= self.limit:
            victim = self.oldest_idle(self._by_id, now)
            if victim is None:
                return "full"
            self.evict(victim, "max_sessions are open")
        return None

    def evict(self, session: Session, why: str) -> None:
        log.info("session %s of %s evicted: %s", session.id, session.owner, why)
        self.end(session)

    # --- the store's interface (async: a shared store answers over the network) ------------

    async def start(self, server: Served) -> None:
        """The app's lifespan starts."""

    async def stop(self) -> None:
        """The app's lifespan ends (after every session was ended)."""

    async def admit(self, session_id: str, owner: str) -> Refusal | None:
        """Make room for a new session of `owner` (evicting what the limits say), or say why
        not. Admitted, it counts against the limits at once (its initialize is under way):
        `new` makes it, before anything else runs here."""
        return self.make_room(owner)

    async def opened(self, session: Session) -> None:
        """initialize succeeded: keep the session."""

    async def discard(self, session: Session) -> None:
        """initialize failed: end the admitted session here, and forget it."""
        self.end(session)

    async def find(self, session_id: str) -> Session | None:
        """The live session with that id, its state current."""
        return self.get(session_id)

    async def changed(self, session: Session) -> None:
        """The session served a message that may have changed its state."""

    async def close(self, session: Session) -> None:
        """The client ended the session (DELETE)."""
        self.end(session)

    async def forward(self, session: Session, message: Notification | Response) -> bool:
        """Send a client's message on to the process it concerns: a response to a request
        another process sent, a cancellation of a request another process serves. False: it
        concerns this process (always, in memory)."""
        return False

    def sweep(self) -> None:
        """End the expired sessions, least recently used first, up to the first one alive."""
        now = self.clock()
        expired: list[Session] = []
        for session in self._by_id.values():
            if session.idle(now, self.idle_timeout):
                expired.append(session)
            elif not session.in_use:
                break
        for session in expired:
            self.end(session)


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def open_sessions(
    spec: str | Sessions | None,
    idle_timeout: float,
    limit: int,
    clock: Callable[[], float],
    *,
    per_client: int,
    evict_after: float,
) -> Sessions:
    """The store HttpApp's `sessions` names: "memory" (or None: sessionless, whose table
    stays empty), a Redis URL, or a Sessions of the caller's own."""
    if isinstance(spec, Sessions):
        return spec
    limits: dict[str, Any] = {"per_client": per_client, "evict_after": evict_after}
    if spec is None or spec == "memory":
        return Sessions(idle_timeout, limit, clock, **limits)
    if isinstance(spec, str) and spec.startswith(REDIS_SCHEMES):
        from plainmcp.transports.http.redis_sessions import RedisSessions

        return RedisSessions(spec, idle_timeout, limit, clock, **limits)
    raise ValueError(f"sessions must be 'memory', a redis:// URL, a Sessions or None, not {spec!r}")


def make_session(
    server: Served, session_id: str, subject: str | None, ask_prefix: str, now: float
) -> Session:
    """A Session and its Connection, whose messages go to the session's GET stream."""
    holder: list[Session] = []

    async def session_send(data: bytes) -> None:
        if holder:
            await holder[0].send(data)

    def session_push(data: bytes) -> None:
        if holder:
            holder[0].push(data)

    conn = server.connect(session_send, push=session_push, ask_prefix=ask_prefix)
    conn.bind()
    session = Session(session_id, conn, subject=subject, last_active=now)
    holder.append(session)
    return session
