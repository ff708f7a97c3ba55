"""MemoryEventLog: what a resumable stream logged, read back after an id, bounded in age and
size (time injected)."""

from __future__ import annotations

import asyncio

import pytest

from plainmcp.transports.http.events import Batch, MemoryEventLog

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_events_read_back_after_an_id_in_order() -> None:
    log = MemoryEventLog()
    assert [await log.append("s", d) for d in (b"", b"a", b"b", b"c")] == [0, 1, 2, 3]
    assert await log.read("s", 1, 0) == Batch([(2, b"b"), (3, b"c")], False)
    assert await log.read("s", 0, 0) == Batch([(1, b"a"), (2, b"b"), (3, b"c")], False)


async def test_a_read_at_the_end_waits_for_the_next_event_or_the_end() -> None:
    log = MemoryEventLog()
    await log.append("s", b"")
    waiting = asyncio.create_task(log.read("s", 0, 10))
    await asyncio.sleep(0)  # the read is waiting now
    assert not waiting.done()
    await log.append("s", b"reply")
    assert await waiting == Batch([(1, b"reply")], False)
    ending = asyncio.create_task(log.read("s", 1, 10))
    await asyncio.sleep(0)
    await log.end("s")
    assert await ending == Batch([], True)
    assert await log.read("s", 0, 0) == Batch([(1, b"reply")], True)


async def test_a_read_with_nothing_new_returns_an_empty_batch_after_its_timeout() -> None:
    log = MemoryEventLog()
    await log.append("s", b"")
    assert await log.read("s", 0, 0) == Batch([], False)


async def test_unknown_streams_and_ids_not_issued_read_as_none() -> None:
    log = MemoryEventLog()
    await log.append("s", b"a")
    assert await log.read("other", 0, 0) is None
    assert await log.read("s", 1, 0) is None  # seq 1 was never issued


async def test_a_stream_expires_ttl_seconds_after_its_last_write() -> None:
    clock = Clock()
    log = MemoryEventLog(ttl=60, clock=clock)
    await log.append("s", b"a")
    await log.append("s", b"b")
    clock.now = 60
    assert await log.read("s", 0, 0) == Batch([(1, b"b")], False)
    clock.now = 60.5
    assert await log.read("s", 0, 0) is None
    assert len(log) == 0


async def test_a_replay_that_would_miss_dropped_events_is_refused() -> None:
    log = MemoryEventLog(max_events=2)
    for data in (b"a", b"b", b"c", b"d"):
        await log.append("s", data)
    assert await log.read("s", 0, 0) is None  # event 1 ("b") is gone: the replay would skip it
    assert await log.read("s", 1, 0) == Batch([(2, b"c"), (3, b"d")], False)


async def test_the_least_recently_written_streams_go_beyond_the_limit() -> None:
    log = MemoryEventLog(max_streams=2)
    await log.append("a", b"1")
    await log.append("b", b"1")
    await log.append("a", b"2")  # "b" is now the oldest
    await log.append("c", b"1")
    assert len(log) == 2
    assert await log.read("b", 0, 0) is None
    assert await log.read("a", 0, 0) == Batch([(1, b"2")], False)


async def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        MemoryEventLog(ttl=0)
