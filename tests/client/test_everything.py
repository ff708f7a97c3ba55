"""plainmcp's client against plainmcp's examples/everything_server.py in every revision: the
revision chosen (auto) or fixed, callbacks answering the server's questions (requests in a
handshake session, input-required results at 2026-07-28), progress, log messages, list changes,
resource updates, cancellation and timeouts; in memory for every revision, over stdio and the
ASGI app (Streamable HTTP) for a handshake revision and 2026-07-28."""

from __future__ import annotations

import contextlib
import importlib.util
import re
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx2
import pytest

from plainmcp import Context, Server
from plainmcp.client import (
    Client,
    Elicitation,
    ElicitResult,
    LogMessage,
    McpError,
    Progress,
    RequestTimeout,
    Root,
    SamplingRequest,
)
from plainmcp.wire.revisions import REVISIONS
from tests.http_server import HttpServer, http_server

pytestmark = pytest.mark.anyio

EVERYTHING = Path(__file__).resolve().parents[2] / "examples" / "everything_server.py"
ALL = list(REVISIONS)
STATELESS = "2026-07-28"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("client_everything_server", EVERYTHING)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


everything = _load()
app: Server = everything.app


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def asks(rev: str) -> frozenset[str]:
    """What a server may ask a client in `rev` (requests, or input-required entries)."""
    r = REVISIONS[rev]
    return r.client_requests | r.input_requests


Opener = Callable[..., AbstractAsyncContextManager[Client]]


def memory(**options: Any) -> AbstractAsyncContextManager[Client]:
    return Client.memory(app, **options)


def stdio(**options: Any) -> AbstractAsyncContextManager[Client]:
    return Client.stdio(sys.executable, "-m", "plainmcp", "run", str(EVERYTHING), **options)


@pytest.fixture(scope="module")
def served() -> Iterator[HttpServer]:
    """The everything server over uvicorn (httpx2's ASGITransport answers only once the app
    is done, so it cannot carry an SSE stream the client must answer during the call)."""
    with http_server(EVERYTHING) as server:
        yield server


SERVED: list[HttpServer] = []


def http(**options: Any) -> AbstractAsyncContextManager[Client]:
    return Client.http(SERVED[0].url, **options)


TRANSPORTS: list[tuple[str, Opener, str]] = [
    *[("memory", memory, rev) for rev in ALL],
    ("stdio", stdio, "2025-11-25"),
    ("stdio", stdio, STATELESS),
    ("http", http, "2025-06-18"),
    ("http", http, STATELESS),
]


@pytest.fixture(params=TRANSPORTS, ids=[f"{name}-{rev}" for name, _, rev in TRANSPORTS])
def opener(request: pytest.FixtureRequest) -> tuple[Opener, str]:
    name, open_, rev = request.param
    if name == "http" and not SERVED:
        SERVED.append(request.getfixturevalue("served"))
    return open_, rev


# --- choosing the revision -------------------------------------------------------------------


@pytest.mark.parametrize("open_", [memory, stdio, http], ids=["memory", "stdio", "http"])
async def test_auto_chooses_2026_07_28_through_server_discover(
    open_: Opener, served: HttpServer
) -> None:
    SERVED[:] = [served]
    async with open_() as client:
        assert client.protocol_version == STATELESS
        assert client.server_info.name == "plainmcp-everything"
        assert client.discover_result is not None
        assert client.discover_result["supportedVersions"] == ALL[::-1]
        assert client.capabilities["tools"] == {"listChanged": True}


@pytest.mark.parametrize("rev", ALL)
async def test_a_fixed_revision_is_spoken_as_given(rev: str) -> None:
    async with memory(protocol=rev) as client:
        assert (client.protocol_version, client.server_info.name) == (rev, "plainmcp-everything")
        assert (await client.call_tool("test_simple_text")).text == (
            "This is a simple text response for testing."
        )


async def test_protocol_version_keeps_working_as_the_older_spelling() -> None:
    async with memory(protocol_version="2025-03-26") as client:
        assert client.protocol_version == "2025-03-26"


# --- callbacks -------------------------------------------------------------------------------


async def test_elicitation_is_answered_by_the_callback(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    seen: list[Elicitation] = []

    async def elicit(request: Elicitation) -> dict[str, Any]:
        seen.append(request)
        return {"username": "ada", "email": "ada@example.com"}

    async with open_(protocol=rev, elicit=elicit) as client:
        result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    if "elicitation/create" not in asks(rev):
        assert (result.is_error, seen) == (True, [])
        assert (
            result.text == f"Elicitation failed: protocol revision {rev} has no elicitation/create"
        )
        return
    assert (result.is_error, result.text) == (
        False,
        'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
    )
    assert seen == [
        Elicitation(message="Who are you?", requested_schema=everything.USER_INFO),
    ]


async def test_sampling_is_answered_by_a_plain_function(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    seen: list[SamplingRequest] = []

    def sample(request: SamplingRequest) -> str:
        seen.append(request)
        return "Paris"

    async with open_(protocol=rev, sample=sample) as client:
        result = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
    assert (result.is_error, result.text) == (False, "LLM response: Paris")
    [request] = seen
    assert (request.prompt, request.max_tokens, [m.role for m in request.messages]) == (
        "Capital of France?",
        100,
        ["user"],
    )


async def test_roots_are_given_as_a_list(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    roots = ["file:///work", Root("file:///tmp", "scratch")]
    async with open_(protocol=rev, roots=roots) as client:
        result = await client.call_tool("test_input_required_result_list_roots")
    assert result.text == "Client roots: file:///work, file:///tmp (scratch)"


@pytest.mark.parametrize("rev", ["2025-11-25", STATELESS])
async def test_the_client_declares_exactly_the_capabilities_it_has_callbacks_for(
    rev: str,
) -> None:
    async with memory(protocol=rev, sample=lambda r: "Hi there") as client:
        assert client.client_capabilities(REVISIONS[rev]) == {"sampling": {}}
        result = await client.call_tool("test_input_required_result_capabilities")
    assert result.text == "greeting=Hi there"


async def test_two_input_required_rounds_are_answered_in_turn() -> None:
    answers = {"Step 1: What is your name?": "Ada", "Step 2: What is your favorite color?": "red"}

    def elicit(request: Elicitation) -> ElicitResult:
        field = "name" if request.message.startswith("Step 1") else "color"
        return ElicitResult("accept", {field: answers[request.message]})

    async with memory(protocol=STATELESS, elicit=elicit) as client:
        result = await client.call_tool("test_input_required_result_multi_round")
    assert result.text == "Ada's favorite color is red"


@pytest.mark.parametrize("rev", ["2025-11-25", STATELESS])
async def test_an_elicit_callback_that_raises_is_answered_and_the_call_completes(rev: str) -> None:
    def elicit(request: Elicitation) -> None:
        raise RuntimeError("no user here")

    async with memory(protocol=rev, elicit=elicit) as client:
        result = await client.call_tool("test_input_required_result_elicitation")
        assert (await client.call_tool("test_simple_text")).is_error is False
    assert result.is_error
    if rev == STATELESS:  # an input response cannot be an error: the question is cancelled
        assert result.text == "The user did not answer (action=cancel)"
    else:
        assert result.text == (
            "Elicitation failed: the elicitation/create callback failed:"
            " RuntimeError('no user here')"
        )


async def test_a_sample_callback_that_raises_in_a_session_is_a_tool_error() -> None:
    def sample(request: SamplingRequest) -> str:
        raise ValueError("model offline")

    async with memory(protocol="2025-11-25", sample=sample) as client:
        result = await client.call_tool("test_sampling", {"prompt": "x"})
    assert (result.is_error, result.text) == (
        True,
        "Sampling failed: the sampling/createMessage callback failed: ValueError('model offline')",
    )


async def test_a_sample_callback_that_raises_at_2026_raises_from_the_call() -> None:
    def sample(request: SamplingRequest) -> str:
        raise ValueError("model offline")

    async with memory(protocol=STATELESS, sample=sample) as client:
        with pytest.raises(McpError) as caught:
            await client.call_tool("test_sampling", {"prompt": "x"})
        assert (await client.call_tool("test_simple_text")).is_error is False
    assert (caught.value.code, caught.value.message) == (
        -32603,
        "the sampling/createMessage callback failed: ValueError('model offline')",
    )


# --- notifications ---------------------------------------------------------------------------


async def test_progress_reaches_the_callback_and_the_call(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    everyone: list[Progress] = []
    mine: list[Progress] = []
    async with open_(protocol=rev, on_progress=everyone.append) as client:
        result = await client.call_tool("test_tool_with_progress", on_progress=mine.append)
    token = int(result.text)
    expected = [Progress(p, 100, token=token) for p in (0, 50, 100)]
    assert (everyone, mine) == (expected, expected)


async def test_call_tool_stream_iterates_one_calls_progress(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    async with (
        open_(protocol=rev) as client,
        client.call_tool_stream("test_tool_with_progress") as call,
    ):
        updates = [p async for p in call]
        result = await call.result()
    assert updates == [Progress(p, 100, token=int(result.text)) for p in (0, 50, 100)]


async def test_log_messages_reach_on_log(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    heard: list[LogMessage] = []
    async with open_(protocol=rev, on_log=heard.append) as client:
        await client.call_tool("test_tool_with_logging")
    assert heard == [
        LogMessage("info", "Tool execution started"),
        LogMessage("info", "Tool processing data"),
        LogMessage("info", "Tool execution completed"),
    ]


@pytest.mark.parametrize("rev", ["2025-06-18", STATELESS])
async def test_set_log_level_filters_what_the_server_sends(rev: str) -> None:
    heard: list[LogMessage] = []
    async with memory(protocol=rev, on_log=heard.append) as client:
        await client.set_log_level("warning")
        await client.call_tool("test_logging_tool")
    assert heard == [LogMessage("warning", "Logging tool: a warning message")]


async def test_list_changes_reach_on_list_changed(opener: tuple[Opener, str]) -> None:
    open_, rev = opener
    changed: list[str] = []
    twice = anyio.Event()

    def on_list_changed(kind: str) -> None:
        changed.append(kind)
        if len(changed) == 2:
            twice.set()

    async with open_(protocol=rev, on_list_changed=on_list_changed) as client:
        await client.call_tool("test_trigger_tool_change")
        with anyio.fail_after(5):
            await twice.wait()
    assert changed == ["tools", "tools"]


@pytest.mark.parametrize("rev", ["2025-11-25", STATELESS])
async def test_a_subscribed_resource_reports_its_updates(rev: str) -> None:
    updated: list[str] = []
    got = anyio.Event()

    def on_resource_updated(uri: str) -> None:
        updated.append(uri)
        got.set()

    async with memory(protocol=rev, on_resource_updated=on_resource_updated) as client:
        await client.subscribe("test://watched-resource")
        app.notify_resource_updated("test://watched-resource")
        with anyio.fail_after(5):
            await got.wait()
    assert updated == ["test://watched-resource"]


async def test_subscribing_to_an_unknown_resource_at_2026_raises() -> None:
    async with memory(protocol=STATELESS, on_resource_updated=print) as client:
        with pytest.raises(McpError) as caught:
            await client.subscribe("test://nowhere")
    assert caught.value.message == "The server offers no updates of test://nowhere"


async def test_a_mirrored_parameter_goes_as_its_header_over_http(served: HttpServer) -> None:
    async with Client.http(served.url, protocol=STATELESS) as client:
        result = await client.call_tool("test_x_mcp_header", {"region": "eu-west"})
    assert (result.is_error, result.text) == (False, "Region: eu-west")


# --- cancellation and timeouts ---------------------------------------------------------------

slow = Server("slow")
started = anyio.Event()
cancelled = anyio.Event()


@slow.tool()
async def wait(ctx: Context) -> str:
    """Wait until cancelled."""
    started.set()
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        cancelled.set()
        raise
    return "never"


@slow.tool()
def quick() -> str:
    return "quick"


def slow_http(**options: Any) -> AbstractAsyncContextManager[Client]:
    return _slow_http(**options)


@contextlib.asynccontextmanager
async def _slow_http(**options: Any) -> AsyncIterator[Client]:
    http_app = slow.http_app()
    async with (
        http_app.lifespan(),
        Client.http(
            "http://127.0.0.1/mcp", transport=httpx2.ASGITransport(http_app), **options
        ) as client,
    ):
        yield client


SLOW = [
    ("memory", lambda **o: Client.memory(slow, **o), "2025-11-25"),
    ("memory", lambda **o: Client.memory(slow, **o), STATELESS),
    ("http", slow_http, "2025-11-25"),
    ("http", slow_http, STATELESS),
]


@pytest.fixture(params=SLOW, ids=[f"{name}-{rev}" for name, _, rev in SLOW])
def slow_opener(request: pytest.FixtureRequest) -> tuple[Opener, str]:
    global started, cancelled
    started, cancelled = anyio.Event(), anyio.Event()
    _, open_, rev = request.param
    return open_, rev


async def until_cancelled() -> None:
    """The server's tool saw the cancellation."""
    with anyio.fail_after(5):
        await cancelled.wait()


async def test_cancelling_the_awaiting_task_cancels_the_call(
    slow_opener: tuple[Opener, str],
) -> None:
    open_, rev = slow_opener
    async with open_(protocol=rev) as client:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(client.call_tool, "wait")
            await started.wait()
            tasks.cancel_scope.cancel()
        await until_cancelled()
        assert (await client.call_tool("quick")).text == "quick"


async def test_a_call_past_its_timeout_raises_and_is_cancelled(
    slow_opener: tuple[Opener, str],
) -> None:
    open_, rev = slow_opener
    async with open_(protocol=rev) as client:
        with pytest.raises(RequestTimeout) as caught:
            await client.call_tool("wait", timeout=0.2)
        await until_cancelled()
    # (the id depends on the transport: over stateless HTTP tools/list comes first)
    assert re.fullmatch(r"No answer to tools/call \(id \d\) within 0\.2 s", caught.value.message)
