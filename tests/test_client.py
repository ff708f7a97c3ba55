"""The client, in memory and over a real stdio subprocess, against servers_client/blocks.py."""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest

from plainmcp import (
    Annotations,
    Audio,
    CallToolResult,
    Client,
    EmbeddedResource,
    Image,
    McpError,
    ResourceLink,
    Server,
    Text,
)
from plainmcp.client import ConnectionClosed, UnknownContent, parse_block, parse_call_result
from tests.servers_client.blocks import PNG, WAV, app

BLOCKS = Path(__file__).parent / "servers_client" / "blocks.py"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# The handshake revision: these tests pin what a session's initialize gives (tests/client/
# covers every revision, the default protocol="auto" included).
def memory(**kw: Any) -> AbstractAsyncContextManager[Client]:
    return Client.memory(app, **{"protocol": "2025-11-25", **kw})


def stdio(**kw: Any) -> AbstractAsyncContextManager[Client]:
    return Client.stdio(sys.executable, str(BLOCKS), **{"protocol": "2025-11-25", **kw})


@pytest.fixture(params=["memory", "stdio"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    opener: Callable[..., AbstractAsyncContextManager[Client]] = (
        memory if request.param == "memory" else stdio
    )
    async with opener() as c:
        yield c


pytestmark = pytest.mark.anyio


async def test_handshake(client: Client) -> None:
    assert client.protocol_version == "2025-11-25"
    assert client.server_info.name == "blocks"
    assert client.server_info.version == "1.2.3"
    assert client.server_info.title == "Blocks"
    assert client.instructions == "Test tools."
    assert client.capabilities == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
    }
    await client.ping()


async def test_list_tools_follows_pages(client: Client) -> None:
    # page_size=2 on the server: five pages for nine tools.
    tools = await client.list_tools()
    assert [t.name for t in tools] == list(app.tools)
    add = tools[0]
    assert add.description == "Add two integers."
    assert add.input_schema["required"] == ["a", "b"]
    assert add.output_schema is not None
    assert tools[1].title == "Divide"


async def test_text_and_structured(client: Client) -> None:
    result = await client.call_tool("add", {"a": 2, "b": 3})
    assert result == CallToolResult(content=[Text("5")], structured={"result": 5})
    assert result.text == "5"
    assert result.raw["isError"] is False


async def test_image_block(client: Client) -> None:
    result = await client.call_tool("image")
    caption, image = result.content
    assert caption == Text("A red pixel")
    assert isinstance(image, Image)
    assert image.data == PNG
    assert image.mime_type == "image/png"
    assert image.annotations == Annotations(audience="user", priority=0.5)
    assert image.meta == {"k": 1}
    assert result.text == "A red pixel"


async def test_audio_block(client: Client) -> None:
    result = await client.call_tool("audio")
    assert result.content == [Audio(WAV, mime_type="audio/wav")]


async def test_embedded_resources(client: Client) -> None:
    result = await client.call_tool("resources")
    assert result.content == [
        EmbeddedResource(uri="file:///notes.txt", text="hello", mime_type="text/plain"),
        EmbeddedResource(
            uri="file:///data.bin", blob=b"\x00\x01\x02", mime_type="application/octet-stream"
        ),
    ]


async def test_resource_link(client: Client) -> None:
    result = await client.call_tool("link")
    assert result.content == [
        ResourceLink(
            uri="https://example.com/report.pdf",
            name="report.pdf",
            title="Report",
            mime_type="application/pdf",
            size=1234,
        )
    ]


async def test_structured_meta_and_last_modified(client: Client) -> None:
    result = await client.call_tool("everything")
    assert result.structured == {"count": 2, "items": ["a", "b"]}
    assert result.meta == {"trace": "abc"}
    (block,) = result.content
    assert isinstance(block, Text)
    assert block.annotations == Annotations(last_modified="2025-01-02T03:04:05+00:00")


async def test_tool_failure_is_a_result(client: Client) -> None:
    result = await client.call_tool("divide", {"a": 1, "b": 0})
    assert result.is_error
    assert result.text == "Cannot divide by zero"


async def test_bad_arguments_are_a_result(client: Client) -> None:
    result = await client.call_tool("add", {"a": "x"})
    assert result.is_error
    assert "a" in result.text and "b" in result.text


async def test_protocol_errors_raise(client: Client) -> None:
    with pytest.raises(McpError) as info:
        await client.call_tool("nope")
    assert info.value.code == -32602
    assert "nope" in info.value.message
    with pytest.raises(McpError) as info:
        await client.request("no/such/method")
    assert info.value.code == -32601
    await client.ping()  # the session goes on


async def test_concurrent_calls(client: Client) -> None:
    results: dict[int, CallToolResult] = {}

    async def one(i: int) -> None:
        results[i] = await client.call_tool("slow", {"seconds": 0.3 + i / 100})

    start = time.monotonic()
    async with anyio.create_task_group() as tasks:
        for i in range(6):
            tasks.start_soon(one, i)
        await client.ping()  # not blocked by the slow calls
        assert time.monotonic() - start < 0.3
    assert time.monotonic() - start < 1.5
    assert {i: r.text for i, r in results.items()} == {
        i: f"slept {0.3 + i / 100}" for i in range(6)
    }


async def test_cancelled_call_leaves_session_usable(client: Client) -> None:
    with anyio.move_on_after(0.2) as scope:
        await client.call_tool("slow", {"seconds": 5})
    assert scope.cancelled_caught
    await client.ping()
    assert (await client.call_tool("add", {"a": 1, "b": 1})).text == "2"


@pytest.mark.parametrize("opener", [memory, stdio])
async def test_older_revision(opener: Callable[..., AbstractAsyncContextManager[Client]]) -> None:
    async with opener(protocol_version="2024-11-05") as client:
        assert client.protocol_version == "2024-11-05"
        assert client.server_info.title is None  # 2024-11-05 has no title
        result = await client.call_tool("audio")
        (block,) = result.content  # audio downgraded to an embedded blob
        assert isinstance(block, EmbeddedResource)
        assert block.blob == WAV
        assert result.structured is None


async def test_unknown_protocol_version() -> None:
    with pytest.raises(ValueError, match="protocol must be 'auto' or one of 2024-11-05, "):
        async with memory(protocol_version="1999-01-01"):
            pass


async def test_server_that_exits_raises_connection_closed(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys; sys.stdin.readline(); sys.exit(3)\n")
    with pytest.raises(ConnectionClosed) as info:
        async with Client.stdio(sys.executable, str(script)):
            pass
    assert info.value.returncode == 3
    assert info.value.code == -32000


async def test_server_stderr_passes_through(capfd: pytest.CaptureFixture[str]) -> None:
    server = Path(__file__).parent / "servers_client" / "noisy.py"
    # Through `plainmcp run`, so the print at import goes to stderr too.
    args = ("-m", "plainmcp", "run", str(server))
    async with Client.stdio(sys.executable, *args, env={"NOISY_GREETING": "hi"}) as client:
        result = await client.call_tool("shout", {"text": "hey"})
    assert result.text == "HEY"
    err = capfd.readouterr().err
    assert "imported noisy (hi)" in err
    assert "shouting hey" in err


async def test_memory_client_sees_tools_added_later() -> None:
    server = Server("dynamic", continuation=None)
    async with Client.memory(server) as client:
        assert await client.list_tools() == []
        server.add_tool(lambda: "ok", name="late")
        assert [t.name for t in await client.list_tools()] == ["late"]
        assert (await client.call_tool("late")).text == "ok"


# --- parsing without a server --------------------------------------------------------------


def test_unknown_block_type_is_kept() -> None:
    block = parse_block({"type": "hologram", "frames": 3, "_meta": {"x": 1}})
    assert isinstance(block, UnknownContent)
    assert block.type == "hologram"
    assert block.data["frames"] == 3
    assert block.meta == {"x": 1}


def test_image_whose_type_disagrees_with_its_bytes_is_kept_as_sent() -> None:
    import base64

    block = parse_block(
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/jpeg"}
    )
    assert isinstance(block, Image)
    assert (block.data, block.mime_type) == (PNG, "image/jpeg")


@pytest.mark.parametrize(
    "wire",
    [
        {"type": "image", "data": "!!!", "mimeType": "image/png"},
        {"type": "text"},
        {"type": "resource", "resource": {"uri": "x:"}},
        {"type": "resource_link", "uri": "x:"},
        "text",
    ],
)
def test_malformed_blocks_raise(wire: Any) -> None:
    with pytest.raises(McpError, match="Invalid response from server"):
        parse_block(wire)


def test_parse_call_result_needs_content() -> None:
    with pytest.raises(McpError):
        parse_call_result({"isError": False})


async def test_server_forgets_a_closed_memory_session() -> None:
    server = Server("dynamic", continuation=None)
    async with Client.memory(server) as client:
        await client.ping()
    server.add_tool(lambda: "ok", name="late")  # must not post to the finished session
    with pytest.raises(ConnectionClosed):
        await client.ping()
