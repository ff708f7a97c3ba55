"""The SSE event log on Redis streams, shared by every process: a client that lost a stream
reconnects with `Last-Event-ID` to any process and gets every event after it, once, then the
live rest (the process running the call keeps appending; readers block on XREAD).

One Redis stream per SSE stream, `<prefix><key>`. Entry ids are `0-<seq + 1>`: XADD's `0-*`
(Redis 7) numbers a stream's entries 1, 2, 3... atomically, so the ids on the wire need no
counter of our own. An entry holds `d` (the event's data) or, last, `end` (the stream's reply
is stored). Each write trims the stream to `max_events` (exactly, so a replay that would miss
a dropped event is refused) and gives the key `ttl` seconds more.

Round trips: one per event written (XADD and PEXPIRE, pipelined), one per read (a MULTI of
three XRANGEs), plus one blocking XREAD when a reader waits for the next event.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from plainmcp.redis_link import redis_errors, safe_url, shared
from plainmcp.transports.http.events import Batch, LogUnavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("plainmcp")

DATA = b"d"
END = b"end"


class RedisEventLog:
    """`HttpApp(event_log=RedisEventLog("redis://host:6379/0"))`; made for you when sessions
    are on Redis. Needs Redis 7 (or Valkey) for XADD's `0-*` ids."""

    def __init__(
        self,
        url: str,
        *,
        ttl: float = 300.0,
        max_events: int = 1000,
        prefix: str = "plainmcp:events:",
    ) -> None:
        if ttl <= 0 or max_events < 2:
            raise ValueError("ttl must be positive and max_events at least 2")
        self.url = url
        self.ttl_ms = max(1, round(ttl * 1000))
        self.max_events = max_events
        self.prefix = prefix

    def _redis(self) -> Redis:
        return shared(self.url)

    async def append(self, stream: str, data: bytes) -> int:
        added = await self._add(stream, {DATA: data}, create=True)
        assert added is not None  # XADD without NOMKSTREAM always adds
        return added

    async def end(self, stream: str) -> None:
        await self._add(stream, {END: b"1"}, create=False)

    async def read(self, stream: str, after: int, timeout: float) -> Batch | None:
        key = self.prefix + stream
        pipe = self._redis().pipeline(transaction=True)
        pipe.xrange(key, "-", "+", count=1)
        pipe.xrevrange(key, "+", "-", count=1)
        pipe.xrange(key, _entry_id(after + 1), "+")
        first, last, entries = await self._call(pipe.execute())
        if not first or after >= _seq(last[0][0]) + 1:
            return None  # unknown or expired, or an id never issued
        if not entries and timeout > 0 and END not in last[0][1]:
            found = await self._call(
                self._redis().xread({key: _entry_id(after)}, block=max(1, round(timeout * 1000)))
            )
            if not found:
                return Batch([], False)
            entries = found[0][1]
        if entries and _seq(entries[0][0]) > after + 1:
            return None  # dropped: the replay would have a hole
        return _batch(entries)

    async def _add(self, stream: str, fields: dict[bytes, bytes], *, create: bool) -> int | None:
        key = self.prefix + stream
        pipe = self._redis().pipeline(transaction=False)
        pipe.xadd(
            key,
            fields,  # type: ignore[arg-type]
            id="0-*",
            maxlen=self.max_events,
            approximate=False,
            nomkstream=not create,
        )
        pipe.pexpire(key, self.ttl_ms)
        added, _ = await self._call(pipe.execute())
        return None if added is None else _seq(added)

    async def _call(self, pending: Any) -> Any:
        try:
            return await pending
        except redis_errors() as exc:
            raise LogUnavailable(
                f"the event log on Redis at {safe_url(self.url)} is unavailable: {exc}"
            ) from exc


def _entry_id(seq: int) -> str:
    return f"0-{seq + 1}"


def _seq(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[2]) - 1


def _batch(entries: list[tuple[bytes, dict[bytes, bytes]]]) -> Batch:
    events: list[tuple[int, bytes]] = []
    for entry_id, fields in entries:
        if END in fields:
            return Batch(events, True)
        events.append((_seq(entry_id), fields.get(DATA, b"")))
    return Batch(events, False)
