"""The state secret the processes of one endpoint share through Redis, against a real
redis-server: each app here stands for one process (its own Server, its own random secret)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from plainmcp import Server
from plainmcp.lifespan import LifespanError
from plainmcp.redis_link import close_shared
from plainmcp.redis_store import RedisStore
from plainmcp.transports.http.app import HttpApp
from plainmcp.transports.http.state_secret import kept_on
from plainmcp.wire.request_state import ENV_SECRET
from tests.cluster import RedisServer, redis_server

pytestmark = pytest.mark.anyio

KEY = "plainmcp:state-secret"
REF = {"k": "blob-key", "o": 1000}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
async def raw(redis: RedisServer, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Redis]:
    monkeypatch.delenv(ENV_SECRET, raising=False)
    client = Redis.from_url(redis.url)
    await client.flushdb()
    yield client
    await client.aclose()
    await close_shared()


def process(redis: RedisServer, *, sessions: bool = True, secret: str | None = None) -> HttpApp:
    """One process's app: sessions on Redis, or none and the blob store on Redis."""
    if sessions:
        return Server("p", state_secret=secret).http_app(sessions=redis.url)
    return Server("p", state_secret=secret, blob_store=RedisStore(redis.url)).http_app(
        sessions=None
    )


@pytest.mark.parametrize("sessions", [True, False], ids=["sessions", "blob_store"])
async def test_the_first_process_stores_a_secret_and_every_process_signs_with_it(
    redis: RedisServer, raw: Redis, caplog: pytest.LogCaptureFixture, sessions: bool
) -> None:
    first, second = process(redis, sessions=sessions), process(redis, sessions=sessions)
    assert first.server.state_signer.ephemeral
    where = f"Redis key {KEY} at {redis.url}"
    with caplog.at_level(logging.INFO, logger="plainmcp"):
        async with first.lifespan(), second.lifespan():
            ref = first.server.state_signer.seal(REF)
            assert second.server.state_signer.unseal(ref) == REF
            assert first.server.state_signer.unseal(second.server.state_signer.seal(REF)) == REF
            later = process(redis, sessions=sessions)  # a process started later: the same
            async with later.lifespan():
                assert later.server.state_signer.unseal(ref) == REF
    stored = await raw.get(KEY)
    assert stored is not None and len(stored) == 43  # token_urlsafe(32)
    assert await raw.ttl(KEY) == -1  # no expiry: a ref verifies as long as its payload lives
    assert repr(first.server.state_signer) == (f"StateSigner(secret=<hidden, {where}>, ttl=600.0)")
    logged = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "plainmcp"]
    found = f"signing read_more refs and requestState with the state secret at {where}"
    assert logged == [
        (
            "WARNING",
            f"{ENV_SECRET} is not set: made a state secret for read_more refs and requestState"
            f" and stored it at {where}, which every process of this endpoint signs with (set"
            f" {ENV_SECRET} to keep it out of Redis)",
        ),
        ("INFO", found),
        ("INFO", found),
    ]
    assert stored.decode() not in caplog.text  # the secret itself is never logged


async def test_a_secret_given_is_kept_and_nothing_is_stored(redis: RedisServer, raw: Redis) -> None:
    given = "a-secret-given-to-this-server-of-enough-length"
    app = process(redis, secret=given)
    async with app.lifespan():
        assert not app.server.state_signer.ephemeral
        ref = app.server.state_signer.seal(REF)
    assert await raw.exists(KEY) == 0
    assert Server("q", state_secret=given).state_signer.unseal(ref) == REF


async def test_a_secret_in_the_environment_is_kept_and_nothing_is_stored(
    redis: RedisServer, raw: Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_SECRET, "a-secret-from-the-environment-of-enough-length")
    app = process(redis)
    async with app.lifespan():
        signer = app.server.state_signer
        assert repr(signer) == "StateSigner(secret=<hidden, environment>, ttl=600.0)"
    assert await raw.exists(KEY) == 0


async def test_a_secret_in_redis_too_short_to_sign_with_stops_the_start(
    redis: RedisServer, raw: Redis
) -> None:
    await raw.set(KEY, "short")
    with pytest.raises(LifespanError) as stopped:
        async with process(redis).lifespan():
            pass
    assert str(stopped.value) == (
        "the shared state secret is unusable: the requestState secret (from Redis key"
        f" {KEY} at {redis.url}) is 5 bytes; at least 32 are required: delete the key for a new"
        f" one to be made, or set {ENV_SECRET}"
    )


async def test_an_app_with_nothing_on_redis_keeps_its_own_secret(redis: RedisServer) -> None:
    memory = Server("p").http_app()
    assert kept_on(memory) is None
    async with memory.lifespan():
        assert memory.server.state_signer.ephemeral
    assert kept_on(process(redis)) == (redis.url, KEY)
    assert kept_on(process(redis, sessions=False)) == (redis.url, KEY)
