"""The official Python SDK client (PyPI `mcp`, legacy handshake) against the conformance fixtures.

examples/everything_server.py is spawned over stdio and driven the way the conformance suite
drives it, but every output is compared exactly (the suite's own checks are weak, see
../shared/conformance.md §6.5): every tool, resource, template and prompt, completion, progress
and log notifications, and the server's elicitation and sampling requests answered by the SDK's
callbacks. A second server process (the fixture plus one tool, with a short client-request
timeout) covers resource-updated notifications, an elicitation nobody answers and a client
without the sampling capability. Last, the same surface in-process once per handshake revision,
with every message the server writes validated against that revision's official schema.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CreateMessageResult,
    ElicitResult,
    ErrorData,
    LoggingMessageNotificationParams,
    ProgressNotification,
    PromptReference,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    TextContent,
)

from tests.conftest import HANDSHAKE_REVISIONS, Session
from tests.interop.conftest import EXACT_CLIENT, ROOT, check_png, check_wav

pytestmark = [
    pytest.mark.anyio,
    # subscribe, logging/setLevel and ping are handshake-era methods the SDK flags as deprecated.
    # (Not pytest.warns: its failure is a BaseException, and one raised inside `async with Client`
    # leaves the SDK's stdio teardown waiting forever.)
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

EVERYTHING = ROOT / "examples" / "everything_server.py"

TOOL_NAMES = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_error_handling",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "json_schema_2020_12_tool",
]
PROMPT_NAMES = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
]
# The 2026-07-28 fixtures, listed after the ones above (tests/test_everything_fixtures.py).
LISTED_TOOL_NAMES = [
    *TOOL_NAMES,
    "test_missing_capability",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_x_mcp_header",
    "test_reconnection",
    # The tasks fixtures (SEP-2663), after those.
    "greet",
    "slow_compute",
    "failing_job",
    "protocol_error_job",
    "confirm_delete",
    "multi_input",
    "test_tool_with_task",
]
LISTED_PROMPT_NAMES = [*PROMPT_NAMES, "test_input_required_result_prompt"]
INPUT_REQUIRED_PROMPT = {
    "name": "test_input_required_result_prompt",
    "description": (
        "A prompt that needs the user's input first (an input-required result at 2026-07-28)."
    ),
    "arguments": [],
}
JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "address",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
    "allOf": [{"anyOf": [{"required": ["name"]}, {"required": ["address"]}, {"maxProperties": 0}]}],
    "if": {"required": ["address"]},
    "then": {"properties": {"address": {"type": "object"}}},
    "else": {"properties": {"name": {"type": "string"}}},
}
SAMPLED_TEXT = "This is a test response from the client"
"""What the conformance harness's sampling answer says."""
USER = {"username": "testuser", "email": "test@example.com"}
"""What the conformance harness's elicitation answer holds."""


# --- the client side: callbacks that record what the server sent -------------------------------


@dataclass
class Peer:
    """What the client received, and how its callbacks answer the server's requests."""

    logs: list[dict[str, Any]] = field(default_factory=list)
    progress: list[tuple[float, float | None, str | None]] = field(default_factory=list)
    notifications: list[Any] = field(default_factory=list)
    sampling: list[dict[str, Any]] = field(default_factory=list)
    elicitations: list[dict[str, Any]] = field(default_factory=list)
    elicit_answer: ElicitResult | ErrorData | None = None
    """None: never answer (the callback waits until the server gives up)."""

    def reset(self) -> None:
        for seen in (
            self.logs,
            self.progress,
            self.notifications,
            self.sampling,
            self.elicitations,
        ):
            seen.clear()
        self.elicit_answer = ElicitResult(action="accept", content=dict(USER))

    async def on_log(self, params: LoggingMessageNotificationParams) -> None:
        self.logs.append(params.model_dump(mode="json", by_alias=True, exclude_unset=True))

    async def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.progress.append((progress, total, message))

    async def on_message(self, message: Any) -> None:
        self.notifications.append(message)

    async def on_sampling(self, context: Any, params: Any) -> CreateMessageResult:
        self.sampling.append(params.model_dump(mode="json", by_alias=True, exclude_unset=True))
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=SAMPLED_TEXT),
            model="test-model",
            stop_reason="endTurn",
        )

    async def on_elicitation(self, context: Any, params: Any) -> ElicitResult | ErrorData:
        self.elicitations.append(params.model_dump(mode="json", by_alias=True, exclude_unset=True))
        if self.elicit_answer is None:
            await anyio.sleep_forever()
        assert self.elicit_answer is not None
        return self.elicit_answer


async def eventually(check: Callable[[], bool], what: str, timeout: float = 3.0) -> None:
    """Wait until `check()` holds: SDK callbacks may run just after the call's result arrives."""
    with anyio.move_on_after(timeout):
        while not check():
            await anyio.sleep(0.01)
    assert check(), f"timed out waiting for {what}"


@pytest.fixture(scope="module")
def peer() -> Peer:
    return Peer()


@pytest.fixture(scope="module")
async def client(peer: Peer) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=[str(EVERYTHING)])
    async with Client(
        params,
        mode="legacy",
        read_timeout_seconds=30,
        sampling_callback=peer.on_sampling,
        elicitation_callback=peer.on_elicitation,
        logging_callback=peer.on_log,
        message_handler=peer.on_message,
        client_info=EXACT_CLIENT,
    ) as connected:
        yield connected


@pytest.fixture(autouse=True)
def fresh(peer: Peer) -> None:
    peer.reset()


def wire(model: Any) -> dict[str, Any]:
    """A message's params or result as it went over the wire.

    Only the fields the server sent: the SDK fills in defaults of later revisions (resultType,
    ttlMs, cacheScope, an elicitation's mode), which exclude_unset leaves out.
    """
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


# --- listing -----------------------------------------------------------------------------------


async def test_handshake(client: Client) -> None:
    assert client.protocol_version == "2025-11-25"
    assert client.server_info is not None
    assert (client.server_info.name, client.server_info.version) == ("plainmcp-everything", "0.1.0")
    capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_unset=True)
    assert capabilities == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": True},
        "completions": {},
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
    }


async def test_list_tools(client: Client) -> None:
    listed = await client.list_tools()
    assert listed.next_cursor is None
    assert [tool.name for tool in listed.tools] == LISTED_TOOL_NAMES
    tools = {tool.name: tool for tool in listed.tools}
    for tool in listed.tools:
        assert tool.description, tool.name  # tools-list fails on an empty description
        assert tool.output_schema is None, tool.name
    no_arguments = {"type": "object", "properties": {}, "additionalProperties": False}
    for name in TOOL_NAMES:
        if name not in ("test_sampling", "test_elicitation", "json_schema_2020_12_tool"):
            assert tools[name].input_schema == no_arguments, name
    assert tools["test_sampling"].input_schema == {
        "type": "object",
        "properties": {
            "prompt": {"type": "string", "description": "The prompt to send to the client's model."}
        },
        "required": ["prompt"],
        "additionalProperties": False,
    }
    assert tools["test_elicitation"].input_schema == {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "The message to show the user."}
        },
        "required": ["message"],
        "additionalProperties": False,
    }
    # Verbatim: $schema, $defs, the $ref and additionalProperties survive (SEP-1613).
    assert tools["json_schema_2020_12_tool"].input_schema == JSON_SCHEMA_2020_12
    assert list(tools["json_schema_2020_12_tool"].input_schema) == list(JSON_SCHEMA_2020_12)


async def test_list_resources(client: Client) -> None:
    listed = await client.list_resources()
    assert [wire(r) for r in listed.resources] == [
        {
            "uri": "test://static-text",
            "name": "static-text",
            "title": "Static Text Resource",
            "description": "A static text resource for testing",
            "mimeType": "text/plain",
            "size": len("This is the content of the static text resource."),
        },
        {
            "uri": "test://static-binary",
            "name": "static-binary",
            "title": "Static Binary Resource",
            "description": "A static binary resource (a PNG image) for testing",
            "mimeType": "image/png",
            "size": len(base64.b64decode(await _static_binary_blob(client))),
        },
        {
            "uri": "test://watched-resource",
            "name": "watched-resource",
            "title": "Watched Resource",
            "description": "A resource clients can subscribe to for updates",
            "mimeType": "text/plain",
        },
    ]
    templates = await client.list_resource_templates()
    assert [wire(t) for t in templates.resource_templates] == [
        {
            "uriTemplate": "test://template/{id}/data",
            "name": "template",
            "title": "Resource Template",
            "description": "A resource template with parameter substitution",
            "mimeType": "application/json",
        }
    ]


async def _static_binary_blob(client: Client) -> str:
    read = await client.read_resource("test://static-binary")
    blob: str = read.contents[0].blob  # type: ignore[union-attr]
    return blob


async def test_list_prompts(client: Client) -> None:
    listed = await client.list_prompts()
    assert [wire(p) for p in listed.prompts] == [
        {
            "name": "test_simple_prompt",
            "description": "A simple prompt without arguments.",
            "arguments": [],
        },
        {
            "name": "test_prompt_with_arguments",
            "description": "A prompt with two required arguments.",
            "arguments": [
                {"name": "arg1", "description": "First test argument.", "required": True},
                {"name": "arg2", "description": "Second test argument.", "required": True},
            ],
        },
        {
            "name": "test_prompt_with_embedded_resource",
            "description": "A prompt that includes an embedded resource.",
            "arguments": [
                {
                    "name": "resourceUri",
                    "description": "URI of the resource to embed.",
                    "required": True,
                }
            ],
        },
        {
            "name": "test_prompt_with_image",
            "description": "A prompt that includes image content.",
            "arguments": [],
        },
        INPUT_REQUIRED_PROMPT,
    ]
    assert [p["name"] for p in map(wire, listed.prompts)] == LISTED_PROMPT_NAMES


# --- tools: content ----------------------------------------------------------------------------

MIXED_JSON = '{"test":"data","value":123}'


async def test_simple_text_without_arguments(client: Client) -> None:
    """The suite calls test_simple_text with no `arguments` key at all."""
    result = await client.call_tool("test_simple_text")
    assert wire(result) == text_result("This is a simple text response for testing.")


async def test_image_content(client: Client) -> None:
    result = wire(await client.call_tool("test_image_content", {}))
    assert result["isError"] is False
    [block] = result["content"]
    assert block == {"type": "image", "data": block["data"], "mimeType": "image/png"}
    width, height, rows = check_png(block["data"])
    assert (width, height, rows) == (1, 1, [b"\xff\x00\x00"])


async def test_audio_content(client: Client) -> None:
    result = wire(await client.call_tool("test_audio_content", {}))
    assert result["isError"] is False
    [block] = result["content"]
    assert block == {"type": "audio", "data": block["data"], "mimeType": "audio/wav"}
    assert check_wav(block["data"]) == (1, 2, 8000, 80)  # mono, 16-bit, 8 kHz, 10 ms


async def test_embedded_resource(client: Client) -> None:
    result = await client.call_tool("test_embedded_resource", {})
    assert wire(result) == {
        "content": [
            {
                "type": "resource",
                "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content.",
                },
            }
        ],
        "isError": False,
    }


async def test_multiple_content_types(client: Client) -> None:
    result = wire(await client.call_tool("test_multiple_content_types", {}))
    png = result["content"][1].get("data", "")
    assert result == {
        "content": [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": png, "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": MIXED_JSON,
                },
            },
        ],
        "isError": False,
    }
    assert check_png(png) == (1, 1, [b"\xff\x00\x00"])
    assert json.loads(MIXED_JSON) == {"test": "data", "value": 123}


async def test_error_handling_is_a_result(client: Client) -> None:
    """An isError tool result, not a JSON-RPC error."""
    result = await client.call_tool("test_error_handling", {})
    assert wire(result) == text_result(
        "This tool intentionally returns an error for testing", is_error=True
    )


async def test_json_schema_2020_12_tool(client: Client) -> None:
    args = {"name": "Ada", "address": {"street": "1 Main St", "city": "London"}}
    result = await client.call_tool("json_schema_2020_12_tool", args)
    assert wire(result) == text_result(
        'JSON Schema 2020-12 tool called with: {"name":"Ada",'
        '"address":{"street":"1 Main St","city":"London"}}'
    )
    # The verbatim schema is also the one arguments are checked against.
    refused = await client.call_tool("json_schema_2020_12_tool", {"name": "Ada", "age": 36})
    assert wire(refused) == text_result(
        "Invalid arguments for tool 'json_schema_2020_12_tool':\n"
        "- (arguments): Additional properties are not allowed ('age' was unexpected)",
        is_error=True,
    )
    wrong = await client.call_tool("json_schema_2020_12_tool", {"address": {"city": 7}})
    assert wire(wrong) == text_result(
        "Invalid arguments for tool 'json_schema_2020_12_tool':\n"
        "- address.city: 7 is not of type 'string'",
        is_error=True,
    )


# --- tools: notifications ----------------------------------------------------------------------

LOGS = [
    {"level": "info", "data": "Tool execution started"},
    {"level": "info", "data": "Tool processing data"},
    {"level": "info", "data": "Tool execution completed"},
]


async def test_tool_with_logging(client: Client, peer: Peer) -> None:
    await client.set_logging_level("debug")
    result = await client.call_tool("test_tool_with_logging", {})
    assert wire(result) == text_result("Tool with logging executed successfully")
    await eventually(lambda: len(peer.logs) >= 3, "three log messages")
    assert peer.logs == LOGS


async def test_logging_level_filters(client: Client, peer: Peer) -> None:
    """logging/setLevel is honoured: above info, the tool's info messages are not sent."""
    await client.set_logging_level("warning")
    try:
        result = await client.call_tool("test_tool_with_logging", {})
        assert wire(result) == text_result("Tool with logging executed successfully")
        await anyio.sleep(0.2)  # what the suite waits for stray notifications
        assert peer.logs == []
    finally:
        await client.set_logging_level("info")
    await client.call_tool("test_tool_with_logging", {})
    await eventually(lambda: len(peer.logs) >= 3, "three log messages")
    assert peer.logs == LOGS


async def test_tool_with_progress_callback(client: Client, peer: Peer) -> None:
    """The SDK's progress_callback: its token is the request id, which the tool returns."""
    result = wire(
        await client.call_tool("test_tool_with_progress", {}, progress_callback=peer.on_progress)
    )
    await eventually(lambda: len(peer.progress) >= 3, "three progress notifications")
    assert peer.progress == [(0.0, 100.0, None), (50.0, 100.0, None), (100.0, 100.0, None)]
    [block] = result["content"]
    assert block["text"].isdigit()  # the SDK's integer request id, as a string
    assert result == text_result(block["text"])


async def test_tool_with_progress_token(client: Client, peer: Peer) -> None:
    """The suite's own token, sent in _meta: notifications carry it; the tool returns it."""
    result = await client.call_tool(
        "test_tool_with_progress", {}, meta={"progressToken": "progress-test-1"}
    )
    assert wire(result) == text_result("progress-test-1")
    await eventually(lambda: _count(peer, ProgressNotification) >= 3, "progress notifications")
    progress = [n for n in peer.notifications if isinstance(n, ProgressNotification)]
    assert [wire(n.params) for n in progress] == [
        {"progressToken": "progress-test-1", "progress": 0, "total": 100},
        {"progressToken": "progress-test-1", "progress": 50, "total": 100},
        {"progressToken": "progress-test-1", "progress": 100, "total": 100},
    ]


async def test_tool_without_progress_token(client: Client, peer: Peer) -> None:
    result = await client.call_tool("test_tool_with_progress", {})
    assert wire(result) == text_result("No progress token was given")
    await anyio.sleep(0.1)
    assert _count(peer, ProgressNotification) == 0
    assert peer.progress == []


def _count(peer: Peer, kind: type) -> int:
    return sum(isinstance(n, kind) for n in peer.notifications)


# --- tools: sampling and elicitation -----------------------------------------------------------


async def test_sampling(client: Client, peer: Peer) -> None:
    result = await client.call_tool("test_sampling", {"prompt": "Test prompt for sampling"})
    assert wire(result) == text_result(f"LLM response: {SAMPLED_TEXT}")
    assert peer.sampling == [
        {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}
            ],
            "maxTokens": 100,
        }
    ]


async def test_elicitation_accept(client: Client, peer: Peer) -> None:
    message = "Please provide your information"
    result = await client.call_tool("test_elicitation", {"message": message})
    assert wire(result) == text_result(
        'User response: action=accept, content={"username":"testuser","email":"test@example.com"}'
    )
    [asked] = peer.elicitations
    assert asked == {
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "The user's name"},
                "email": {"type": "string", "description": "The user's email address"},
            },
            "required": ["username", "email"],
        },
    }


async def test_elicitation_decline(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="decline")
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert wire(result) == text_result("User response: action=decline, content={}")


async def test_elicitation_cancel(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="cancel")
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert wire(result) == text_result("User response: action=cancel, content={}")


async def test_elicitation_error_answer(client: Client, peer: Peer) -> None:
    """The client answers the elicitation with a JSON-RPC error: the tool says so."""
    peer.elicit_answer = ErrorData(code=-32603, message="the user closed the window")
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert wire(result) == text_result(
        "Elicitation failed: the user closed the window", is_error=True
    )


async def test_elicitation_sep1034_defaults(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="accept", content={"name": "Ada", "age": 36})
    result = await client.call_tool("test_elicitation_sep1034_defaults", {})
    assert wire(result) == text_result(
        'Elicitation completed: action=accept, content={"name":"Ada","age":36}'
    )
    [asked] = peer.elicitations
    assert asked["message"] == "Please review and update the form fields with defaults"
    properties = asked["requestedSchema"]["properties"]
    assert {name: (p["type"], p["default"]) for name, p in properties.items()} == {
        "name": ("string", "John Doe"),
        "age": ("integer", 30),
        "score": ("number", 95.5),
        "status": ("string", "active"),
        "verified": ("boolean", True),
    }
    assert properties["status"]["enum"] == ["active", "inactive", "pending"]


async def test_elicitation_sep1330_enums(client: Client, peer: Peer) -> None:
    answer = {"untitledSingle": "option2", "titledMulti": ["value1", "value3"]}
    peer.elicit_answer = ElicitResult(action="accept", content=answer)
    result = await client.call_tool("test_elicitation_sep1330_enums", {})
    assert wire(result) == text_result(
        'Elicitation completed: action=accept, content={"untitledSingle":"option2",'
        '"titledMulti":["value1","value3"]}'
    )
    [asked] = peer.elicitations
    assert asked["message"] == "Please select options from the enum fields"
    p = asked["requestedSchema"]["properties"]
    assert list(p) == [
        "untitledSingle",
        "titledSingle",
        "legacyEnum",
        "untitledMulti",
        "titledMulti",
    ]
    assert p["untitledSingle"]["type"] == "string"
    assert p["untitledSingle"]["enum"] == ["option1", "option2", "option3"]
    assert "oneOf" not in p["untitledSingle"] and "enumNames" not in p["untitledSingle"]
    assert p["titledSingle"]["type"] == "string" and "enum" not in p["titledSingle"]
    assert [(o["const"], o["title"]) for o in p["titledSingle"]["oneOf"]] == [
        ("value1", "First Option"),
        ("value2", "Second Option"),
        ("value3", "Third Option"),
    ]
    assert p["legacyEnum"]["enum"] == ["opt1", "opt2", "opt3"]
    assert p["legacyEnum"]["enumNames"] == ["Option One", "Option Two", "Option Three"]
    assert p["untitledMulti"]["type"] == "array"
    assert p["untitledMulti"]["items"] == {
        "type": "string",
        "enum": ["option1", "option2", "option3"],
    }
    assert p["titledMulti"]["type"] == "array" and "enum" not in p["titledMulti"]["items"]
    assert [(o["const"], o["title"]) for o in p["titledMulti"]["items"]["anyOf"]] == [
        ("value1", "First Choice"),
        ("value2", "Second Choice"),
        ("value3", "Third Choice"),
    ]


# --- resources ---------------------------------------------------------------------------------


async def test_read_static_text(client: Client) -> None:
    read = await client.read_resource("test://static-text")
    assert wire(read) == {
        "contents": [
            {
                "uri": "test://static-text",
                "mimeType": "text/plain",
                "text": "This is the content of the static text resource.",
            }
        ]
    }


async def test_read_static_binary(client: Client) -> None:
    read = wire(await client.read_resource("test://static-binary"))
    [item] = read["contents"]
    assert item == {"uri": "test://static-binary", "mimeType": "image/png", "blob": item["blob"]}
    assert check_png(item["blob"]) == (1, 1, [b"\xff\x00\x00"])


@pytest.mark.parametrize("id_", ["123", "abc-42", "hello world"])
async def test_read_template(client: Client, id_: str) -> None:
    uri = f"test://template/{id_.replace(' ', '%20')}/data"
    read = await client.read_resource(uri)
    [item] = wire(read)["contents"]
    assert item == {
        "uri": uri,
        "mimeType": "application/json",
        "text": json.dumps(
            {"id": id_, "templateTest": True, "data": f"Data for ID: {id_}"},
            separators=(",", ":"),
        ),
    }


async def test_read_unknown_resource(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.read_resource("test://nonexistent-resource-for-conformance-testing")
    assert caught.value.error.code == -32002
    assert caught.value.error.message == (
        "Resource not found: test://nonexistent-resource-for-conformance-testing"
    )


async def test_read_template_path_traversal(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.read_resource("test://template/..%2F..%2Fetc/data")
    assert caught.value.error.code == -32002


async def test_subscribe_unsubscribe(client: Client) -> None:
    subscribed = await client.subscribe_resource("test://watched-resource")
    assert wire(subscribed) == {}
    read = await client.read_resource("test://watched-resource")
    assert wire(read) == {
        "contents": [
            {
                "uri": "test://watched-resource",
                "mimeType": "text/plain",
                "text": "Watched resource content",
            }
        ]
    }
    unsubscribed = await client.unsubscribe_resource("test://watched-resource")
    assert wire(unsubscribed) == {}


# --- prompts -----------------------------------------------------------------------------------


async def test_simple_prompt(client: Client) -> None:
    got = await client.get_prompt("test_simple_prompt")
    assert wire(got) == {
        "description": "A simple prompt without arguments.",
        "messages": [
            {
                "role": "user",
                "content": {"type": "text", "text": "This is a simple prompt for testing."},
            }
        ],
    }


async def test_prompt_with_arguments(client: Client) -> None:
    got = await client.get_prompt(
        "test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"}
    )
    assert wire(got) == {
        "description": "A prompt with two required arguments.",
        "messages": [
            {
                "role": "user",
                "content": {
                    "type": "text",
                    "text": "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
                },
            }
        ],
    }


async def test_prompt_missing_argument(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.get_prompt("test_prompt_with_arguments", {"arg1": "only one"})
    assert caught.value.error.code == -32602
    assert caught.value.error.message == (
        "Invalid arguments for prompt 'test_prompt_with_arguments':\n"
        "- arg2: required argument missing"
    )


async def test_prompt_with_embedded_resource(client: Client) -> None:
    got = await client.get_prompt(
        "test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}
    )
    assert wire(got) == {
        "description": "A prompt that includes an embedded resource.",
        "messages": [
            {
                "role": "user",
                "content": {
                    "type": "resource",
                    "resource": {
                        "uri": "test://example-resource",
                        "mimeType": "text/plain",
                        "text": "Embedded resource content for testing.",
                    },
                },
            },
            {
                "role": "user",
                "content": {"type": "text", "text": "Please process the embedded resource above."},
            },
        ],
    }


async def test_prompt_with_image(client: Client) -> None:
    got = wire(await client.get_prompt("test_prompt_with_image"))
    png = got["messages"][0]["content"].get("data", "")
    assert got == {
        "description": "A prompt that includes image content.",
        "messages": [
            {"role": "user", "content": {"type": "image", "data": png, "mimeType": "image/png"}},
            {
                "role": "user",
                "content": {"type": "text", "text": "Please analyze the image above."},
            },
        ],
    }
    assert check_png(png) == (1, 1, [b"\xff\x00\x00"])


# --- completion --------------------------------------------------------------------------------


async def test_complete_prompt_argument(client: Client) -> None:
    """What the suite's completion-complete scenario sends."""
    ref = PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
    done = await client.complete(ref, {"name": "arg1", "value": "test"})
    assert wire(done) == {
        "completion": {"values": ["testValue1", "testValue2"], "total": 2, "hasMore": False}
    }
    narrowed = await client.complete(ref, {"name": "arg2", "value": "testValue2"})
    assert narrowed.completion.values == ["testValue2"]


async def test_complete_argument_without_completer(client: Client) -> None:
    ref = PromptReference(type="ref/prompt", name="test_prompt_with_embedded_resource")
    done = await client.complete(ref, {"name": "resourceUri", "value": "test://"})
    assert wire(done) == {"completion": {"values": [], "total": 0, "hasMore": False}}


async def test_complete_template_variable(client: Client) -> None:
    ref = ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data")
    done = await client.complete(ref, {"name": "id", "value": "1"})
    assert wire(done) == {"completion": {"values": ["1", "123"], "total": 2, "hasMore": False}}
    everything = await client.complete(ref, {"name": "id", "value": ""})
    assert everything.completion.values == ["1", "2", "3", "123"]


async def test_complete_unknown_argument(client: Client) -> None:
    ref = PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
    with pytest.raises(MCPError) as caught:
        await client.complete(ref, {"name": "arg3", "value": ""})
    assert caught.value.error.code == -32602
    assert (
        caught.value.error.message == "Prompt 'test_prompt_with_arguments' has no argument 'arg3'"
    )


async def test_ping(client: Client) -> None:
    assert wire(await client.send_ping()) == {}


# --- a second process: updates, an unanswered elicitation, a client without sampling -----------

HARNESS = textwrap.dedent(
    """
    import sys

    sys.path.insert(0, {examples!r})
    from everything_server import WATCHED, app

    app.client_request_timeout = 0.3


    @app.tool
    def touch_watched(text: str) -> str:
        \"\"\"Change the watched resource and tell its subscribers.\"\"\"
        WATCHED["text"] = text
        app.notify_resource_updated("test://watched-resource")
        return "updated"


    app.run()
    """
)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    script = tmp_path_factory.mktemp("everything") / "harness.py"
    script.write_text(HARNESS.format(examples=str(EVERYTHING.parent)))
    return script


async def test_updates_timeout_and_missing_capability(harness: Path) -> None:
    peer = Peer()
    peer.reset()
    peer.elicit_answer = None  # never answered
    params = StdioServerParameters(command=sys.executable, args=[str(harness)])
    async with Client(
        params,
        mode="legacy",
        read_timeout_seconds=30,
        elicitation_callback=peer.on_elicitation,
        message_handler=peer.on_message,
        client_info=EXACT_CLIENT,
    ) as client:
        # notifications/resources/updated reaches a subscriber, and only while subscribed.
        await client.subscribe_resource("test://watched-resource")
        result = await client.call_tool("touch_watched", {"text": "changed once"})
        assert wire(result) == text_result("updated")
        await eventually(lambda: _count(peer, ResourceUpdatedNotification) == 1, "an update")
        [update] = [n for n in peer.notifications if isinstance(n, ResourceUpdatedNotification)]
        assert wire(update.params) == {"uri": "test://watched-resource"}
        read = await client.read_resource("test://watched-resource")
        assert read.contents[0].text == "changed once"  # type: ignore[union-attr]
        await client.unsubscribe_resource("test://watched-resource")
        await client.call_tool("touch_watched", {"text": "changed twice"})
        await anyio.sleep(0.1)
        assert _count(peer, ResourceUpdatedNotification) == 1

        # An elicitation the client never answers: the server gives up after 0.3 s.
        with anyio.fail_after(5):
            result = await client.call_tool("test_elicitation", {"message": "Anyone there?"})
        assert wire(result) == text_result(
            "Elicitation failed: the client did not answer elicitation/create within 0.3 seconds",
            is_error=True,
        )
        assert [asked["message"] for asked in peer.elicitations] == ["Anyone there?"]

        # This client has no sampling callback, so it declared no sampling capability.
        result = await client.call_tool("test_sampling", {"prompt": "hello"})
        assert wire(result) == text_result(
            "Sampling failed: the client did not declare the 'sampling' capability, so"
            " sampling/createMessage cannot be sent to it",
            is_error=True,
        )


# --- every message valid for every handshake revision (in-process, schema-checked) -------------


def _load_everything() -> Any:
    spec = importlib.util.spec_from_file_location("plainmcp_everything_server", EVERYTHING)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ANSWERS = {
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": SAMPLED_TEXT},
        "model": "test-model",
        "stopReason": "endTurn",
    },
    "elicitation/create": {"action": "accept", "content": USER},
}


async def _call_answering(s: Session, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """tools/call with a progress token, answering the server's sampling/elicitation requests."""
    since = len(s.messages)
    params = {"name": name, "arguments": arguments, "_meta": {"progressToken": f"{name}-1"}}
    call_id = await s.start("tools/call", params)

    def wanted(m: Any) -> bool:
        if not isinstance(m, dict):
            return False
        return (m.get("method") in ANSWERS and "id" in m) or (
            "method" not in m and m.get("id") == call_id
        )

    while True:
        found = await s.wait_for(wanted, since=since)
        since = next(i for i in range(since, len(s.messages)) if s.messages[i] is found) + 1
        if "method" not in found:
            assert "result" in found, found
            result: dict[str, Any] = found["result"]
            return result
        await s.send({"jsonrpc": "2.0", "id": found["id"], "result": ANSWERS[found["method"]]})


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
async def test_every_message_is_valid_at_each_revision(version: str) -> None:
    """The whole fixture surface once per handshake revision; the Session validates every
    message the server writes against that revision's official schema."""
    app = _load_everything().app
    async with Session(app) as s:
        await s.initialize(version, capabilities={"sampling": {}, "elicitation": {}})
        await s.result("logging/setLevel", {"level": "debug"})
        tools = (await s.result("tools/list"))["tools"]
        assert [t["name"] for t in tools] == LISTED_TOOL_NAMES
        assert all(t["description"] for t in tools)
        assert tools[len(TOOL_NAMES) - 1]["inputSchema"] == JSON_SCHEMA_2020_12

        results = {}
        for name in TOOL_NAMES:
            arguments = {
                "test_sampling": {"prompt": "Test prompt for sampling"},
                "test_elicitation": {"message": "Please provide your information"},
                "json_schema_2020_12_tool": {"name": "Ada"},
            }.get(name, {})
            results[name] = await _call_answering(s, name, arguments)

        def first_text(name: str) -> str:
            text: str = results[name]["content"][0]["text"]
            return text

        assert first_text("test_simple_text") == "This is a simple text response for testing."
        assert first_text("test_tool_with_logging") == "Tool with logging executed successfully"
        assert first_text("test_tool_with_progress") == "test_tool_with_progress-1"
        assert first_text("test_sampling") == f"LLM response: {SAMPLED_TEXT}"
        assert results["test_error_handling"]["isError"] is True
        # 2024-11-05 has no audio block: the WAV is an embedded blob (the documented fallback).
        audio = results["test_audio_content"]["content"][0]
        assert audio["type"] == ("resource" if version == "2024-11-05" else "audio")
        # Elicitation arrived in 2025-06-18; before it, the tools say why they cannot ask.
        for name, prefix in (
            ("test_elicitation", "User response"),
            ("test_elicitation_sep1034_defaults", "Elicitation completed"),
            ("test_elicitation_sep1330_enums", "Elicitation completed"),
        ):
            if version < "2025-11-25" and name == "test_elicitation_sep1330_enums":
                assert results[name] == text_result(
                    "test_elicitation_sep1330_enums needs protocol revision 2025-11-25 or later"
                    f" (multi-select and titled enums); this session speaks {version}",
                    is_error=True,
                )
            elif version < "2025-06-18":
                assert results[name] == text_result(
                    f"Elicitation failed: protocol revision {version} has no elicitation/create",
                    is_error=True,
                )
            else:
                content = '{"username":"testuser","email":"test@example.com"}'
                assert results[name] == text_result(f"{prefix}: action=accept, content={content}")
        assert [m["params"]["data"] for m in s.notifications("notifications/message")] == [
            log["data"] for log in LOGS
        ]
        assert [
            (m["params"]["progressToken"], m["params"]["progress"])
            for m in s.notifications("notifications/progress")
        ] == [("test_tool_with_progress-1", p) for p in (0, 50, 100)]

        assert len((await s.result("resources/list"))["resources"]) == 3
        assert len((await s.result("resources/templates/list"))["resourceTemplates"]) == 1
        for uri in (
            "test://static-text",
            "test://static-binary",
            "test://template/123/data",
            "test://watched-resource",
        ):
            [item] = (await s.result("resources/read", {"uri": uri}))["contents"]
            assert item["uri"] == uri
        assert await s.result("resources/subscribe", {"uri": "test://watched-resource"}) == {}
        assert await s.result("resources/unsubscribe", {"uri": "test://watched-resource"}) == {}

        prompts = (await s.result("prompts/list"))["prompts"]
        assert [p["name"] for p in prompts] == LISTED_PROMPT_NAMES
        assert all(p["description"] for p in prompts)
        for name, arguments in (
            ("test_simple_prompt", {}),
            ("test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"}),
            ("test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}),
            ("test_prompt_with_image", {}),
        ):
            got = await s.result("prompts/get", {"name": name, "arguments": arguments})
            assert got["messages"], name

        # 2024-11-05 has completion/complete but no capability to announce it: it is served.
        done = await s.result(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                "argument": {"name": "arg1", "value": "test"},
            },
        )
        assert done["completion"]["values"] == ["testValue1", "testValue2"]
        await s.request("ping")
    s.check()
