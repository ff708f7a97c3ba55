"""Handshake sessions on Redis, served by three plainmcp processes behind nginx (round robin, not
sticky): any process serves any request of any session, and the client's answers to the
server's requests reach the process whose call waits for them.

redis-server and nginx are real, started here on random ports (tests/cluster.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CreateMessageResult, ElicitResult, TextContent

from tests.cluster import Nginx, RedisServer, nginx, redis_server
from tests.http_server import HttpServer, http_server

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

SERVER = Path(__file__).resolve().parent / "servers" / "cluster_server.py"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@contextlib.contextmanager
def workers(redis: RedisServer, n: int) -> Iterator[list[HttpServer]]:
    env = {"PLAINMCP_TEST_SESSIONS": redis.url}
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(http_server(SERVER, env=env, script=True)) for _ in range(n)]


@pytest.fixture(scope="module")
def three(redis: RedisServer) -> Iterator[list[HttpServer]]:
    with workers(redis, 3) as servers:
        yield servers


@pytest.fixture(scope="module")
def balancer(three: list[HttpServer]) -> Iterator[Nginx]:
    with nginx([s.port for s in three]) as lb:
        yield lb


async def on_sampling(context: Any, params: Any) -> CreateMessageResult:
    asked = params.messages[0].content.text
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=f"echo {asked}"),
        model="test-model",
        stop_reason="endTurn",
    )


def elicitation(name: str) -> Any:
    async def on_elicitation(context: Any, params: Any) -> ElicitResult:
        assert params.message == "Your name?"
        return ElicitResult(action="accept", content={"name": name})

    return on_elicitation


def text_of(result: Any) -> str:
    assert result.is_error is False, result
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def counted(client: Client) -> None:
    """A call reporting progress: every notification reaches the callback, in order."""
    seen: list[tuple[float, float | None]] = []
    all_in = anyio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))
        if len(seen) == 3:
            all_in.set()

    result = await client.call_tool("count", {"steps": 3}, progress_callback=on_progress)
    assert text_of(result) == "3"
    with anyio.fail_after(5):
        await all_in.wait()
    assert seen == [(1, 3), (2, 3), (3, 3)]


async def one_session(url: str, number: int, pids: set[int]) -> int:
    """20 calls in one legacy session: progress, elicitation, sampling and plain calls."""
    done = 0
    async with Client(
        url,
        mode="legacy",
        read_timeout_seconds=30,
        sampling_callback=on_sampling,
        elicitation_callback=elicitation(f"user{number}"),
    ) as client:
        assert client.protocol_version == "2025-11-25"
        for call in range(20):
            kind = call % 4
            if kind == 0:
                pids.add(int(text_of(await client.call_tool("where", {}))))
            elif kind == 1:
                await counted(client)
            elif kind == 2:
                result = await client.call_tool("ask_name", {})
                assert text_of(result) == f"accept: user{number}"
            else:
                result = await client.call_tool("ask_model", {"prompt": f"hi {number}.{call}"})
                assert text_of(result) == f"model said: echo hi {number}.{call}"
            done += 1
    return done


async def test_ten_sdk_sessions_of_twenty_calls_through_nginx_and_three_processes(
    balancer: Nginx, three: list[HttpServer]
) -> None:
    pids: set[int] = set()
    finished: list[int] = []

    async def run(number: int) -> None:
        finished.append(await one_session(balancer.url, number, pids))

    with anyio.fail_after(90):
        async with anyio.create_task_group() as tg:
            for number in range(10):
                tg.start_soon(run, number)
    assert finished == [20] * 10
    # Round robin spread the sessions' calls over every process.
    assert pids == {s.proc.pid for s in three}
    for server in three:
        assert "Traceback" not in server.log(), server.log()
