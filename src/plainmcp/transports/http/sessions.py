"""Handshake-era sessions (2024-11-05 to 2025-11-25): one Connection per `Mcp-Session-Id`.

A session's own messages (list changes, resource updates) go to its GET stream when one is
open; requests' messages go to their POST streams (see Connection._streams). Idle sessions
expire; nothing runs in the background: expiry is checked when sessions are looked up.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from plainmcp.connection import Connection


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
    get_token: str | None = None
    """The GET stream's name in the event log, from the first GET on (a reconnect with one of
    its event ids gets what the lost connection missed)."""

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


class Sessions:
    """The live sessions, by id. `clock` (seconds, `time.monotonic` by default) is what idle
    time is measured with: tests advance their own instead of sleeping."""

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

    def sweep(self) -> None:
        now = self.clock()
        for session in list(self._by_id.values()):
            if session.idle(now, self.idle_timeout):
                self.end(session)
