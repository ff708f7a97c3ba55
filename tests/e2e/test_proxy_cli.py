"""`plainmcp proxy` as a real subprocess: a command after `--` (its own options kept) served
over stdio, a URL served over Streamable HTTP (--http), and the usage errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from plainmcp import Client, Text
from plainmcp.cli import main
from tests.http_server import http_server

pytestmark = pytest.mark.anyio

SDK = Path(__file__).parents[1] / "client" / "servers" / "sdk_tools.py"
UPSTREAM = Path(__file__).parent / "servers" / "proxy_upstream.py"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_command_is_proxied_over_stdio() -> None:
    proxy = ["-m", "plainmcp", "proxy", "--name", "front", "--", sys.executable, "-u", str(SDK)]
    async with Client.stdio(sys.executable, *proxy, "stdio") as client:
        assert client.server_info.name == "front"
        names = [t.name for t in await client.list_tools()]
        assert names == ["add", "count", "greet", "ask_model", "roots", "read_more"]
        added = await client.call_tool("add", {"a": 20, "b": 22})
        assert (added.content, added.structured) == ([Text("42")], {"result": 42})


async def test_a_url_is_proxied_over_http() -> None:
    with (
        http_server(UPSTREAM) as upstream,
        http_server(upstream.url, "--name", "front", command="proxy") as served,
    ):
        async with Client.http(served.url) as client:
            assert client.server_info.name == "front"
            names = [t.name for t in await client.list_tools()]
            assert names == ["pid", "hold", "die", "read_more"]
            pid = (await client.call_tool("pid")).structured
            assert pid == upstream.proc.pid


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["http://a/mcp", "http://b/mcp"], "give one URL, or a command after --\n"),
        ([], "give the upstream: a URL, or -- COMMAND ARGS...\n"),
        (
            ["--", "missing.py"],
            "missing.py is not a command (not found on PATH, nor executable)\n",
        ),
        (["--port", "9", "--", sys.executable], "--port needs --http\n"),
    ],
)
def test_usage_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proxy", *argv]) == 2
    assert capsys.readouterr().err == f"plainmcp proxy: {message}"
