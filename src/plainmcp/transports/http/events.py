"""The SSE event log: what each resumable stream sent, kept for a while, so a client that
reconnects with `Last-Event-ID` gets every event after that one, once.

`EventLog` is the interface the HTTP transport writes through: three calls shaped after a
Redis stream (XADD, XREAD BLOCK after an id, and a marker that the stream is complete), so a
store shared by many processes can stand in for `MemoryEventLog`, which serves one process.
A stream's key is the transport's to choose (it includes the session, so one session cannot
read another's events); sequence numbers start at 0 and grow by one per event.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class LogUnavailable(Exception):
    """A shared event log could not be reached: the event goes out without an id (it cannot
    be resumed), and a resuming GET is answered with -32603."""


@dataclass(frozen=True, slots=True)
class Batch:
    events: list[tuple[int, bytes]]
    """(sequence number, data) after the one asked for, in order."""
    ended: bool
    """The stream is complete: nothing follows the last of `events`."""


class EventLog(Protocol):
    async def append(self, stream: str, data: bytes) -> int:
        """Store one event at the end of `stream` (made on first use); its sequence number."""
        ...

    async def end(self, stream: str) -> None:
        """The stream is complete (its reply is stored): readers stop after its last event."""
        ...

    async def read(self, stream: str, after: int, timeout: float) -> Batch | None:
        """The events after `after`, waiting up to `timeout` seconds for one when there are
        none yet (an empty batch then). None when the stream is unknown or expired, or when
        events after `after` were already dropped, since a replay would then miss some."""
        ...


@dataclass(eq=False, slots=True)
class _Stream:
    events: deque[tuple[int, bytes]]
    touched: float
    next_seq: int = 0
    ended: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryEventLog:
    """An EventLog in this process's memory: each stream keeps its last `max_events` events,
    for `ttl` seconds after its last write; at most `max_streams` streams are kept (the least
    recently written go first). `clock` is what the ttl is measured with."""

    def __init__(
        self,
        *,
        ttl: float = 300.0,
        max_events: int = 1000,
        max_streams: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0 or max_events < 1 or max_streams < 1:
            raise ValueError("ttl, max_events and max_streams must be positive")
        self.ttl = ttl
        self.max_events = max_events
        self.max_streams = max_streams
        self.clock = clock
        self._streams: OrderedDict[str, _Stream] = OrderedDict()

    def __len__(self) -> int:
        return len(self._streams)

    async def append(self, stream: str, data: bytes) -> int:
        now = self.clock()
        found = self._live(stream, now)
        if found is None:
            self._sweep(now)
            found = _Stream(deque(maxlen=self.max_events), now)
            self._streams[stream] = found
        seq = found.next_seq
        found.next_seq += 1
        found.events.append((seq, data))
        found.touched = now
        self._streams.move_to_end(stream)
        self._wake(found)
        return seq

    async def end(self, stream: str) -> None:
        found = self._live(stream, self.clock())
        if found is not None:
            found.ended = True
            self._wake(found)

    async def read(self, stream: str, after: int, timeout: float) -> Batch | None:
        found = self._live(stream, self.clock())
        if found is None or after >= found.next_seq:
            return None
        if not self._has_after(found, after):
            if found.ended:
                return Batch([], True)
            waiting = found.changed
            try:
                await asyncio.wait_for(waiting.wait(), timeout)
            except TimeoutError:
                return Batch([], False)
            if self._live(stream, self.clock()) is not found:
                return None
        if found.events and found.events[0][0] > after + 1:
            return None  # dropped: the replay would have a hole
        events = [(seq, data) for seq, data in found.events if seq > after]
        return Batch(events, found.ended)

    @staticmethod
    def _has_after(found: _Stream, after: int) -> bool:
        return bool(found.events) and found.events[-1][0] > after

    @staticmethod
    def _wake(found: _Stream) -> None:
        found.changed.set()
        found.changed = asyncio.Event()

    def _live(self, stream: str, now: float) -> _Stream | None:
        found = self._streams.get(stream)
        if found is not None and now - found.touched > self.ttl:
            del self._streams[stream]
            self._wake(found)
            return None
        return found

    def _sweep(self, now: float) -> None:
        """Drop expired streams (oldest first), and the oldest beyond the limit."""
        while self._streams:
            key, oldest = next(iter(self._streams.items()))
            if now - oldest.touched <= self.ttl and len(self._streams) < self.max_streams:
                break
            del self._streams[key]
            self._wake(oldest)
