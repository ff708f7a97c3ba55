"""The client's tasks over real transports: Streamable HTTP (in-process ASGI, with the headers
each request carries, and a server process reattached to after the first client closed) and
stdio (a server subprocess), on both eras."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from plainmcp.client import TASKS_EXTENSION, Client, Elicitation, ElicitResult, Progress
from plainmcp.transports.http.app import HttpApp
from tests.client.servers import task_tools
from tests.client.test_http import URL, Recording
from tests.http_server import HttpServer, http_server

pytestmark = pytest.mark.anyio

CORE = "2025-11-25"
EXT = "2026-07-28"
TASKS = {TASKS_EXTENSION: {}}
SERVER = Path(task_tools.__file__)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def quick(seconds: float) -> None:
    await anyio.sleep(min(seconds, 0.01))


@pytest.fixture
async def asgi() -> AsyncIterator[tuple[HttpApp, Recording]]:
    http_app = task_tools.app.http_app()
    async with http_app.lifespan():
        yield http_app, Recording(httpx2.ASGITransport(http_app))


@pytest.fixture(scope="module")
def process() -> Iterator[HttpServer]:
    with http_server(str(SERVER)) as server:
        yield server


async def test_ext_task_requests_name_the_task_in_their_headers(
    asgi: tuple[HttpApp, Recording],
) -> None:
    _, recording = asgi

    def elicit(question: Elicitation) -> ElicitResult:
        return ElicitResult("accept", {"name": "Luca"})

    async with Client.http(
        URL, transport=recording, protocol=EXT, extensions=TASKS, poll_sleep=quick, elicit=elicit
    ) as client:
        handle = await client.call_tool_as_task("forever")
        assert handle.id is not None
        await handle.refresh()
        await handle.cancel()
        asking = await client.call_tool_as_task("hello")
        assert (await asking.result()).text == "Hello, Luca!"
    posts = [(h.get("mcp-method"), h.get("mcp-name")) for m, h in recording.seen if m == "POST"]
    assert posts[:5] == [
        ("server/discover", None),
        ("tools/list", None),
        ("tools/call", "forever"),
        ("tasks/get", handle.id),
        ("tasks/cancel", handle.id),
    ]
    assert posts[5] == ("tools/call", "hello")
    assert ("tasks/update", asking.id) in posts[6:]
    assert {name for method, name in posts[6:]} == {asking.id}  # every poll names the task


@pytest.mark.parametrize("protocol", [CORE, EXT])
async def test_a_task_over_stdio_runs_to_its_result(protocol: str) -> None:
    progress: list[Progress] = []
    async with Client.stdio(
        sys.executable,
        str(SERVER),
        protocol=protocol,
        extensions=TASKS,
        poll_sleep=quick,
        on_progress=progress.append,
    ) as client:
        handle = await client.call_tool_as_task("forever")
        assert handle.status == "working"
        await handle.cancel()
        built = await (await client.call_tool_as_task("build", {"target": "docs"})).result()
    assert built.text == "built docs"
    if protocol == CORE:  # 2026-07-28 tasks carry no progress
        assert [(p.progress, p.message) for p in progress] == [(1, "compiling"), (2, "linking")]


@pytest.mark.parametrize("protocol", [CORE, EXT])
async def test_reattach_over_http_after_the_first_client_closed(
    process: HttpServer, protocol: str
) -> None:
    async with Client.http(process.url, protocol=protocol, extensions=TASKS) as first:
        handle = await first.call_tool_as_task("forever")
        task_id = handle.id
    assert task_id is not None
    async with Client.http(
        process.url, protocol=protocol, extensions=TASKS, poll_sleep=quick
    ) as second:
        again = await second.task(task_id)
        assert again.status == "working"
        await again.cancel()
        state = await again.wait()
    assert state is not None and state.status == "cancelled"


@pytest.mark.parametrize("protocol", [CORE, EXT])
async def test_a_tasks_question_over_http_is_answered_by_the_elicit_callback(
    process: HttpServer, protocol: str
) -> None:
    asked: list[str] = []

    def elicit(question: Elicitation) -> ElicitResult:
        asked.append(question.message)
        return ElicitResult("accept", {"name": "Luca"})

    async with Client.http(
        process.url, protocol=protocol, extensions=TASKS, poll_sleep=quick, elicit=elicit
    ) as client:
        handle = await client.call_tool_as_task("hello")
        assert handle.id is not None
        assert (await handle.result()).text == "Hello, Luca!"
    assert asked == ["Your name?"]


@pytest.mark.parametrize("protocol", [CORE, EXT])
async def test_the_official_sdks_server_offers_no_tasks_so_the_call_is_answered_at_once(
    protocol: str,
) -> None:
    sdk = Path(__file__).parent / "servers" / "sdk_tools.py"
    async with Client.stdio(
        sys.executable, str(sdk), "stdio", protocol=protocol, extensions=TASKS
    ) as client:
        assert client.task_era() is None  # mcp 2.3.0 has no tasks on either era
        handle = await client.call_tool_as_task("add", {"a": 2, "b": 3})
        assert (handle.id, handle.status, (await handle.result()).text) == (None, "completed", "5")
