"""The 2026-07-28 fixtures of examples/everything_server.py (conformance suite 0.2.0-alpha.12,
`--requirements 2026-07-28`), driven in process with stateless requests the way the suite
sends them: the same names, arguments, input keys and answers (../shared/conformance.md §1.4).

`Session` validates every message the server writes against the 2026-07-28 schema.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from plainmcp import Server
from tests.conftest import Session

pytestmark = pytest.mark.anyio

EVERYTHING = Path(__file__).resolve().parents[1] / "examples" / "everything_server.py"
MODERN = "2026-07-28"
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
SERVER_META = {
    "io.modelcontextprotocol/serverInfo": {"name": "plainmcp-everything", "version": "0.1.0"}
}

HARNESS_CAPABILITIES = {"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}}
"""What the suite's stateless requests declare unless a scenario says otherwise."""

OLD_TOOLS = [
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
NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}
TASK_TOOLS = [
    "greet",
    "slow_compute",
    "failing_job",
    "protocol_error_job",
    "confirm_delete",
    "multi_input",
    "test_tool_with_task",
]
"""The tasks fixtures (SEP-2663; tests/tasks/test_everything_tasks.py), after the others."""
NEW_TOOLS = [
    {
        "name": "test_missing_capability",
        "description": (
            "Tests a request that needs the client's sampling capability: a 2026-07-28 request"
            ' that\ndoes not declare it fails with -32021 (requiredCapabilities {"sampling": {}}).'
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_trigger_tool_change",
        "description": (
            "Tests tool list change notifications: adds and then removes a temporary tool, so"
            " each\nsession and subscriptions/listen stream that asked for tool list changes is"
            " told twice."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_trigger_prompt_change",
        "description": (
            "Tests prompt list change notifications: adds and then removes a temporary prompt,"
            " so each\nsession and subscriptions/listen stream that asked for prompt list"
            " changes is told twice."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_elicitation",
        "description": (
            'Tests an input-required result with one elicitation (input key "user_name"): asks'
            " for a\nname and greets it."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_sampling",
        "description": (
            "Tests an input-required result with one sampling request: asks the client's model"
            " for\nthe capital of France and returns its answer."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_list_roots",
        "description": (
            "Tests an input-required result with one roots/list request: returns the client's"
            " roots."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_request_state",
        "description": (
            "Tests the requestState round trip: asks for a confirmation; the answer is only"
            " accepted\nwith the signed requestState of the first round, so the result says"
            ' "state-ok".'
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_multiple_inputs",
        "description": (
            "Tests one input-required result with three input requests: an elicitation (a"
            " name), a\nsampling request (a greeting) and roots/list."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_multi_round",
        "description": (
            "Tests two rounds of input-required results: asks for a name, then for a favorite"
            " colour\n(a new requestState each round)."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_tampered_state",
        "description": (
            "Tests requestState integrity: asks for a confirmation; a retry whose requestState"
            " was\naltered is rejected with -32602."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_input_required_result_capabilities",
        "description": (
            "Tests that input requests follow the client's declared capabilities: asks for a"
            " name by\nelicitation and a greeting by sampling, each only if the client declared"
            " that capability."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_streaming_elicitation",
        "description": (
            "Tests an elicitation during a call: a handshake session gets elicitation/create"
            " while the\ncall runs; a 2026-07-28 request gets an input-required result (never a"
            " request on the\nresponse stream)."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_logging_tool",
        "description": (
            "Tests log filtering: logs at debug, info and warning; a 2026-07-28 request"
            " receives only\nthose at or above the level its _meta names, and none when it"
            " names no level."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_x_mcp_header",
        "description": (
            "Tests a parameter mirrored into an HTTP header: `region` is sent again as"
            ' Mcp-Param-Region\n(x-mcp-header "Region"), and the HTTP transport checks that'
            " both agree."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "region": {
                    "description": "The region to report back.",
                    "type": "string",
                    "x-mcp-header": "Region",
                }
            },
            "required": ["region"],
            "additionalProperties": False,
        },
    },
    {
        "name": "test_reconnection",
        "description": (
            "Tests SSE polling: closes the HTTP response stream before returning, so the"
            " client\nreconnects with Last-Event-ID and gets the result from the event log"
            " (2025-11-25)."
        ),
        "inputSchema": NO_ARGUMENTS,
    },
]
OLD_PROMPTS = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
]
NEW_PROMPT = {
    "name": "test_input_required_result_prompt",
    "description": (
        "A prompt that needs the user's input first (an input-required result at 2026-07-28)."
    ),
    "arguments": [],
}

# What the suite's scenarios ask and answer.
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
CONFIRM_FORM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
ASK_NAME = {
    "method": "elicitation/create",
    "params": {"message": "What is your name?", "requestedSchema": NAME_FORM},
}
ASK_GREETING = {
    "method": "sampling/createMessage",
    "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
        "maxTokens": 50,
    },
}
ASK_ROOTS = {"method": "roots/list", "params": {}}
ASK_CONFIRM = {
    "method": "elicitation/create",
    "params": {"message": "Please confirm", "requestedSchema": CONFIRM_FORM},
}
ROOTS = {"roots": [{"uri": "file:///test/root", "name": "Test Root"}]}


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def sampled(text: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "test-model",
        "stopReason": "endTurn",
    }


# --- the fixture server and the stateless requests ---------------------------------------------


def load_everything() -> ModuleType:
    """A fresh copy of the example module (its own app, so tests do not share state)."""
    spec = importlib.util.spec_from_file_location("everything_fixtures_server", EVERYTHING)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def app() -> Server:
    server: Server = load_everything().app
    return server


def meta(capabilities: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """The `_meta` of a stateless request (the harness's capabilities unless given)."""
    return {
        PROTOCOL_VERSION: MODERN,
        CLIENT_CAPABILITIES: HARNESS_CAPABILITIES if capabilities is None else capabilities,
        CLIENT_INFO: {"name": "conformance-client", "version": "1.0.0"},
        **extra,
    }


def call(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    capabilities: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """tools/call params: `extra` adds inputResponses, requestState or `_meta` fields."""
    meta_extra = extra.pop("meta", {})
    return {
        "name": name,
        "arguments": {} if arguments is None else arguments,
        "_meta": meta(capabilities, **meta_extra),
        **extra,
    }


def complete(**fields: Any) -> dict[str, Any]:
    return {**fields, "resultType": "complete", "_meta": SERVER_META}


def text(value: str, *, is_error: bool = False) -> dict[str, Any]:
    return complete(content=[{"type": "text", "text": value}], isError=is_error)


def input_required(result: dict[str, Any], requests: dict[str, Any]) -> str:
    """Assert `result` asks exactly `requests`; returns its requestState."""
    state = result.get("requestState")
    assert isinstance(state, str) and state
    assert result == {
        "resultType": "input_required",
        "inputRequests": requests,
        "requestState": state,
        "_meta": SERVER_META,
    }
    return state


async def modern(s: Session, method: str, params: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await s.result(method, params)
    return result


def stateless(app: Server) -> Session:
    return Session(app, revision_hint=MODERN)


# --- listing -----------------------------------------------------------------------------------


async def test_new_fixtures_come_after_the_old_ones(app: Server) -> None:
    async with stateless(app) as s:
        tools = (await modern(s, "tools/list", {"_meta": meta()}))["tools"]
        assert [t["name"] for t in tools[: len(OLD_TOOLS)]] == OLD_TOOLS
        after = len(OLD_TOOLS) + len(NEW_TOOLS)
        assert tools[len(OLD_TOOLS) : after] == NEW_TOOLS
        assert [t["name"] for t in tools[after:]] == TASK_TOOLS
        assert all(t["description"] for t in tools)
        prompts = (await modern(s, "prompts/list", {"_meta": meta()}))["prompts"]
        assert [p["name"] for p in prompts[: len(OLD_PROMPTS)]] == OLD_PROMPTS
        assert prompts[len(OLD_PROMPTS) :] == [NEW_PROMPT]


async def test_input_required_fixtures_are_never_answered_on_list_methods(app: Server) -> None:
    """input-required-result-unsupported-methods: tools/list and prompts/list stay complete."""
    async with stateless(app) as s:
        for method in ("tools/list", "prompts/list"):
            assert (await modern(s, method, {"_meta": meta()}))["resultType"] == "complete"


# --- server-stateless: a missing capability, list changes, logging, streaming -----------------


@pytest.mark.parametrize(
    ("tool", "capability", "method"),
    [
        ("test_missing_capability", "sampling", "sampling/createMessage"),
        ("test_streaming_elicitation", "elicitation", "elicitation/create"),
    ],
)
async def test_a_tool_needing_an_undeclared_capability_is_32021(
    app: Server, tool: str, capability: str, method: str
) -> None:
    async with stateless(app) as s:
        reply = await s.request("tools/call", call(tool, capabilities={}))
        assert reply["error"] == {
            "code": -32021,
            "message": f"the client did not declare the '{capability}' capability,"
            f" so {method} cannot be sent to it",
            "data": {"requiredCapabilities": {capability: {}}},
        }


async def test_missing_capability_with_sampling_declared_asks_and_completes(app: Server) -> None:
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_missing_capability"))
        hello = {
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello."}}],
                "maxTokens": 20,
            },
        }
        state = input_required(first, {"sampling-1": hello})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_missing_capability",
                requestState=state,
                inputResponses={"sampling-1": sampled("Hello!")},
            ),
        )
        assert done == text("Sampling response: Hello!")


async def open_listen(s: Session, listen_id: str, notifications: dict[str, Any]) -> None:
    await s.start(
        "subscriptions/listen", {"_meta": meta(), "notifications": notifications}, id=listen_id
    )
    ack = await s.wait_for(
        lambda m: (
            m.get("method") == "notifications/subscriptions/acknowledged"
            and m["params"]["_meta"][SUBSCRIPTION_ID] == listen_id
        )
    )
    assert ack["params"] == {"_meta": {SUBSCRIPTION_ID: listen_id}, "notifications": notifications}


@pytest.mark.parametrize(
    ("tool", "flag", "method", "changed"),
    [
        (
            "test_trigger_tool_change",
            "toolsListChanged",
            "notifications/tools/list_changed",
            "The tool list changed: test_temporary_tool was added and removed",
        ),
        (
            "test_trigger_prompt_change",
            "promptsListChanged",
            "notifications/prompts/list_changed",
            "The prompt list changed: test_temporary_prompt was added and removed",
        ),
    ],
)
async def test_triggers_notify_the_listen_streams_that_asked(
    app: Server, tool: str, flag: str, method: str, changed: str
) -> None:
    other = "promptsListChanged" if flag == "toolsListChanged" else "toolsListChanged"
    async with stateless(app) as s:
        tools_before = await modern(s, "tools/list", {"_meta": meta()})
        prompts_before = await modern(s, "prompts/list", {"_meta": meta()})
        await open_listen(s, "wanted", {flag: True})
        await open_listen(s, "filtered", {other: True})
        since = len(s.messages)
        assert await modern(s, "tools/call", call(tool)) == text(changed)
        await s.quiet(0.05)
        notified = [m for m in s.messages[since:] if "method" in m]
        # Added, then removed: two notifications, both on the stream that asked for them only.
        assert (
            notified
            == [
                {
                    "jsonrpc": "2.0",
                    "method": method,
                    "params": {"_meta": {SUBSCRIPTION_ID: "wanted"}},
                }
            ]
            * 2
        )
        # The temporary tool or prompt is gone again: the lists are as before.
        assert await modern(s, "tools/list", {"_meta": meta()}) == tools_before
        assert await modern(s, "prompts/list", {"_meta": meta()}) == prompts_before


async def test_trigger_tells_a_handshake_session_too(app: Server) -> None:
    async with Session(app) as s:
        await s.initialize("2025-11-25")
        await s.call("test_trigger_tool_change")
        await s.call("test_trigger_prompt_change")
        assert [m["method"] for m in s.messages if "method" in m] == [
            "notifications/tools/list_changed",
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/prompts/list_changed",
        ]


async def test_logging_tool_sends_nothing_without_a_log_level(app: Server) -> None:
    async with stateless(app) as s:
        done = await modern(s, "tools/call", call("test_logging_tool", capabilities={}))
        assert done == text("Logged a debug, an info and a warning message")
        assert await s.quiet(0.05) == []
        assert s.notifications("notifications/message") == []


async def test_logging_tool_sends_what_the_log_level_lets_through(app: Server) -> None:
    async with stateless(app) as s:
        params = call("test_logging_tool", capabilities={}, meta={LOG_LEVEL: "info"})
        assert await modern(s, "tools/call", params) == text(
            "Logged a debug, an info and a warning message"
        )
        assert [m["params"] for m in s.notifications("notifications/message")] == [
            {"level": "info", "data": "Logging tool: an info message"},
            {"level": "warning", "data": "Logging tool: a warning message"},
        ]


async def test_streaming_elicitation_is_an_input_required_result(app: Server) -> None:
    """sep-2575-http-server-no-independent-requests-on-stream: the call's only answer is a
    response (an input-required result), never an elicitation/create request."""
    async with stateless(app) as s:
        first = await s.request(
            "tools/call", call("test_streaming_elicitation", capabilities={"elicitation": {}})
        )
        assert [m for m in s.messages if "method" in m] == []
        info_form = {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "The user's name"},
                "email": {"type": "string", "description": "The user's email address"},
            },
            "required": ["username", "email"],
        }
        state = input_required(
            first["result"],
            {
                "elicitation-1": {
                    "method": "elicitation/create",
                    "params": {
                        "message": "Please provide your information",
                        "requestedSchema": info_form,
                    },
                }
            },
        )
        done = await modern(
            s,
            "tools/call",
            call(
                "test_streaming_elicitation",
                capabilities={"elicitation": {}},
                requestState=state,
                inputResponses={
                    "elicitation-1": accept(username="testuser", email="test@example.com")
                },
            ),
        )
        content = '{"username":"testuser","email":"test@example.com"}'
        assert done == text(f"User response: action=accept, content={content}")


# --- input-required results --------------------------------------------------------------------


async def test_elicitation_asks_user_name_then_greets(app: Server) -> None:
    """input-required-result-basic-elicitation and -result-type."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_elicitation"))
        state = input_required(first, {"user_name": ASK_NAME})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_elicitation",
                requestState=state,
                inputResponses={"user_name": accept(name="Alice")},
            ),
        )
        assert done == text("Hello, Alice!")


async def test_elicitation_ignores_extra_answers(app: Server) -> None:
    """input-required-result-ignore-extra-params, with the round's requestState."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_elicitation"))
        state = input_required(first, {"user_name": ASK_NAME})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_elicitation",
                requestState=state,
                inputResponses={
                    "user_name": accept(name="Alice"),
                    "unknown_extra_key": accept(foo="bar"),
                    "another_unexpected": accept(baz=123),
                },
            ),
        )
        assert done == text("Hello, Alice!")


@pytest.mark.parametrize(
    "responses",
    [
        # input-required-result-missing-input-response: a wrong key
        {"wrong_key": accept(data="wrong")},
        # input-required-result-validate-input: not an answer, and no answers at all
        {"user_name": 12345},
        None,
    ],
)
async def test_elicitation_without_a_usable_answer_is_asked_again(
    app: Server, responses: Any
) -> None:
    async with stateless(app) as s:
        again = await modern(
            s,
            "tools/call",
            call("test_input_required_result_elicitation", inputResponses=responses),
        )
        input_required(again, {"user_name": ASK_NAME})


async def test_answers_sent_up_front_complete_the_call_and_extra_keys_are_ignored(
    app: Server,
) -> None:
    """input-required-result-ignore-extra-params, as the suite sends it: no requestState."""
    async with stateless(app) as s:
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_elicitation",
                inputResponses={
                    "user_name": accept(name="Alice"),
                    "unknown_extra_key": accept(foo="bar"),
                    "another_unexpected": accept(baz=123),
                },
            ),
        )
        assert done == text("Hello, Alice!")


@pytest.mark.parametrize("answer", [12345, {"content": {"name": "Alice"}}, {"action": "maybe"}])
async def test_elicitation_malformed_answer_with_a_state_is_asked_again(
    app: Server, answer: Any
) -> None:
    """input-required-result-validate-input: never a complete result from an answer that is not
    an elicitation result."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_elicitation"))
        state = input_required(first, {"user_name": ASK_NAME})
        again = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_elicitation",
                requestState=state,
                inputResponses={"user_name": answer},
            ),
        )
        input_required(again, {"user_name": ASK_NAME})


async def test_elicitation_declined_is_a_tool_error(app: Server) -> None:
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_elicitation"))
        state = input_required(first, {"user_name": ASK_NAME})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_elicitation",
                requestState=state,
                inputResponses={"user_name": {"action": "decline"}},
            ),
        )
        assert done == text("The user did not answer (action=decline)", is_error=True)


async def test_sampling_round_trip(app: Server) -> None:
    """input-required-result-basic-sampling."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_sampling"))
        capital = {
            "method": "sampling/createMessage",
            "params": {
                "messages": [
                    {
                        "role": "user",
                        "content": {"type": "text", "text": "What is the capital of France?"},
                    }
                ],
                "maxTokens": 100,
            },
        }
        state = input_required(first, {"sampling-1": capital})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_sampling",
                requestState=state,
                inputResponses={"sampling-1": sampled("The capital of France is Paris.")},
            ),
        )
        assert done == text("Sampling response: The capital of France is Paris.")


async def test_list_roots_round_trip(app: Server) -> None:
    """input-required-result-basic-list-roots."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_list_roots"))
        state = input_required(first, {"roots-1": ASK_ROOTS})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_list_roots",
                requestState=state,
                inputResponses={"roots-1": ROOTS},
            ),
        )
        assert done == text("Client roots: file:///test/root (Test Root)")


async def test_request_state_round_trip_says_state_ok(app: Server) -> None:
    """input-required-result-request-state."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_request_state"))
        state = input_required(first, {"elicitation-1": ASK_CONFIRM})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_request_state",
                requestState=state,
                inputResponses={"elicitation-1": accept(ok=True)},
            ),
        )
        assert done == text("state-ok: ok=true")


async def test_multiple_inputs_asks_all_three_at_once(app: Server) -> None:
    """input-required-result-multiple-input-requests."""
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_multiple_inputs"))
        state = input_required(
            first, {"elicitation-1": ASK_NAME, "sampling-1": ASK_GREETING, "roots-1": ASK_ROOTS}
        )
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_multiple_inputs",
                requestState=state,
                inputResponses={
                    "elicitation-1": accept(name="Alice"),
                    "sampling-1": sampled("Hello there!"),
                    "roots-1": ROOTS,
                },
            ),
        )
        assert done == text(
            "name=Alice; greeting=Hello there!; roots=file:///test/root (Test Root)"
        )


async def test_multiple_inputs_asks_again_only_what_is_missing(app: Server) -> None:
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call("test_input_required_result_multiple_inputs"))
        state = input_required(
            first, {"elicitation-1": ASK_NAME, "sampling-1": ASK_GREETING, "roots-1": ASK_ROOTS}
        )
        second = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_multiple_inputs",
                requestState=state,
                inputResponses={"sampling-1": sampled("Hi!")},
            ),
        )
        state = input_required(second, {"elicitation-1": ASK_NAME, "roots-1": ASK_ROOTS})
        done = await modern(
            s,
            "tools/call",
            call(
                "test_input_required_result_multiple_inputs",
                requestState=state,
                inputResponses={"elicitation-1": accept(name="Bob"), "roots-1": {"roots": []}},
            ),
        )
        assert done == text("name=Bob; greeting=Hi!; roots=no roots")


async def test_multi_round_has_a_new_state_each_round(app: Server) -> None:
    """input-required-result-multi-round."""
    tool = "test_input_required_result_multi_round"
    step1 = {
        "method": "elicitation/create",
        "params": {"message": "Step 1: What is your name?", "requestedSchema": NAME_FORM},
    }
    step2 = {
        "method": "elicitation/create",
        "params": {
            "message": "Step 2: What is your favorite color?",
            "requestedSchema": {
                "type": "object",
                "properties": {"color": {"type": "string"}},
                "required": ["color"],
            },
        },
    }
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call(tool))
        state1 = input_required(first, {"elicitation-1": step1})
        second = await modern(
            s,
            "tools/call",
            call(tool, requestState=state1, inputResponses={"elicitation-1": accept(name="Alice")}),
        )
        state2 = input_required(second, {"elicitation-2": step2})
        assert state2 != state1
        # The client sends only this round's answer; the name travels in the state.
        done = await modern(
            s,
            "tools/call",
            call(tool, requestState=state2, inputResponses={"elicitation-2": accept(color="blue")}),
        )
        assert done == text("Alice's favorite color is blue")


async def test_tampered_state_is_rejected_with_32602(app: Server) -> None:
    """input-required-result-tampered-state."""
    tool = "test_input_required_result_tampered_state"
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call(tool))
        state = input_required(first, {"elicitation-1": ASK_CONFIRM})
        reply = await s.request(
            "tools/call",
            call(
                tool,
                requestState=state + "-TAMPERED",
                inputResponses={"elicitation-1": accept(ok=True)},
            ),
        )
        assert reply["error"] == {
            "code": -32602,
            "message": "Invalid requestState: not a requestState of this server",
        }
        # Untampered, the same retry completes.
        done = await modern(
            s,
            "tools/call",
            call(tool, requestState=state, inputResponses={"elicitation-1": accept(ok=True)}),
        )
        assert done == text("Confirmed: ok=true")


@pytest.mark.parametrize(
    ("capabilities", "asked"),
    [
        # input-required-result-capability-check: sampling only, so no elicitation request
        ({"sampling": {}}, {"sampling-1": ASK_GREETING}),
        ({"elicitation": {}}, {"elicitation-1": ASK_NAME}),
        (HARNESS_CAPABILITIES, {"elicitation-1": ASK_NAME, "sampling-1": ASK_GREETING}),
    ],
)
async def test_capabilities_asks_only_what_the_client_declared(
    app: Server, capabilities: dict[str, Any], asked: dict[str, Any]
) -> None:
    tool = "test_input_required_result_capabilities"
    answers = {"elicitation-1": accept(name="Alice"), "sampling-1": sampled("Hello there!")}
    expected = {"elicitation-1": "name=Alice", "sampling-1": "greeting=Hello there!"}
    async with stateless(app) as s:
        first = await modern(s, "tools/call", call(tool, capabilities=capabilities))
        state = input_required(first, asked)
        done = await modern(
            s,
            "tools/call",
            call(
                tool,
                capabilities=capabilities,
                requestState=state,
                inputResponses={key: answers[key] for key in asked},
            ),
        )
        assert done == text("; ".join(expected[key] for key in asked))


async def test_capabilities_without_any_asks_nothing(app: Server) -> None:
    async with stateless(app) as s:
        done = await modern(
            s, "tools/call", call("test_input_required_result_capabilities", capabilities={})
        )
        assert done == text(
            "The client declared neither elicitation nor sampling: nothing was asked"
        )


async def test_prompt_round_trip(app: Server) -> None:
    """input-required-result-non-tool-request."""
    name = "test_input_required_result_prompt"
    ask_context = {
        "method": "elicitation/create",
        "params": {
            "message": "What context should the prompt use?",
            "requestedSchema": {
                "type": "object",
                "properties": {"context": {"type": "string"}},
                "required": ["context"],
            },
        },
    }
    async with stateless(app) as s:
        first = await modern(s, "prompts/get", {"name": name, "_meta": meta()})
        state = input_required(first, {"elicitation-1": ask_context})
        done = await modern(
            s,
            "prompts/get",
            {
                "name": name,
                "_meta": meta(),
                "requestState": state,
                "inputResponses": {"elicitation-1": accept(context="test context")},
            },
        )
        assert done == complete(
            description=NEW_PROMPT["description"],
            messages=[
                {
                    "role": "user",
                    "content": {
                        "type": "text",
                        "text": "Please answer using this context: test context",
                    },
                }
            ],
        )


async def test_prompt_declined_is_invalid_params(app: Server) -> None:
    name = "test_input_required_result_prompt"
    async with stateless(app) as s:
        first = await modern(s, "prompts/get", {"name": name, "_meta": meta()})
        reply = await s.request(
            "prompts/get",
            {
                "name": name,
                "_meta": meta(),
                "requestState": first["requestState"],
                "inputResponses": {"elicitation-1": {"action": "cancel"}},
            },
        )
        assert reply["error"] == {
            "code": -32602,
            "message": "The user did not answer (action=cancel)",
        }


# --- the same fixtures in a handshake session --------------------------------------------------


async def answer_requests(s: Session, name: str, answers: dict[str, Any]) -> dict[str, Any]:
    """tools/call in a handshake session, answering the server's requests by method."""
    since = len(s.messages)
    call_id = await s.start("tools/call", {"name": name, "arguments": {}})
    asked: list[str] = []
    while True:
        found = await s.wait_for(
            lambda m: "id" in m and (m.get("method") in answers or m.get("id") == call_id),
            since=since,
        )
        since = s.messages.index(found) + 1
        if "method" not in found:
            assert asked == list(answers)
            result: dict[str, Any] = found["result"]
            return result
        asked.append(found["method"])
        await s.send({"jsonrpc": "2.0", "id": found["id"], "result": answers[found["method"]]})


async def test_handshake_sessions_are_asked_during_the_call(app: Server) -> None:
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities=HARNESS_CAPABILITIES)
        greeted = await answer_requests(
            s,
            "test_input_required_result_elicitation",
            {"elicitation/create": accept(name="Alice")},
        )
        assert greeted == {"content": [{"type": "text", "text": "Hello, Alice!"}], "isError": False}
        everything = await answer_requests(
            s,
            "test_input_required_result_multiple_inputs",
            {
                "elicitation/create": accept(name="Alice"),
                "sampling/createMessage": sampled("Hello there!"),
                "roots/list": ROOTS,
            },
        )
        assert everything["content"] == [
            {
                "type": "text",
                "text": "name=Alice; greeting=Hello there!; roots=file:///test/root (Test Root)",
            }
        ]


async def test_handshake_session_without_the_capability_gets_a_tool_error(app: Server) -> None:
    async with Session(app) as s:
        await s.initialize("2025-11-25", capabilities={})
        assert await s.call("test_missing_capability") == {
            "content": [
                {
                    "type": "text",
                    "text": "Sampling failed: the client did not declare the 'sampling'"
                    " capability, so sampling/createMessage cannot be sent to it",
                }
            ],
            "isError": True,
        }


# --- x-mcp-header, resource not found ----------------------------------------------------------


async def test_x_mcp_header_tool_echoes_the_region(app: Server) -> None:
    """http-custom-header-server-validation needs a string parameter with x-mcp-header (the
    header checks themselves belong to the HTTP transport)."""
    async with stateless(app) as s:
        done = await modern(s, "tools/call", call("test_x_mcp_header", {"region": "Hello"}))
        assert done == text("Region: Hello")


async def test_nonexistent_resource_is_32602_with_the_uri(app: Server) -> None:
    """sep-2164-resource-not-found."""
    uri = "test://nonexistent-resource-for-conformance-testing"
    async with stateless(app) as s:
        reply = await s.request("resources/read", {"uri": uri, "_meta": meta()})
        assert reply["error"] == {
            "code": -32602,
            "message": f"Resource not found: {uri}",
            "data": {"uri": uri},
        }
