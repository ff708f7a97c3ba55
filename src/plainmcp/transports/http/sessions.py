"""Handshake-era sessions (2024-11-05 to 2025-11-25): one Connection per `Mcp-Session-Id`.

A session's own messages (list changes, resource updates) go to its GET stream when one is
open; requests' messages go to their POST streams (see Connection._streams). Idle sessions
expire; nothing runs in the background: expiry is checked when sessions are looked up.

`Sessions` keeps them in this process's memory. Its async methods are the session store's
interface, which `RedisSessions` (redis_sessions.py) implements over Redis so that any process
can serve any request of any session; here they act on the dictionary alone.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from plainmcp.connection import Connection
from plainmcp.wire.jsonrpc import Notification, Response

if TYPE_CHECKING:
    from plainmcp.server import Server


def new_session_id() -> str:
    """128 random bits as URL-safe base64: visible ASCII, as the spec requires."""
    return secrets.token_urlsafe(16)


@dataclass(eq=False)
class Session:
    id: str
    conn: Connection
    subject: str | None = None
    """The authenticated subject that opened the session; later requests must match."""
    last_active: float = field(default_factory=time.monotonic)
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

    def idle(self, now: float, timeout: float) -> bool:
        return not self.conn.busy and self.stream is None and now - self.last_active > timeout


class StoreUnavailable(Exception):
    """The shared session store could not be reached; the request is answered with -32603."""


class Sessions:
    """The live sessions, by id. `clock` (seconds, `time.monotonic` by default) is what idle
    time is measured with: tests advance their own instead of sleeping."""

    shared = False
    """Sessions live in other processes too (the store is not this process's memory)."""
    ask_prefix = "plainmcp-"
    """What the ids of our requests to clients start with (see Asks.prefix)."""

    def __init__(
        self, idle_timeout: float, limit: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.idle_timeout = idle_timeout
        self.limit = limit
        self.clock = clock
        self._by_id: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._by_id.values()))

    def add(self, session: Session) -> None:
        self._by_id[session.id] = session

    def full(self) -> bool:
        self.sweep()
        return len(self._by_id) >= self.limit

    def get(self, session_id: str) -> Session | None:
        """The live session with that id (an expired one is ended and not returned)."""
        session = self._by_id.get(session_id)
        if session is None:
            return None
        now = self.clock()
        if session.idle(now, self.idle_timeout):
            self.end(session)
            return None
        session.last_active = now
        return session

    def end(self, session: Session) -> None:
        self._by_id.pop(session.id, None)
        session.close_stream()
        session.conn.closing.set()
        session.conn.close()

    def new(self, server: Server, subject: str | None) -> Session:
        """A session for a client that is initializing, with its Connection (not stored
        before `opened`)."""
        return make_session(server, new_session_id(), subject, self.ask_prefix, self.clock())

    # --- the store's interface (async: a shared store answers over the network) ------------

    async def start(self, server: Server) -> None:
        """The app's lifespan starts."""

    async def stop(self) -> None:
        """The app's lifespan ends (after every session was ended)."""

    async def admit(self) -> bool:
        """A new session may be opened."""
        return not self.full()

    async def opened(self, session: Session) -> None:
        """initialize succeeded: keep the session."""
        self.add(session)

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
        now = self.clock()
        for session in list(self._by_id.values()):
            if session.idle(now, self.idle_timeout):
                self.end(session)


def make_session(
    server: Server, session_id: str, subject: str | None, ask_prefix: str, now: float
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
