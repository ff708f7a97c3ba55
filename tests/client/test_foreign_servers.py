"""plainmcp's client against servers nobody here wrote: the official Python SDK's `MCPServer`
(servers/sdk_tools.py) and FastMCP (servers/fastmcp_tools.py), over stdio and Streamable HTTP
(uvicorn), in a handshake revision and at 2026-07-28 (which `protocol="auto"` chooses with
both). Each has tools that report progress, log, elicit and sample; every result is exact and
every callback sees what the server asked."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from plainmcp import Text
from plainmcp.client import (
    CallToolResult,
    Client,
    Elicitation,
    LogMessage,
    Progress,
    SamplingMessage,
    SamplingRequest,
)
from tests.http_server import HttpServer, http_server

pytestmark = pytest.mark.anyio

SERVERS = Path(__file__).parent / "servers"
SDK = SERVERS / "sdk_tools.py"
FASTMCP = SERVERS / "fastmcp_tools.py"
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _fastmcp_problem() -> str | None:
    if importlib.util.find_spec("fastmcp") is None:
        return "fastmcp is not installed (re-run scripts/setup)"
    return None


def needs_fastmcp() -> None:
    """Skip without FastMCP locally; under CI it must be there (scripts/setup installs it)."""
    problem = _fastmcp_problem()
    if problem is None:
        return
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI: {problem}", pytrace=False)
    pytest.skip(problem)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sdk_http() -> Iterator[HttpServer]:
    with http_server(SDK, script=True) as server:
        yield server


@pytest.fixture(scope="module")
def fastmcp_http() -> Iterator[HttpServer]:
    needs_fastmcp()
    with http_server(FASTMCP, script=True) as server:
        yield server


CASES = [
    (server, transport, protocol)
    for server in ("sdk", "fastmcp")
    for transport in ("stdio", "http")
    for protocol in ("2025-11-25", "auto")
]


class Heard:
    """Everything the callbacks were given, in order."""

    def __init__(self) -> None:
        self.events: list[object] = []

    def elicit(self, request: Elicitation) -> dict[str, Any]:
        self.events.append(request)
        return {"name": "Ada"}

    async def sample(self, request: SamplingRequest) -> str:
        self.events.append(request)
        return "Paris"

    def options(self) -> dict[str, Any]:
        return {
            "elicit": self.elicit,
            "sample": self.sample,
            "on_progress": self.events.append,
            "on_log": self.events.append,
        }


@pytest.fixture(params=CASES, ids=["-".join(c) for c in CASES])
def connect(request: pytest.FixtureRequest) -> tuple[str, str, Any]:
    server, transport, protocol = request.param
    script = SDK if server == "sdk" else FASTMCP
    if server == "fastmcp":
        needs_fastmcp()

    def open_(**options: Any) -> AbstractAsyncContextManager[Client]:
        if transport == "stdio":
            return Client.stdio(sys.executable, str(script), "stdio", protocol=protocol, **options)
        served: HttpServer = request.getfixturevalue(f"{server}_http")
        return Client.http(served.url, protocol=protocol, **options)

    return server, protocol, open_


def revision(protocol: str) -> str:
    return "2026-07-28" if protocol == "auto" else protocol


def done(text: str) -> tuple[list[Text], Any, bool]:
    """A tool's text result as both servers send it (their `_meta` differs, and is not
    compared here: the serverInfo stamp at 2026-07-28, FastMCP's own keys)."""
    return [Text(text)], {"result": text}, False


def shape(result: CallToolResult) -> tuple[list[Any], Any, bool]:
    return result.content, result.structured, result.is_error


async def test_calls_progress_logs_elicitation_and_sampling_are_exact(
    connect: tuple[str, str, Any],
) -> None:
    """One connection per case (spawning these servers is what takes the time)."""
    server, protocol, open_ = connect
    heard = Heard()
    async with open_(**heard.options()) as client:
        assert client.protocol_version == revision(protocol)
        name, version = ("sdk-tools", "2.0.0") if server == "sdk" else ("fastmcp-tools", "4.0.0")
        assert (client.server_info.name, client.server_info.version) == (name, version)
        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert (added.content, added.structured, added.is_error) == (
            [Text("5")],
            {"result": 5},
            False,
        )

        assert shape(await client.call_tool("count", {"n": 2})) == done("counted to 2")
        token = next(e for e in heard.events if isinstance(e, Progress)).token

        def said(text: str) -> Any:
            # FastMCP's ctx.info sends a structured record; the SDK's the message itself.
            return {"msg": text, "extra": None} if server == "fastmcp" else text

        assert heard.events == [
            Progress(1, 2, "step 1", token=token),
            LogMessage("info", said("counted 1")),
            Progress(2, 2, "step 2", token=token),
            LogMessage("info", said("counted 2")),
        ]
        heard.events.clear()

        assert shape(await client.call_tool("greet")) == done("Hello, Ada!")
        [asked] = heard.events
        assert isinstance(asked, Elicitation)
        assert (asked.message, asked.mode) == ("Your name?", "form")
        schema = dict(asked.requested_schema or {})
        # Both servers derive the form from a model; in a session the schema keeps its titles.
        schema.pop("title", None)
        schema["properties"] = {k: {"type": v["type"]} for k, v in schema["properties"].items()}
        assert schema == NAME
        heard.events.clear()

        answer = await client.call_tool("ask_model", {"prompt": "Capital of France?"})
        assert shape(answer) == done("unknown said: Paris")
        [sampled] = heard.events
        assert isinstance(sampled, SamplingRequest)
        assert sampled.messages == [SamplingMessage("user", [Text("Capital of France?")])]
        assert sampled.max_tokens == 50
        assert sampled.system_prompt == ("Be brief." if server == "sdk" else None)


async def test_the_sdks_roots_tool_gets_the_roots(sdk_http: HttpServer) -> None:
    for protocol in ("2025-11-25", "auto"):
        async with Client.http(
            sdk_http.url, protocol=protocol, roots=["file:///work", "file:///tmp"]
        ) as client:
            assert shape(await client.call_tool("roots")) == done("file:///work, file:///tmp")
