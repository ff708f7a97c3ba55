"""plainmcp.testing: the helpers users call from their own tests."""

from __future__ import annotations

import pytest

from plainmcp import Image, Server, ToolError
from plainmcp.testing import call, connect, list_tools
from tests.servers_client.blocks import PNG

app = Server("under-test", continuation=None)


@app.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool
def fail(arguments: str = "") -> str:
    """Always fails."""
    raise ToolError(f"failed with {arguments!r}")


@app.tool
def picture() -> Image:
    """A PNG."""
    return Image(PNG)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_call_with_keywords() -> None:
    result = call(app, "add", a=1, b=2)
    assert result.text == "3"
    assert result.structured == {"result": 3}
    assert not result.is_error


def test_call_with_a_dict_and_a_revision() -> None:
    result = call(app, "add", {"a": 1, "b": 2}, protocol_version="2024-11-05")
    assert result.text == "3"
    assert result.structured is None  # 2024-11-05 has no structured content


def test_call_tool_errors_and_argument_names() -> None:
    # A tool parameter may share a name with call()'s own positional-only parameters.
    result = call(app, "fail", arguments="x")
    assert result.is_error
    assert result.text == "failed with 'x'"


def test_call_typed_content() -> None:
    (block,) = call(app, "picture").content
    assert block == Image(PNG)


def test_list_tools() -> None:
    assert [t.name for t in list_tools(app)] == ["add", "fail", "picture"]


@pytest.mark.anyio
async def test_connect() -> None:
    async with connect(app) as client:
        assert client.server_info.name == "under-test"
        assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"
