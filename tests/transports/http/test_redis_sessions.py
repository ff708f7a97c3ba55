"""The session limits on a real redis-server, with two apps standing for two processes: the
counts live in Redis (redis_admission.py), so a client's oldest idle session is evicted
whichever process it was opened on, sessions in use on either are kept, and concurrent
initializes through both never take more than the limit. Clocks are the test's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from redis.asyncio import Redis

from plainmcp.transports.http import HttpApp
from plainmcp.transports.http.redis_sessions import RedisSessions
from tests.cluster import RedisServer, redis_server
from tests.transports.http.asgi import open_call, request
from tests.transports.http.test_app import Slow, in_session, make_server, rpc
from tests.transports.http.test_session_limits import (
    HOME,
    Clock,
    assert_alive,
    assert_gone,
    init,
    opened,
    too_many,
    too_many_for_client,
)

pytestmark = pytest.mark.anyio

CLIENT_SET = "plainmcp:client:address:192.0.2.1"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
async def raw(redis: RedisServer) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis.url, decode_responses=True)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def slow() -> Slow:
    return Slow()


@contextlib.asynccontextmanager
async def processes(
    redis: RedisServer, clock: Clock, slow: Slow, **limits: Any
) -> AsyncIterator[tuple[HttpApp, HttpApp]]:
    """Two apps (two servers) with their sessions on `redis`, running their lifespans."""
    apps = []
    for _ in range(2):
        store = RedisSessions(
            redis.url,
            1800,
            limits.get("max_sessions", 10_000),
            clock,
            per_client=limits.get("per_client", 3),
            evict_after=10,
            wall_clock=clock,
        )
        apps.append(make_server(slow).http_app(sessions=store, clock=clock))
    async with apps[0].lifespan(), apps[1].lifespan():
        yield apps[0], apps[1]


def store(app: HttpApp) -> RedisSessions:
    assert isinstance(app.sessions, RedisSessions)
    return app.sessions


async def test_a_clients_oldest_idle_session_is_evicted_whichever_process_opened_it(
    redis: RedisServer, raw: Redis, clock: Clock, slow: Slow
) -> None:
    async with processes(redis, clock, slow) as (one, two):
        a = await opened(one)
        clock.now += 1
        b = await opened(two)
        clock.now += 1
        c = await opened(one)
        clock.now += 1
        await assert_alive(two, a)  # a is now the most recently used: b is the oldest
        assert await raw.zrange("plainmcp:active", 0, -1) == [b, c, a]
        clock.now += 10
        d = await opened(one)
        await assert_gone(two, b)
        await assert_gone(one, b)
        assert await raw.smembers(CLIENT_SET) == {a, c, d}
        assert await raw.zrange("plainmcp:active", 0, -1, withscores=True) == [
            (c, 1002.0),
            (a, 1003.0),
            (d, 1013.0),
        ]
        assert await raw.hgetall("plainmcp:owner") == dict.fromkeys((a, c, d), "address:192.0.2.1")
        assert await raw.exists(f"plainmcp:session:{b}") == 0
        for kept in (a, c, d):
            await assert_alive(one, kept)


async def test_sessions_in_use_on_either_process_are_kept_and_the_client_gets_429(
    redis: RedisServer, raw: Redis, clock: Clock, slow: Slow
) -> None:
    async with processes(redis, clock, slow) as (one, two):
        busy, streaming, idle = await opened(one), await opened(two), await opened(one)
        call = rpc(2, "tools/call", name="slow", arguments={})
        stream_headers = {**in_session(streaming), "accept": "text/event-stream"}
        async with (
            open_call(one, body=call, headers=in_session(busy)) as running,
            open_call(two, "GET", headers=stream_headers) as stream,
        ):
            await slow.started.wait()
            await stream.started()
            clock.now += 60
            # Each process records the use of what it has in use, every evict_after / 3
            # seconds: here, one round of that instead of waiting for it.
            await store(one).renew()
            await store(two).renew()
            fresh = await opened(two)
            await assert_gone(one, idle)
            assert await raw.smembers(CLIENT_SET) == {busy, streaming, fresh}
            refused = await request(one, body=init(5), client=HOME)
            assert (refused.status, refused.json()) == (429, too_many_for_client(5, 3))
            assert refused.headers["retry-after"] == "10"
            clock.now += 1
            slow.gate.set()
            stream.disconnect()
        assert running.status == 200
        # Both were renewed while in use, so the end of that use is recorded: fresh is older.
        assert await raw.zrange("plainmcp:active", 0, -1, withscores=True) == [
            (fresh, 1060.0),
            *sorted([(busy, 1061.0), (streaming, 1061.0)]),
        ]
        clock.now += 10
        latest = await opened(one)
        await assert_gone(two, fresh)
        assert await raw.smembers(CLIENT_SET) == {busy, streaming, latest}


async def test_other_clients_get_sessions_and_the_limit_in_all_holds_across_processes(
    redis: RedisServer, raw: Redis, clock: Clock, slow: Slow
) -> None:
    async with processes(redis, clock, slow, max_sessions=4, per_client=2) as (one, two):
        x, y, z = ("192.0.2.1", 1), ("192.0.2.2", 1), ("192.0.2.3", 1)
        x1 = await opened(one, x)
        clock.now += 0.5
        x2 = await opened(two, x)
        refused = await request(two, body=init(3), client=("192.0.2.1", 2))
        assert (refused.status, refused.json()) == (429, too_many_for_client(3, 2))
        clock.now += 1
        y1, y2 = await opened(two, y), await opened(one, y)
        full = await request(one, body=init(4), client=z)
        assert (full.status, full.json()) == (503, too_many(4))
        clock.now += 9.5  # x1 idle for 10 s
        z1 = await opened(two, z)
        await assert_gone(one, x1, client=x)
        assert await raw.zcard("plainmcp:active") == 4
        assert set(await raw.zrange("plainmcp:active", 0, -1)) == {x2, y1, y2, z1}
        assert await raw.smembers("plainmcp:client:address:192.0.2.3") == {z1}


async def test_concurrent_initializes_through_two_processes_never_exceed_the_limit(
    redis: RedisServer, raw: Redis, clock: Clock, slow: Slow
) -> None:
    async with processes(redis, clock, slow, per_client=5) as (one, two):
        calls = await asyncio.gather(
            *(request(one if n % 2 else two, body=init(n), client=HOME) for n in range(20))
        )
        admitted = [c for c in calls if c.status == 200]
        assert len(admitted) == 5
        assert sorted(c.json()["id"] for c in calls if c.status == 429) == sorted(
            set(range(20)) - {c.json()["id"] for c in admitted}
        )
        for c in calls:
            if c.status == 429:
                assert c.json() == too_many_for_client(c.json()["id"], 5)
        assert await raw.smembers(CLIENT_SET) == {c.headers["mcp-session-id"] for c in admitted}
        assert await raw.zcard("plainmcp:active") == 5


async def test_the_oldest_entries_of_sessions_that_expired_are_forgotten_at_each_admission(
    redis: RedisServer, raw: Redis, clock: Clock, slow: Slow
) -> None:
    async with processes(redis, clock, slow) as (one, _):
        a = await opened(one)
        clock.now += 1
        b = await opened(one)
        clock.now += 1
        c = await opened(one)
        await raw.delete(f"plainmcp:session:{a}", f"plainmcp:session:{b}")  # as their TTL does
        clock.now += 10
        d = await opened(one)
        assert await raw.zrange("plainmcp:active", 0, -1) == [c, d]
        assert await raw.smembers(CLIENT_SET) == {c, d}
        assert set(await raw.hkeys("plainmcp:owner")) == {c, d}


async def test_a_client_at_its_limit_forgets_its_expired_sessions_before_evicting_one(
    redis: RedisServer, raw: Redis, clock: Clock, slow: Slow
) -> None:
    async with processes(redis, clock, slow) as (one, _):
        a = await opened(one)
        clock.now += 1
        b = await opened(one)
        clock.now += 1
        c = await opened(one)
        await raw.delete(f"plainmcp:session:{b}", f"plainmcp:session:{c}")
        clock.now += 10
        d = await opened(one)
        clock.now += 1
        await assert_alive(one, a)  # the oldest, idle, but the expired two made room
        assert await raw.smembers(CLIENT_SET) == {a, d}
        assert await raw.zrange("plainmcp:active", 0, -1) == [d, a]


def test_on_redis_a_session_must_count_as_in_use_for_a_second_at_least() -> None:
    with pytest.raises(ValueError) as bad:
        RedisSessions("redis://127.0.0.1:1/0", 1800, 10_000, evict_after=0.5)
    assert str(bad.value) == (
        "session_evict_after must be at least 1 s with sessions on Redis: a session in use"
        " counts as such for that long after each use its process records"
    )
