"""RedisTaskStore against a real redis-server: two stores stand for two processes sharing it.

Ownership, TTL by Redis expiry, a compare-and-swap that lets exactly one terminal state win,
wake-ups across stores, paging per owner, and the lease that fails a task whose runner stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from plainmcp.redis_link import RedisUnavailable
from plainmcp.tasks import (
    Answer,
    Ask,
    BadCursor,
    Cancel,
    Finish,
    Progress,
    TaskRecord,
    TaskStore,
)
from plainmcp.tasks.redis_store import LEASE_LOST, RedisTaskStore
from tests.cluster import RedisServer, redis_server

pytestmark = pytest.mark.anyio

NOW = 1_900_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


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


def record(
    task_id: str, owner: str | None = "sub:ann", at: float = NOW, ttl: int | None = 60_000
) -> TaskRecord:
    return TaskRecord(task_id, owner, created_at=at, updated_at=at, ttl_ms=ttl, poll_ms=100)


def pair(redis: RedisServer, clock: Clock, **options: float) -> tuple[RedisTaskStore, ...]:
    """Two stores on one Redis: what two processes are."""
    return tuple(RedisTaskStore(redis.url, clock=clock, **options) for _ in range(2))


def test_it_is_a_task_store() -> None:
    assert isinstance(RedisTaskStore("redis://127.0.0.1:1/0"), TaskStore)


async def test_a_task_made_by_one_process_is_read_and_changed_by_another(
    redis: RedisServer, raw: Redis
) -> None:
    clock = Clock()
    a, b = pair(redis, clock)
    await a.create(record("t1"))
    assert await b.get("t1", "sub:ann") == record("t1")
    clock.now += 1
    after = await b.change("t1", "sub:ann", Progress("half way"))
    assert after == TaskRecord(
        "t1", "sub:ann", NOW, NOW + 1, 60_000, 100, message="half way", version=1
    )
    assert await a.get("t1", "sub:ann") == after
    with pytest.raises(ValueError, match="a task with this id exists"):
        await b.create(record("t1"))


async def test_another_owner_gets_what_an_unknown_id_gets(redis: RedisServer, raw: Redis) -> None:
    a, b = pair(redis, Clock())
    await a.create(record("t1"))
    for task_id, owner in (("t1", "sub:bob"), ("t1", None), ("nope", "sub:ann")):
        assert await b.get(task_id, owner) is None
        assert await b.change(task_id, owner, Cancel()) is None
        assert await b.wait(task_id, owner, 0, 0.0) is None
    assert (await b.page("sub:bob", None, 10)).records == ()
    assert (await b.get("t1", "sub:ann")) is not None


async def test_the_ttl_is_the_redis_expiry_of_the_record(redis: RedisServer, raw: Redis) -> None:
    clock = Clock()
    a, b = pair(redis, clock)
    await a.create(record("t1", ttl=5_000))
    assert 4_900 < await raw.pttl("plainmcp:task:rec:t1") <= 5_000
    await a.create(record("forever", ttl=None))
    assert 86_399_000 < await raw.pttl("plainmcp:task:rec:forever") <= 86_400_000
    clock.now = NOW + 4.999
    assert await b.get("t1", "sub:ann") is not None
    clock.now = NOW + 5.0  # expired by the store's clock, before Redis drops it
    assert await b.get("t1", "sub:ann") is None
    clock.now = NOW
    await raw.delete("plainmcp:task:rec:t1")  # what Redis does when the TTL runs out
    assert await b.get("t1", "sub:ann") is None
    assert [r.task_id for r in (await b.page("sub:ann", None, 10)).records] == ["forever"]
    assert await raw.zrange(a.owner_key("sub:ann"), 0, -1) == [b"forever"]  # pruned


async def test_a_cancel_racing_a_completion_leaves_one_terminal_state(
    redis: RedisServer, raw: Redis
) -> None:
    """Both processes read version 0; the completion is written between the cancel's read and
    its write, so the cancel's compare-and-swap fails, it reads again and finds it final."""
    clock = Clock()
    a, b = pair(redis, clock)
    await a.create(record("t1"))
    read = b._read

    async def completed_meanwhile(task_id: str, owner: str | None) -> object:
        found = await read(task_id, owner)
        b._read = read  # type: ignore[method-assign]
        done = await a.change(task_id, owner, Finish({"content": [], "isError": False}))
        assert done is not None and done.status == "completed"
        return found

    b._read = completed_meanwhile  # type: ignore[method-assign]
    after = await b.change("t1", "sub:ann", Cancel())
    assert after is not None
    assert (after.status, after.result, after.cancel_requested, after.version) == (
        "completed",
        {"content": [], "isError": False},
        False,
        1,
    )
    assert await a.get("t1", "sub:ann") == after
    assert await raw.exists("plainmcp:task:lease:t1") == 0  # ended: no lease


async def test_many_cancels_and_completions_at_once_agree_on_one_winner(
    redis: RedisServer, raw: Redis
) -> None:
    a, b = pair(redis, Clock())
    for n in range(20):
        await a.create(record(f"t{n}"))
    changes = []
    for n in range(20):
        changes.append(a.change(f"t{n}", "sub:ann", Finish({"content": []})))
        changes.append(b.change(f"t{n}", "sub:ann", Cancel()))
    answers = await asyncio.gather(*changes)
    for n in range(20):
        final = await b.get(f"t{n}", "sub:ann")
        assert final is not None and final.version == 1
        assert answers[2 * n] == answers[2 * n + 1] == final
        assert final.status in ("completed", "cancelled")


async def test_a_wait_wakes_on_a_change_made_by_another_process(
    redis: RedisServer, raw: Redis
) -> None:
    a, b = pair(redis, Clock())
    await a.create(record("t1"))
    waiting = asyncio.create_task(a.wait("t1", "sub:ann", 0, 30))
    asked = await b.change("t1", "sub:ann", Ask({"k": {"method": "elicitation/create"}}))
    assert asked is not None and asked.status == "input_required"
    woken = await asyncio.wait_for(waiting, 10)
    assert woken == asked
    waiting = asyncio.create_task(a.wait("t1", "sub:ann", asked.version, 30))
    answered = await b.change("t1", "sub:ann", Answer({"k": {"action": "accept"}}))
    assert answered is not None and answered.responses == {"k": {"action": "accept"}}
    assert await asyncio.wait_for(waiting, 10) == answered
    waiting = asyncio.create_task(a.wait("t1", "sub:ann", answered.version, 30))
    cancelled = await b.change("t1", "sub:ann", Cancel())
    woken = await asyncio.wait_for(waiting, 10)
    assert woken == cancelled and woken.cancel_requested and woken.status == "cancelled"
    assert a._waiters == {} and a._listener is None  # nothing left subscribed


async def test_a_wait_with_nothing_changing_answers_the_record_at_its_timeout(
    redis: RedisServer, raw: Redis
) -> None:
    a, b = pair(redis, Clock())
    await a.create(record("t1"))
    assert await b.wait("t1", "sub:ann", 0, 0.05) == record("t1")


async def test_a_task_whose_lease_is_gone_is_failed_by_the_next_reader(
    redis: RedisServer, raw: Redis
) -> None:
    clock = Clock()
    a, b = pair(redis, clock, lease=30)
    await a.create(record("t1"))
    await a.create(record("t2"))
    assert 29_000 < await raw.pttl("plainmcp:task:lease:t1") <= 30_000
    assert await raw.get("plainmcp:task:lease:t1") == a.name.encode()
    await raw.pexpire("plainmcp:task:lease:t1", 1_000)
    await a.beat()  # the running process renews its leases
    assert 29_000 < await raw.pttl("plainmcp:task:lease:t1") <= 30_000
    await raw.delete("plainmcp:task:lease:t1")  # what Redis does when the lease runs out
    clock.now += 2
    failed = await b.get("t1", "sub:ann")
    assert failed is not None
    assert (failed.status, failed.message, failed.error, failed.updated_at, failed.version) == (
        "failed",
        LEASE_LOST,
        {"code": -32603, "message": "Internal error: the process running the task stopped"},
        NOW + 2,
        1,
    )
    assert await a.change("t1", "sub:ann", Finish({"content": []})) == failed  # too late
    await a.beat()
    assert a._running == {"t2"}  # no longer beats for the failed one
    listed = (await b.page("sub:ann", None, 10)).records
    assert [(r.task_id, r.status) for r in listed] == [("t1", "failed"), ("t2", "working")]


async def test_a_runner_that_stops_beating_leaves_a_failed_task_once_redis_expires_its_lease(
    redis: RedisServer, raw: Redis
) -> None:
    """Real Redis expiry: a waiter on another process sees `failed` within a lease period of
    the lease running out (it re-reads every lease period; nobody publishes for a dead runner)."""
    a, b = pair(redis, Clock(), lease=0.3)
    await a.create(record("t1"))
    await a.aclose()  # the process stops: no more heartbeats
    failed = await asyncio.wait_for(b.wait("t1", "sub:ann", 0, 30), 10)
    assert failed is not None and (failed.status, failed.message) == ("failed", LEASE_LOST)


async def test_a_running_process_keeps_its_lease_while_others_wait(
    redis: RedisServer, raw: Redis
) -> None:
    a, b = pair(redis, Clock(), lease=0.3)
    await a.create(record("t1"))
    # Ten lease periods of waiting: the heartbeat (every 0.1 s) keeps the task working.
    assert await b.wait("t1", "sub:ann", 0, 3.0) == record("t1")
    done = await a.change("t1", "sub:ann", Finish({"content": []}))
    assert done is not None and done.status == "completed"
    await asyncio.wait_for(_stopped(a), 10)


async def _stopped(store: RedisTaskStore) -> None:
    beating = store._beating
    assert beating is not None
    await beating  # ends by itself once nothing runs here


async def test_pages_list_one_owners_tasks_oldest_first_from_any_process(
    redis: RedisServer, raw: Redis
) -> None:
    a, b = pair(redis, Clock())
    for n, at in enumerate((NOW + 3, NOW + 1, NOW + 1, NOW + 2, NOW)):
        await a.create(record(f"t{n}", at=at))
    await a.create(record("other", owner="sub:bob"))
    await a.create(record("anon", owner=None))
    first = await b.page("sub:ann", None, 2)
    assert [r.task_id for r in first.records] == ["t4", "t1"]
    assert first.next_cursor is not None
    second = await a.page("sub:ann", first.next_cursor, 2)
    assert [r.task_id for r in second.records] == ["t2", "t3"]
    last = await b.page("sub:ann", second.next_cursor, 2)
    assert ([r.task_id for r in last.records], last.next_cursor) == (["t0"], None)
    assert [r.task_id for r in (await b.page(None, None, 10)).records] == ["anon"]
    with pytest.raises(BadCursor):
        await b.page("sub:ann", "not-a-cursor", 2)


async def test_an_unreachable_redis_is_redis_unavailable_naming_the_url() -> None:
    store = RedisTaskStore("redis://:secret@127.0.0.1:1/0")
    with pytest.raises(RedisUnavailable, match=r"Redis at redis://\*\*\*@127.0.0.1:1/0 is unav"):
        await store.get("t1", None)


async def test_an_end_redis_did_not_take_is_written_by_the_next_heartbeat_after_it_is_back() -> (
    None
):
    """Redis restarted (keeping its data) while a task ends: the change raises, and without
    more the task would stay `working` with its lease renewed; the heartbeat writes it."""
    with redis_server() as own:
        a, b = pair(own, Clock())
        await a.create(record("t1"))
        own.stop(save=True)
        with pytest.raises(RedisUnavailable):
            await a.change("t1", "sub:ann", Finish({"content": []}))
        own.start()
        assert (await b.get("t1", "sub:ann")) == record("t1")
        await a.beat()
        done = await b.get("t1", "sub:ann")
        assert done is not None and (done.status, done.result) == ("completed", {"content": []})
        assert a._running == set() and a._outcomes == {}
        client = Redis.from_url(own.url)
        assert await client.exists("plainmcp:task:lease:t1") == 0
        await client.aclose()
        await a.aclose()


async def test_a_result_holding_pre_encoded_json_is_stored_as_that_json(
    redis: RedisServer, raw: Redis
) -> None:
    """Structured results are rendered as orjson.Fragment (wire/render.py): stored as the JSON
    they hold, read back as plain data."""
    import orjson

    a, b = pair(redis, Clock())
    await a.create(record("t1"))
    result = {"content": [], "structuredContent": orjson.Fragment(b'{"n":[1,2]}')}
    done = await a.change("t1", "sub:ann", Finish(result))
    assert done is not None and done.status == "completed"
    read = await b.get("t1", "sub:ann")
    assert read is not None and read.result == {"content": [], "structuredContent": {"n": [1, 2]}}
