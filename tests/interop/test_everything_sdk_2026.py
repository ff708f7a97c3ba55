"""The official Python SDK client (PyPI `mcp`) at revision 2026-07-28 against the conformance
fixtures.

examples/everything_server.py is spawned over stdio once per client mode: mode="2026-07-28"
(the version pinned, no probe) and mode="auto" (server/discover first, then 2026-07-28). Both
speak the stateless revision: no handshake, every request carries its own `_meta`, every result
carries resultType and the server's `_meta`. Every tool, resource, template and prompt is used
and compared exactly as it was on the wire (`exclude_unset`: only what the server sent).

The server's questions travel as input-required results: the tool's call ends with
`inputRequests` and a signed `requestState`, the SDK answers them through its elicitation and
sampling callbacks and retries; the tool is run again with the answer. Logging at 2026-07-28 is
opt-in per request (`_meta["io.modelcontextprotocol/logLevel"]`, which the SDK's `log_level`
stamps on every request), and progress follows the request's own progress token.

The legacy-handshake counterpart is test_everything_sdk.py.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import (
    ElicitResult,
    ErrorData,
    InputRequiredResult,
    LoggingMessageNotificationParams,
    ProgressNotification,
    PromptReference,
    RequestParamsMeta,
    ResourceTemplateReference,
)

from tests.interop.conftest import EXACT_CLIENT, check_png, check_wav
from tests.interop.test_everything_sdk import (
    EVERYTHING,
    INPUT_REQUIRED_PROMPT,
    JSON_SCHEMA_2020_12,
    LISTED_PROMPT_NAMES,
    LISTED_TOOL_NAMES,
    LOGS,
    SAMPLED_TEXT,
    TOOL_NAMES,
    USER,
    eventually,
)
from tests.interop.test_everything_sdk import Peer as LegacyPeer

pytestmark = [
    pytest.mark.anyio,
    # set_logging_level, send_ping and subscribe_resource are deprecated at 2026-07-28.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

MODERN = "2026-07-28"
MODES = [MODERN, "auto"]
SERVER_INFO = {"name": "plainmcp-everything", "version": "0.1.0"}
SERVER_META = {"io.modelcontextprotocol/serverInfo": SERVER_INFO}
LOG_LEVEL = "io.modelcontextprotocol/logLevel"

USER_INFO_SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "The user's name"},
        "email": {"type": "string", "description": "The user's email address"},
    },
    "required": ["username", "email"],
}
NOT_DECLARED = "the client did not declare the '{0}' capability, so {1} cannot be sent to it"


# --- the client side: callbacks that record what the server asked ------------------------------


@dataclass
class Peer(LegacyPeer):
    """The legacy tests' peer; here every elicitation is answered (accept, unless a test says
    otherwise), since an input-required round cannot be left waiting."""

    elicit_answer: ElicitResult | ErrorData | None = field(
        default_factory=lambda: ElicitResult(action="accept", content=dict(USER))
    )


def _params() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(EVERYTHING)])


@pytest.fixture(scope="module")
def peer() -> Peer:
    return Peer()


@pytest.fixture(scope="module", params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture(scope="module")
async def client(peer: Peer, mode: str) -> AsyncIterator[Client]:
    """One server process per mode; this client opts in to log messages at level debug."""
    async with Client(
        _params(),
        mode=mode,
        read_timeout_seconds=30,
        sampling_callback=peer.on_sampling,
        elicitation_callback=peer.on_elicitation,
        logging_callback=peer.on_log,
        message_handler=peer.on_message,
        log_level="debug",
        client_info=EXACT_CLIENT,
    ) as connected:
        yield connected


@pytest.fixture(autouse=True)
def fresh(peer: Peer) -> None:
    peer.reset()


def wire(model: Any) -> dict[str, Any]:
    """A message's params or result as it went over the wire: only the fields the server sent
    (the SDK fills in defaults, which exclude_unset leaves out)."""
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped


def complete(**fields: Any) -> dict[str, Any]:
    """A 2026-07-28 result: the server's `_meta`, the fields, resultType "complete"."""
    return {"_meta": SERVER_META, **fields, "resultType": "complete"}


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return complete(content=[{"type": "text", "text": text}], isError=is_error)


def log_level(level: str) -> RequestParamsMeta:
    """A request's own `_meta` log level (it overrides the client's `log_level`)."""
    return cast(RequestParamsMeta, {LOG_LEVEL: level})


def _count(peer: Peer, kind: type) -> int:
    return sum(isinstance(n, kind) for n in peer.notifications)


# --- the revision, server/discover, listing ----------------------------------------------------

CAPABILITY_NAMES = ["logging", "tools", "resources", "prompts", "completions", "extensions"]


async def test_protocol_version(client: Client, mode: str) -> None:
    assert client.protocol_version == MODERN
    capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
    if mode == "auto":
        # The probe's server/discover result is what the client knows of the server.
        assert client.server_info is not None
        assert wire(client.server_info) == SERVER_INFO
        assert sorted(capabilities) == sorted(CAPABILITY_NAMES)
    else:
        # Pinned, the SDK adopts a discover result it makes up itself: nothing from the server.
        assert client.server_info is None
        assert capabilities == {}


async def test_discover(client: Client) -> None:
    discovered = await client.session.send_discover(MODERN)
    capabilities = discovered.pop("capabilities")
    assert discovered == {
        "supportedVersions": [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
        "instructions": (
            "Conformance fixtures: test tools for every kind of content, logging, progress,"
            " errors, sampling and elicitation; test:// resources and a template; test prompts;"
            " and the 2026-07-28 fixtures (input-required results, list changes, a missing"
            " capability, an x-mcp-header parameter)."
        ),
        "resultType": "complete",
        "ttlMs": 60000,
        "cacheScope": "public",
        "_meta": SERVER_META,
    }
    assert sorted(capabilities) == sorted(CAPABILITY_NAMES)
    assert capabilities["logging"] == capabilities["completions"] == {}


LIST_ENVELOPE = {"_meta": SERVER_META, "ttlMs": 60000, "cacheScope": "public"}


async def test_list_tools(client: Client) -> None:
    listed = await client.list_tools()
    dumped = wire(listed)
    assert [tool["name"] for tool in dumped.pop("tools")] == LISTED_TOOL_NAMES
    assert dumped == {**LIST_ENVELOPE, "resultType": "complete"}
    tools = {tool.name: tool for tool in listed.tools}
    for tool in listed.tools:
        assert tool.description, tool.name
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
    assert tools["json_schema_2020_12_tool"].input_schema == JSON_SCHEMA_2020_12


async def test_list_resources_and_templates(client: Client) -> None:
    listed = wire(await client.list_resources())
    assert listed == {
        **LIST_ENVELOPE,
        "resources": [
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
                "size": 69,
            },
            {
                "uri": "test://watched-resource",
                "name": "watched-resource",
                "title": "Watched Resource",
                "description": "A resource clients can subscribe to for updates",
                "mimeType": "text/plain",
            },
        ],
        "resultType": "complete",
    }
    templates = wire(await client.list_resource_templates())
    assert templates == {
        **LIST_ENVELOPE,
        "resourceTemplates": [
            {
                "uriTemplate": "test://template/{id}/data",
                "name": "template",
                "title": "Resource Template",
                "description": "A resource template with parameter substitution",
                "mimeType": "application/json",
            }
        ],
        "resultType": "complete",
    }


async def test_list_prompts(client: Client) -> None:
    listed = wire(await client.list_prompts())
    assert listed == {
        **LIST_ENVELOPE,
        "prompts": [
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
        ],
        "resultType": "complete",
    }
    assert [p["name"] for p in listed["prompts"]] == LISTED_PROMPT_NAMES


# --- tools: content ----------------------------------------------------------------------------


async def test_simple_text(client: Client) -> None:
    result = await client.call_tool("test_simple_text")
    assert wire(result) == text_result("This is a simple text response for testing.")


async def test_image_content(client: Client) -> None:
    result = wire(await client.call_tool("test_image_content", {}))
    data = result["content"][0].get("data", "")
    assert result == complete(
        content=[{"type": "image", "data": data, "mimeType": "image/png"}], isError=False
    )
    assert check_png(data) == (1, 1, [b"\xff\x00\x00"])


async def test_audio_content(client: Client) -> None:
    result = wire(await client.call_tool("test_audio_content", {}))
    data = result["content"][0].get("data", "")
    assert result == complete(
        content=[{"type": "audio", "data": data, "mimeType": "audio/wav"}], isError=False
    )
    assert check_wav(data) == (1, 2, 8000, 80)


async def test_embedded_resource(client: Client) -> None:
    result = await client.call_tool("test_embedded_resource", {})
    assert wire(result) == complete(
        content=[
            {
                "type": "resource",
                "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content.",
                },
            }
        ],
        isError=False,
    )


async def test_multiple_content_types(client: Client) -> None:
    result = wire(await client.call_tool("test_multiple_content_types", {}))
    png = result["content"][1].get("data", "")
    assert result == complete(
        content=[
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": png, "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": '{"test":"data","value":123}',
                },
            },
        ],
        isError=False,
    )
    assert check_png(png) == (1, 1, [b"\xff\x00\x00"])


async def test_error_handling_is_a_result(client: Client) -> None:
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


async def test_unknown_tool(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.call_tool("no_such_tool", {})
    assert (caught.value.error.code, caught.value.error.message) == (
        -32602,
        "Unknown tool: no_such_tool",
    )


# --- tools: logging and progress ---------------------------------------------------------------


async def test_tool_with_logging(client: Client, peer: Peer) -> None:
    """The client's log_level="debug" rides in every request's _meta: the three info messages
    of this request arrive."""
    result = await client.call_tool("test_tool_with_logging", {})
    assert wire(result) == text_result("Tool with logging executed successfully")
    await eventually(lambda: len(peer.logs) >= 3, "three log messages")
    assert peer.logs == LOGS


async def test_logging_level_filters(client: Client, peer: Peer) -> None:
    """A request's own logLevel overrides the client's: above info, nothing is sent."""
    result = await client.call_tool("test_tool_with_logging", {}, meta=log_level("warning"))
    assert wire(result) == text_result("Tool with logging executed successfully")
    await anyio.sleep(0.2)
    assert peer.logs == []
    await client.call_tool("test_tool_with_logging", {}, meta=log_level("info"))
    await eventually(lambda: len(peer.logs) >= 3, "three log messages")
    assert peer.logs == LOGS


async def test_set_logging_level_is_gone(client: Client) -> None:
    """logging/setLevel, ping and resources/subscribe are not part of 2026-07-28."""
    removed: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        ("logging/setLevel", lambda: client.set_logging_level("debug")),
        ("ping", client.send_ping),
        ("resources/subscribe", lambda: client.subscribe_resource("test://watched-resource")),
    ]
    for method, call in removed:
        with pytest.raises(MCPError) as caught:
            await call()
        assert (caught.value.error.code, caught.value.error.message) == (
            -32601,
            f"Method not found: {method} is not part of protocol revision {MODERN}",
        )


async def test_tool_with_progress_callback(client: Client, peer: Peer) -> None:
    """The SDK's progress_callback: its token is the request id, which the tool returns."""
    result = wire(
        await client.call_tool("test_tool_with_progress", {}, progress_callback=peer.on_progress)
    )
    await eventually(lambda: len(peer.progress) >= 3, "three progress notifications")
    assert peer.progress == [(0.0, 100.0, None), (50.0, 100.0, None), (100.0, 100.0, None)]
    token = result["content"][0]["text"]
    assert token.isdigit()  # the SDK's integer request id, as a string
    assert result == text_result(token)


async def test_tool_with_progress_token(client: Client, peer: Peer) -> None:
    result = await client.call_tool(
        "test_tool_with_progress",
        {},
        meta=cast(RequestParamsMeta, {"progressToken": "progress-test-1"}),
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


# --- tools: sampling and elicitation through input-required results ----------------------------


async def test_sampling(client: Client, peer: Peer) -> None:
    result = await client.call_tool("test_sampling", {"prompt": "Test prompt for sampling"})
    assert wire(result) == text_result(f"LLM response: {SAMPLED_TEXT}")
    # Asked once: the retry re-runs the tool with the answer, which is not asked for again.
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
    assert peer.elicitations == [{"message": message, "requestedSchema": USER_INFO_SCHEMA}]


async def test_elicitation_decline(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="decline")
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert wire(result) == text_result("User response: action=decline, content={}")
    assert len(peer.elicitations) == 1


async def test_elicitation_cancel(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="cancel")
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert wire(result) == text_result("User response: action=cancel, content={}")


async def test_elicitation_error_answer(client: Client, peer: Peer) -> None:
    """An input request the callback refuses with an error: at 2026-07-28 the SDK gives up and
    raises it (there is no JSON-RPC response to send the server; the call is not retried)."""
    peer.elicit_answer = ErrorData(code=-32603, message="the user closed the window")
    with pytest.raises(MCPError) as caught:
        await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert (caught.value.error.code, caught.value.error.message) == (
        -32603,
        "the user closed the window",
    )


async def test_elicitation_sep1034_defaults(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="accept", content={"name": "Ada", "age": 36})
    result = await client.call_tool("test_elicitation_sep1034_defaults", {})
    assert wire(result) == text_result(
        'Elicitation completed: action=accept, content={"name":"Ada","age":36}'
    )
    [asked] = peer.elicitations
    assert asked == {
        "message": "Please review and update the form fields with defaults",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": {
                    "type": "boolean",
                    "description": "Verification status",
                    "default": True,
                },
            },
        },
    }


async def test_elicitation_sep1034_decline(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="decline")
    result = await client.call_tool("test_elicitation_sep1034_defaults", {})
    assert wire(result) == text_result("Elicitation completed: action=decline, content={}")


ENUMS_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


async def test_elicitation_sep1330_enums(client: Client, peer: Peer) -> None:
    answer: dict[str, Any] = {"untitledSingle": "option2", "titledMulti": ["value1", "value3"]}
    peer.elicit_answer = ElicitResult(action="accept", content=answer)
    result = await client.call_tool("test_elicitation_sep1330_enums", {})
    assert wire(result) == text_result(
        'Elicitation completed: action=accept, content={"untitledSingle":"option2",'
        '"titledMulti":["value1","value3"]}'
    )
    assert peer.elicitations == [
        {"message": "Please select options from the enum fields", "requestedSchema": ENUMS_SCHEMA}
    ]


async def test_elicitation_sep1330_decline(client: Client, peer: Peer) -> None:
    peer.elicit_answer = ElicitResult(action="decline")
    result = await client.call_tool("test_elicitation_sep1330_enums", {})
    assert wire(result) == text_result("Elicitation completed: action=decline, content={}")


async def test_input_required_round_by_hand(client: Client) -> None:
    """The round the SDK drives for call_tool, driven by hand: the first answer asks, the
    retry (new id, inputResponses, the echoed requestState) completes."""
    arguments = {"message": "By hand"}
    first = await client.session.call_tool("test_elicitation", arguments, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    asked = wire(first)
    state = asked.pop("requestState")
    assert isinstance(state, str) and state
    assert asked == {
        "_meta": SERVER_META,
        "resultType": "input_required",
        "inputRequests": {
            "elicitation-1": {
                "method": "elicitation/create",
                "params": {"message": "By hand", "requestedSchema": USER_INFO_SCHEMA},
            }
        },
    }
    answer = ElicitResult(action="accept", content={"username": "ada", "email": "a@b.c"})
    done = await client.session.call_tool(
        "test_elicitation",
        arguments,
        input_responses={"elicitation-1": answer},
        request_state=state,
        allow_input_required=True,
    )
    assert wire(done) == text_result(
        'User response: action=accept, content={"username":"ada","email":"a@b.c"}'
    )
    # The state is bound to its tool: another tool cannot use it.
    with pytest.raises(MCPError) as caught:
        await client.session.call_tool(
            "test_elicitation_sep1034_defaults",
            {},
            input_responses={"elicitation-1": answer},
            request_state=state,
            allow_input_required=True,
        )
    assert (caught.value.error.code, caught.value.error.message) == (
        -32602,
        "Invalid requestState: it was issued for another tool",
    )


# --- a client without callbacks: no sampling or elicitation capability, no log level -----------


@pytest.mark.parametrize("mode_", MODES)
async def test_client_without_capabilities(mode_: str) -> None:
    """The SDK declares sampling/elicitation only with a callback. The server's request needs
    the capability: ctx.sample/ctx.elicit raise ClientCapabilityError (-32021 when uncaught);
    the fixture catches it into an isError result, as it does for legacy sessions."""
    logs: list[Any] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with Client(
        _params(),
        mode=mode_,
        read_timeout_seconds=30,
        logging_callback=on_log,
        client_info=EXACT_CLIENT,
    ) as bare:
        version = bare.protocol_version
        sampled = wire(await bare.call_tool("test_sampling", {"prompt": "hello"}))
        elicited = wire(await bare.call_tool("test_elicitation", {"message": "Who?"}))
        enums = wire(await bare.call_tool("test_elicitation_sep1330_enums", {}))
        logged = wire(await bare.call_tool("test_tool_with_logging", {}))
        await anyio.sleep(0.2)
    assert version == MODERN
    assert sampled == text_result(
        "Sampling failed: " + NOT_DECLARED.format("sampling", "sampling/createMessage"),
        is_error=True,
    )
    not_elicited = "Elicitation failed: " + NOT_DECLARED.format("elicitation", "elicitation/create")
    assert elicited == text_result(not_elicited, is_error=True)
    assert enums == text_result(not_elicited, is_error=True)
    # A logging_callback alone is no opt-in: without a logLevel in _meta nothing is sent.
    assert logged == text_result("Tool with logging executed successfully")
    assert logs == []


# --- resources ---------------------------------------------------------------------------------

READ_ENVELOPE = {"_meta": SERVER_META, "ttlMs": 0, "cacheScope": "public"}


async def test_read_static_text(client: Client) -> None:
    read = await client.read_resource("test://static-text")
    assert wire(read) == {
        **READ_ENVELOPE,
        "contents": [
            {
                "uri": "test://static-text",
                "mimeType": "text/plain",
                "text": "This is the content of the static text resource.",
            }
        ],
        "resultType": "complete",
    }


async def test_read_static_binary(client: Client) -> None:
    read = wire(await client.read_resource("test://static-binary"))
    blob = read["contents"][0].get("blob", "")
    assert read == {
        **READ_ENVELOPE,
        "contents": [{"uri": "test://static-binary", "mimeType": "image/png", "blob": blob}],
        "resultType": "complete",
    }
    assert check_png(blob) == (1, 1, [b"\xff\x00\x00"])
    assert len(base64.b64decode(blob)) == 69  # the size resources/list announces


@pytest.mark.parametrize("id_", ["123", "abc-42", "hello world"])
async def test_read_template(client: Client, id_: str) -> None:
    uri = f"test://template/{id_.replace(' ', '%20')}/data"
    read = await client.read_resource(uri)
    data = {"id": id_, "templateTest": True, "data": f"Data for ID: {id_}"}
    assert wire(read) == {
        **READ_ENVELOPE,
        "contents": [
            {
                "uri": uri,
                "mimeType": "application/json",
                "text": json.dumps(data, separators=(",", ":")),
            }
        ],
        "resultType": "complete",
    }


async def test_read_watched(client: Client) -> None:
    read = await client.read_resource("test://watched-resource")
    assert wire(read)["contents"] == [
        {
            "uri": "test://watched-resource",
            "mimeType": "text/plain",
            "text": "Watched resource content",
        }
    ]


@pytest.mark.parametrize(
    "uri",
    ["test://nonexistent-resource-for-conformance-testing", "test://template/..%2F..%2Fetc/data"],
    ids=["unknown", "path-traversal"],
)
async def test_read_unknown_resource(client: Client, uri: str) -> None:
    """At 2026-07-28 a missing resource is -32602 with the uri in data (before: -32002)."""
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri)
    assert wire(caught.value.error) == {
        "code": -32602,
        "message": f"Resource not found: {uri}",
        "data": {"uri": uri},
    }


# --- prompts -----------------------------------------------------------------------------------


async def test_simple_prompt(client: Client) -> None:
    got = await client.get_prompt("test_simple_prompt")
    assert wire(got) == complete(
        description="A simple prompt without arguments.",
        messages=[
            {
                "role": "user",
                "content": {"type": "text", "text": "This is a simple prompt for testing."},
            }
        ],
    )


async def test_prompt_with_arguments(client: Client) -> None:
    got = await client.get_prompt(
        "test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"}
    )
    assert wire(got) == complete(
        description="A prompt with two required arguments.",
        messages=[
            {
                "role": "user",
                "content": {
                    "type": "text",
                    "text": "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
                },
            }
        ],
    )


async def test_prompt_missing_argument(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.get_prompt("test_prompt_with_arguments", {"arg1": "only one"})
    assert (caught.value.error.code, caught.value.error.message) == (
        -32602,
        "Invalid arguments for prompt 'test_prompt_with_arguments':\n"
        "- arg2: required argument missing",
    )


async def test_prompt_with_embedded_resource(client: Client) -> None:
    got = await client.get_prompt(
        "test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}
    )
    assert wire(got) == complete(
        description="A prompt that includes an embedded resource.",
        messages=[
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
    )


async def test_prompt_with_image(client: Client) -> None:
    got = wire(await client.get_prompt("test_prompt_with_image"))
    png = got["messages"][0]["content"].get("data", "")
    assert got == complete(
        description="A prompt that includes image content.",
        messages=[
            {"role": "user", "content": {"type": "image", "data": png, "mimeType": "image/png"}},
            {
                "role": "user",
                "content": {"type": "text", "text": "Please analyze the image above."},
            },
        ],
    )
    assert check_png(png) == (1, 1, [b"\xff\x00\x00"])


# --- completion --------------------------------------------------------------------------------


async def test_complete_prompt_argument(client: Client) -> None:
    ref = PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
    done = await client.complete(ref, {"name": "arg1", "value": "test"})
    assert wire(done) == complete(
        completion={"values": ["testValue1", "testValue2"], "total": 2, "hasMore": False}
    )
    narrowed = await client.complete(ref, {"name": "arg2", "value": "testValue2"})
    assert narrowed.completion.values == ["testValue2"]


async def test_complete_template_variable(client: Client) -> None:
    ref = ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data")
    done = await client.complete(ref, {"name": "id", "value": "1"})
    assert wire(done) == complete(completion={"values": ["1", "123"], "total": 2, "hasMore": False})


async def test_complete_unknown_argument(client: Client) -> None:
    ref = PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
    with pytest.raises(MCPError) as caught:
        await client.complete(ref, {"name": "arg3", "value": ""})
    assert (caught.value.error.code, caught.value.error.message) == (
        -32602,
        "Prompt 'test_prompt_with_arguments' has no argument 'arg3'",
    )
