"""RedisEventLog against a real redis-server: what one process logged is read back by another
after an id, a reader blocks until the next event or the end, the TTL and the size bound are
Redis's, and a lost Redis is a clear error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from plainmcp.redis_link import close_shared
from plainmcp.transports.http.events import Batch, LogUnavailable
from plainmcp.transports.http.redis_events import RedisEventLog
from tests.cluster import RedisServer, redis_server
from tests.http_server import free_port

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
async def raw(redis: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis.url)
    await client.flushdb()
    yield client
    await client.aclose()
    await close_shared()


async def blocked_readers(raw: Redis, count: int) -> None:
    """Until `count` clients are blocked in XREAD (the reader waits in Redis now)."""
    while int((await raw.info("clients"))["blocked_clients"]) != count:
        await asyncio.sleep(0.01)


async def test_what_one_process_logged_another_reads_back_after_an_id(
    redis: RedisServer, raw: Redis
) -> None:
    writer, reader = RedisEventLog(redis.url), RedisEventLog(redis.url)
    assert [await writer.append("s", d) for d in (b"", b"a", b"b", b"c")] == [0, 1, 2, 3]
    assert await reader.read("s", 1, 0) == Batch([(2, b"b"), (3, b"c")], False)
    assert await reader.read("s", 0, 0) == Batch([(1, b"a"), (2, b"b"), (3, b"c")], False)
    assert await raw.xlen("plainmcp:events:s") == 4


async def test_a_read_at_the_end_blocks_until_another_process_logs_or_ends(
    redis: RedisServer, raw: Redis
) -> None:
    writer, reader = RedisEventLog(redis.url), RedisEventLog(redis.url)
    await writer.append("s", b"")
    waiting = asyncio.create_task(reader.read("s", 0, 10))
    await asyncio.wait_for(blocked_readers(raw, 1), 10)
    await writer.append("s", b"reply")
    assert await waiting == Batch([(1, b"reply")], False)
    ending = asyncio.create_task(reader.read("s", 1, 10))
    await asyncio.wait_for(blocked_readers(raw, 1), 10)
    await writer.end("s")
    assert await ending == Batch([], True)
    assert await reader.read("s", 0, 0) == Batch([(1, b"reply")], True)
    assert await reader.read("s", 1, 10) == Batch([], True)  # ended: no wait


async def test_a_read_with_nothing_new_returns_an_empty_batch_after_its_timeout(
    redis: RedisServer, raw: Redis
) -> None:
    log = RedisEventLog(redis.url)
    await log.append("s", b"")
    assert await log.read("s", 0, 0) == Batch([], False)
    assert await log.read("s", 0, 0.05) == Batch([], False)


async def test_unknown_streams_and_ids_not_issued_read_as_none(
    redis: RedisServer, raw: Redis
) -> None:
    log = RedisEventLog(redis.url)
    await log.append("s", b"a")
    assert await log.read("other", 0, 0) is None
    assert await log.read("s", 1, 0) is None  # seq 1 was never issued
    await log.end("gone")  # the end of an unknown stream makes none
    assert await raw.exists("plainmcp:events:gone") == 0


async def test_every_write_gives_the_stream_its_ttl_and_an_expired_one_reads_as_none(
    redis: RedisServer, raw: Redis
) -> None:
    log = RedisEventLog(redis.url, ttl=60)
    await log.append("s", b"a")
    assert 59_000 < await raw.pttl("plainmcp:events:s") <= 60_000
    await raw.pexpire("plainmcp:events:s", 5_000)
    await log.end("s")
    assert 59_000 < await raw.pttl("plainmcp:events:s") <= 60_000
    await raw.delete("plainmcp:events:s")  # what Redis does when the TTL runs out
    assert await log.read("s", 0, 0) is None


async def test_a_replay_that_would_miss_dropped_events_is_refused(
    redis: RedisServer, raw: Redis
) -> None:
    log = RedisEventLog(redis.url, max_events=2)
    for data in (b"a", b"b", b"c", b"d"):
        await log.append("s", data)
    assert await raw.xlen("plainmcp:events:s") == 2
    assert await log.read("s", 0, 0) is None  # event 1 ("b") is gone: the replay would skip it
    assert await log.read("s", 1, 0) == Batch([(2, b"c"), (3, b"d")], False)


async def test_an_unreachable_redis_is_a_clear_error() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    log = RedisEventLog(url)
    with pytest.raises(LogUnavailable) as lost:
        await log.append("s", b"a")
    assert str(lost.value).startswith(f"the event log on Redis at {url} is unavailable: ")
    with pytest.raises(LogUnavailable):
        await log.read("s", 0, 0)
    await close_shared()


def test_bounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="ttl must be positive and max_events at least 2"):
        RedisEventLog("redis://127.0.0.1:1/0", ttl=0)
    with pytest.raises(ValueError, match="ttl must be positive and max_events at least 2"):
        RedisEventLog("redis://127.0.0.1:1/0", max_events=1)
