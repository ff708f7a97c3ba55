"""The rest of the client's surface: resources, templates, prompts, completion, subscriptions,
ping and pagination, against examples/everything_server.py in every handshake revision, and
replies a server should not send."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest

from plainmcp import EmbeddedResource, Image, Text
from plainmcp.client import (
    Client,
    Completion,
    McpError,
    Page,
    PromptArgumentInfo,
    PromptInfo,
    ResourceInfo,
    ResourceTemplateInfo,
)
from plainmcp.prompts import Message, PromptResult
from plainmcp.resource_contents import Contents
from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, REVISIONS
from tests.servers_client.blocks import app as blocks

pytestmark = pytest.mark.anyio

EVERYTHING = Path(__file__).parents[2] / "examples" / "everything_server.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("client_surface_everything", EVERYTHING)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


everything = _load()
SKILL = EVERYTHING.parent / "skills" / "release-notes"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=HANDSHAKE_VERSIONS)
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    async with Client.memory(everything.app, protocol_version=request.param) as c:
        assert c.protocol_version == request.param
        yield c


def titled(client: Client, title: str) -> str | None:
    """The title a resource or prompt has at the session's revision (None where it has none)."""
    return title if "title" in REVISIONS[client.protocol_version].resource_fields else None


async def test_list_resources(client: Client) -> None:
    assert await client.list_resources() == [
        ResourceInfo(
            uri="test://static-text",
            name="static-text",
            title=titled(client, "Static Text Resource"),
            description="A static text resource for testing",
            mime_type="text/plain",
            size=48,
        ),
        ResourceInfo(
            uri="test://static-binary",
            name="static-binary",
            title=titled(client, "Static Binary Resource"),
            description="A static binary resource (a PNG image) for testing",
            mime_type="image/png",
            size=len(everything.PNG),
        ),
        ResourceInfo(
            uri="test://watched-resource",
            name="watched-resource",
            title=titled(client, "Watched Resource"),
            description="A resource clients can subscribe to for updates",
            mime_type="text/plain",
        ),
        # The skill files (plainmcp.skills), ordinary resources to any client.
        ResourceInfo(
            uri="skill://release-notes/SKILL.md",
            name="release-notes",
            description=everything.skills.skills[0].description,
            mime_type="text/markdown",
            size=len((SKILL / "SKILL.md").read_bytes()),
        ),
        ResourceInfo(
            uri="skill://release-notes/references/STYLE.md",
            name="release-notes/references/STYLE.md",
            mime_type="text/markdown",
            size=len((SKILL / "references" / "STYLE.md").read_bytes()),
        ),
    ]


async def test_list_resource_templates(client: Client) -> None:
    assert await client.list_resource_templates() == [
        ResourceTemplateInfo(
            uri_template="test://template/{id}/data",
            name="template",
            title=titled(client, "Resource Template"),
            description="A resource template with parameter substitution",
            mime_type="application/json",
        )
    ]


async def test_read_text_bytes_and_a_template(client: Client) -> None:
    text = await client.read_resource("test://static-text")
    binary = await client.read_resource("test://static-binary")
    templated = await client.read_resource("test://template/7/data")
    assert text.contents == [
        Contents(
            uri="test://static-text",
            text="This is the content of the static text resource.",
            mime_type="text/plain",
        )
    ]
    assert text.text == "This is the content of the static text resource."
    assert binary.contents == [
        Contents(uri="test://static-binary", blob=everything.PNG, mime_type="image/png")
    ]
    assert binary.text == ""
    assert orjson.loads(templated.text) == {
        "id": "7",
        "templateTest": True,
        "data": "Data for ID: 7",
    }
    assert templated.contents[0].mime_type == "application/json"


async def test_list_prompts(client: Client) -> None:
    prompts = await client.list_prompts()
    assert [p.name for p in prompts] == [
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
    ]
    assert prompts[1] == PromptInfo(
        name="test_prompt_with_arguments",
        description="A prompt with two required arguments.",
        arguments=(
            PromptArgumentInfo(name="arg1", description="First test argument.", required=True),
            PromptArgumentInfo(name="arg2", description="Second test argument.", required=True),
        ),
    )


async def test_get_prompt_gives_typed_messages(client: Client) -> None:
    with_arguments = await client.get_prompt(
        "test_prompt_with_arguments", {"arg1": "a", "arg2": "b"}
    )
    embedded = await client.get_prompt(
        "test_prompt_with_embedded_resource", {"resourceUri": "test://x"}
    )
    image = await client.get_prompt("test_prompt_with_image")
    assert with_arguments == PromptResult(
        (Message("user", "Prompt with arguments: arg1='a', arg2='b'"),),
        description="A prompt with two required arguments.",
    )
    assert embedded.messages == (
        Message(
            "user",
            EmbeddedResource(
                uri="test://x",
                text="Embedded resource content for testing.",
                mime_type="text/plain",
            ),
        ),
        Message("user", Text("Please process the embedded resource above.")),
    )
    assert image.messages == (
        Message("user", Image(everything.PNG, mime_type="image/png")),
        Message("user", "Please analyze the image above."),
    )


async def test_complete_prompt_and_template_arguments(client: Client) -> None:
    assert await client.complete("arg1", "test", prompt="test_prompt_with_arguments") == Completion(
        values=["testValue1", "testValue2"], total=2, has_more=False
    )
    assert await client.complete(
        "id", "1", resource_template="test://template/{id}/data", context={"other": "x"}
    ) == Completion(values=["1", "123"], total=2, has_more=False)
    with pytest.raises(TypeError, match="exactly one of prompt= or resource_template="):
        await client.complete("id", "1")


async def test_subscribe_unsubscribe_and_ping(client: Client) -> None:
    await client.subscribe("test://watched-resource")
    await client.unsubscribe("test://watched-resource")
    await client.ping()
    with pytest.raises(McpError) as caught:
        await client.read_resource("test://nope")
    assert (caught.value.code, caught.value.data) == (
        REVISIONS[client.protocol_version].resource_not_found,
        {"uri": "test://nope"},
    )


async def test_the_cursor_api_walks_the_pages_list_tools_reads() -> None:
    async with Client.memory(blocks) as client:
        pages: list[Page[Any]] = []
        cursor: str | None = None
        while True:
            page = await client.page("tools/list", cursor)
            pages.append(page)
            cursor = page.next_cursor
            if cursor is None:
                break
        every = await client.list_tools()
    assert [[t.name for t in p.items] for p in pages] == [
        list(blocks.tools)[i : i + 2] for i in range(0, len(blocks.tools), 2)
    ]
    assert [t for p in pages for t in p.items] == every
    with pytest.raises(ValueError, match="page\\(\\) lists one of tools/list"):
        await client.page("tools/call")  # type: ignore[call-overload]


# --- replies a server should not send ----------------------------------------------------------


@asynccontextmanager
async def scripted(answer: Callable[[str, Any], Any]) -> AsyncIterator[Client]:
    """A client whose "server" answers each request with `answer(method, params)`'s result."""
    async with anyio.create_task_group() as tasks:
        client: Client | None = None

        async def send(data: bytes) -> None:
            message = orjson.loads(data)
            if "id" in message:
                result = answer(message["method"], message.get("params"))
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
                assert client is not None
                client._receive(orjson.dumps(reply))

        client = Client(send, tasks)
        yield client
        tasks.cancel_scope.cancel()


async def test_a_repeated_cursor_raises_instead_of_looping() -> None:
    async with scripted(lambda method, params: {"prompts": [], "nextCursor": "again"}) as client:
        with pytest.raises(McpError) as caught:
            await client.list_prompts()
    assert caught.value.message == (
        "Invalid response from server: prompts/list returned a repeated cursor 'again'"
    )


@pytest.mark.parametrize(
    ("method", "result", "message"),
    [
        ("list_resources", {"resources": {}}, "resources/list result without a resources array"),
        ("list_resources", {"resources": [{"name": "x"}]}, "a resource must have a uri"),
        ("list_prompts", {"prompts": [{}]}, "a prompt must be an object with a name"),
        (
            "list_resource_templates",
            {"resourceTemplates": [], "nextCursor": 3},
            "resources/templates/list returned an invalid cursor 3",
        ),
        ("read", {"contents": [{"uri": "x:", "blob": "!!"}]}, "resource blob is not valid"),
        (
            "read",
            {"contents": [{"uri": "x:"}]},
            "resource contents of 'x:': Contents needs exactly one of text= or blob=",
        ),
        (
            "prompt",
            {"messages": [{"role": "system", "content": {"type": "text", "text": "hi"}}]},
            "a message role is 'user' or 'assistant', not 'system'",
        ),
        ("prompt", {}, "prompts/get result without a messages array"),
        (
            "complete",
            {"completion": {"values": [1]}},
            "completion/complete result without a completion.values string array",
        ),
    ],
)
async def test_malformed_results_raise(method: str, result: Any, message: str) -> None:
    async with scripted(lambda _method, _params: result) as client:
        calls = {
            "list_resources": client.list_resources,
            "list_prompts": client.list_prompts,
            "list_resource_templates": client.list_resource_templates,
            "read": lambda: client.read_resource("x:"),
            "prompt": lambda: client.get_prompt("p"),
            "complete": lambda: client.complete("a", "", prompt="p"),
        }
        with pytest.raises(McpError) as caught:
            await calls[method]()
    assert caught.value.message.startswith(f"Invalid response from server: {message}")


async def test_a_completion_without_total_says_so() -> None:
    async with scripted(lambda method, params: {"completion": {"values": ["a"]}}) as client:
        assert await client.complete("x", "", prompt="p") == Completion(["a"], None, False)
