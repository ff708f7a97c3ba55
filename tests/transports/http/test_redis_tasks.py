"""An app whose sessions are on Redis keeps its tasks there too (transports/http/redis_tasks.py):
what it moves at start, what it leaves alone, and what it closes at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from plainmcp import Server
from plainmcp.tasks import MemoryTaskStore
from plainmcp.tasks.extension import Tasks
from plainmcp.tasks.redis_store import RedisTaskStore
from tests.cluster import RedisServer, redis_server

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


def clock() -> float:
    return 1_900_000_000.0


def with_task_tool(tasks: Tasks | None = None) -> Server:
    app = Server("wired", tasks=tasks)

    @app.tool(task="optional")
    async def build() -> str:
        return "built"

    return app


async def test_in_memory_tasks_move_to_the_sessions_redis_for_the_apps_life(
    redis: RedisServer,
) -> None:
    app = with_task_tool(Tasks(clock=clock))
    web = app.http_app(sessions=redis.url)
    assert app.tasks is not None and type(app.tasks.store) is MemoryTaskStore
    async with web.lifespan():
        store = app.tasks.store
        assert isinstance(store, RedisTaskStore)
        assert (store.url, store.prefix, store.clock) == (redis.url, "plainmcp:task:", clock)
        assert app.tasks.served.store is store  # the handlers read the same store


@pytest.mark.parametrize("sessions", ["memory", None])
async def test_tasks_stay_in_memory_when_the_sessions_are_not_on_redis(
    sessions: str | None,
) -> None:
    app = with_task_tool()
    async with app.http_app(sessions=sessions).lifespan():
        assert app.tasks is not None and type(app.tasks.store) is MemoryTaskStore


async def test_a_store_given_explicitly_is_kept(redis: RedisServer) -> None:
    mine = RedisTaskStore(redis.url, prefix="mine:")
    app = with_task_tool(Tasks(mine))
    async with app.http_app(sessions=redis.url).lifespan():
        assert app.tasks is not None and app.tasks.store is mine


async def test_a_server_without_tasks_gets_none(redis: RedisServer) -> None:
    app = Server("plain")
    async with app.http_app(sessions=redis.url).lifespan():
        assert app.tasks is None


async def test_a_task_request_while_redis_is_unreachable_is_503_with_its_id() -> None:
    """Issue 23's rule for stores reached inside a handler: the Redis call is tried once more
    (redis_link), then the request is answered 503 with -32603 and its id, and logged."""
    from tests.transports.http.asgi import STATELESS, meta, request, stateless_headers

    gone = RedisTaskStore("redis://127.0.0.1:1/0")
    app = with_task_tool(Tasks(gone))
    capabilities = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    body = {
        "jsonrpc": "2.0",
        "id": "get-1",
        "method": "tasks/get",
        "params": {"taskId": "t1", "_meta": meta(capabilities=capabilities)},
    }
    web = app.http_app(sessions=None)
    async with web.lifespan():
        call = await request(
            web, body=body, headers=stateless_headers("tasks/get", "t1"), revision=STATELESS
        )
    assert (call.status, call.json()) == (
        503,
        {
            "jsonrpc": "2.0",
            "id": "get-1",
            "error": {"code": -32603, "message": "Internal error: the task store is unavailable"},
        },
    )
