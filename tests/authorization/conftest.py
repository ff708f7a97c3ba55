"""What every test of the authorization server shares: asyncio (the Redis client and the
subprocess helpers run on it), a fresh stand-in for the upstream identity provider, a clock
the test moves, and the store, once in memory and once on Redis."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from plainmcp.authorization import AuthStore, MemoryAuthStore, RedisAuthStore
from tests.authorization.harness import FakeUpstream
from tests.cluster import redis_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def upstream() -> FakeUpstream:
    return FakeUpstream()


class Clock:
    """Unix seconds that move only when a test moves them."""

    def __init__(self, now: float = 1_900_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as server:
        yield server.url


@pytest.fixture(params=["memory", "redis"])
def store(request: pytest.FixtureRequest, clock: Clock) -> AuthStore:
    """Each test on both stores: this process's memory (on the test's clock) and Redis (its
    own prefix, so no test sees another's records)."""
    if request.param == "memory":
        return MemoryAuthStore(clock)
    url = request.getfixturevalue("redis_url")
    return RedisAuthStore(url, prefix=f"test:{secrets.token_hex(8)}:")
