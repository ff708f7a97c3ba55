"""The shared Redis client against a real redis-server that is restarted: a pooled connection
the restart broke is retried once on a new connection, so every Redis user (sessions, event
log, blob store) works again at its first command."""

from __future__ import annotations

import asyncio

import pytest

from plainmcp.redis_link import close_shared, open_client, redis_errors
from plainmcp.redis_store import RedisStore
from tests.cluster import redis_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_the_connections_a_restart_broke_are_retried_once_on_new_ones() -> None:
    with redis_server() as own:
        client = open_client(own.url)
        try:
            await asyncio.gather(*(client.set(f"k{n}", n) for n in range(20)))
            assert len(client.connection_pool._available_connections) == 20  # type: ignore[attr-defined]
            own.stop(save=True)
            with pytest.raises(redis_errors()) as down:
                await client.get("k0")
            port = own.port
            assert str(down.value) == (
                f"Error 111 connecting to 127.0.0.1:{port}."
                f" Connect call failed ('127.0.0.1', {port})."
            )
            own.start()
            values = await asyncio.gather(*(client.get(f"k{n}") for n in range(40)))
            assert values == [str(n).encode() for n in range(20)] + [None] * 20
        finally:
            await client.aclose()


async def test_the_blob_store_works_at_its_first_command_after_a_restart() -> None:
    with redis_server() as own:
        store = RedisStore(own.url)
        keys = await asyncio.gather(*(store.put(b"%d" % n, "text/plain", 60) for n in range(10)))
        own.stop(save=True)
        own.start()
        found = await asyncio.gather(*(store.get(key) for key in keys))
        assert [(b.data, b.mime_type) for b in found if b is not None] == [
            (b"%d" % n, "text/plain") for n in range(10)
        ]
        await close_shared()
