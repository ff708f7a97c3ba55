"""What every test of the authorization server shares: asyncio (the Redis client and the
subprocess helpers run on it) and a fresh stand-in for the upstream identity provider."""

from __future__ import annotations

import pytest

from tests.authorization.harness import FakeUpstream


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def upstream() -> FakeUpstream:
    return FakeUpstream()
