"""RedisStore against a real redis-server: payloads readable from another store (another
process), the TTL given to Redis, the size ceiling, and a clear error when Redis evicts."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from plainmcp import PayloadLimits, Server
from plainmcp.redis_store import RedisStore
from plainmcp.store import BlobEvicted, StoreFull, blob_key, blob_uri, read_blob
from tests.cluster import RedisServer, redis_server
from tests.conftest import Session

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
    await client.config_set("maxmemory", 0)
    await client.aclose()


async def test_a_payload_put_by_one_store_is_read_by_another(
    redis: RedisServer, raw: Redis
) -> None:
    key = await RedisStore(redis.url).put(b"\x00binary\nbytes", "image/png", 60)
    assert blob_key(blob_uri(key)) == key  # URI-safe
    found = await read_blob(blob_uri(key), RedisStore(redis.url))
    assert found == (b"\x00binary\nbytes", "image/png")
    assert 59_000 < await raw.pttl(f"plainmcp:blob:{key}") <= 60_000


async def test_unknown_and_expired_keys_are_not_found(redis: RedisServer, raw: Redis) -> None:
    now = [1_000_000.0]
    store = RedisStore(redis.url, clock=lambda: now[0])
    key = await store.put(b"x", "text/plain", 30)
    assert (await store.get(key)) is not None
    await raw.delete(f"plainmcp:blob:{key}")  # what Redis does when the TTL runs out
    now[0] += 31
    assert await store.get(key) is None
    assert await store.get("unknown") is None
    assert await store.get("unknown.12") is None


async def test_a_payload_over_the_ceiling_is_refused(redis: RedisServer, raw: Redis) -> None:
    store = RedisStore(redis.url, max_bytes=10)
    with pytest.raises(StoreFull) as refused:
        await store.put(b"x" * 11, "text/plain", 60)
    assert str(refused.value) == "a payload of 11 bytes is over the store's ceiling of 10 bytes"
    assert await raw.dbsize() == 0


async def test_a_payload_evicted_by_redis_says_so(redis: RedisServer, raw: Redis) -> None:
    store = RedisStore(redis.url)
    await raw.config_set("maxmemory-policy", "allkeys-lru")
    await raw.config_set("maxmemory", 4 * 1024 * 1024)
    keys = [
        await store.put(bytes([n]) * 512 * 1024, "application/octet-stream", 600) for n in range(16)
    ]
    evicted = [k for k in keys if not await raw.exists(f"plainmcp:blob:{k}")]
    assert evicted  # 8 MiB do not fit in 4
    with pytest.raises(BlobEvicted) as lost:
        await store.get(evicted[0])
    assert str(lost.value) == (
        "the payload was evicted from Redis before its TTL ran out (maxmemory); call the tool again"
    )
    kept = [k for k in keys if k not in evicted]
    assert (await store.get(kept[-1])).data == bytes([keys.index(kept[-1])]) * 512 * 1024  # type: ignore[union-attr]


def offloading(store: RedisStore) -> Server:
    app = Server("offload", blob_store=store)

    @app.tool(limits=PayloadLimits(text_block=1000, text_result=1000, ttl=60))
    def long() -> str:
        return "word " * 1000

    return app


async def test_an_offloaded_result_is_read_back_through_another_server(
    redis: RedisServer, raw: Redis
) -> None:
    async with Session(offloading(RedisStore(redis.url))) as first:
        await first.initialize("2025-11-25")
        result = await first.call("long")
    (uri,) = set(re.findall(r"plainmcp://blob/[A-Za-z0-9._~-]+", json.dumps(result)))
    async with Session(offloading(RedisStore(redis.url))) as second:
        await second.initialize("2025-11-25")
        read = await second.result("resources/read", {"uri": uri})
    assert read["contents"][0]["text"] == "word " * 1000


async def test_reading_an_evicted_offload_is_a_clear_error(redis: RedisServer, raw: Redis) -> None:
    store = RedisStore(redis.url)
    key = await store.put(b"gone soon", "text/plain", 600)
    await raw.delete(f"plainmcp:blob:{key}")  # evicted
    async with Session(offloading(store)) as s:
        await s.initialize("2025-11-25")
        error = (await s.request("resources/read", {"uri": blob_uri(key)}))["error"]
    assert error == {
        "code": -32603,
        "message": f"Internal error: {blob_uri(key)}: the payload was evicted from Redis before"
        " its TTL ran out (maxmemory); call the tool again",
    }
