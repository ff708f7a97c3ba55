"""The conformance suite's server scenarios (0.1.16, ../shared/conformance.md §1.3), replayed as
raw JSON lines against `python examples/everything_server.py` over stdio.

Each request is the one the suite sends (test_simple_text without an `arguments` key, the
progress token "progress-test-1", the harness's own sampling and elicitation answers), and each
outcome is checked exactly, beyond the suite's weaker pass conditions. Every line the server
writes is validated against the official schema of the negotiated revision (by `Proc`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import test_stdio
from tests.e2e.test_stdio import Proc

EVERYTHING = Path(__file__).resolve().parents[2] / "examples" / "everything_server.py"

SAMPLING_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "This is a test response from the client"},
    "model": "test-model",
    "stopReason": "endTurn",
}
ELICITATION_ANSWER = {
    "action": "accept",
    "content": {"username": "testuser", "email": "test@example.com"},
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Proc]:
    monkeypatch.setattr(test_stdio, "SERVER", EVERYTHING)
    proc = Proc()
    try:
        yield proc
        proc.check()
    finally:
        proc.kill()


def text(value: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": is_error}


def handshake(p: Proc) -> dict[str, Any]:
    """server-initialize: what the suite offers (2025-11-25, sampling and elicitation)."""
    result: dict[str, Any] = p.result(
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "conformance-replay", "version": "0.1.16"},
        },
    )
    p.notify("notifications/initialized")
    return result


def call_answering(p: Proc, params: dict[str, Any], method: str, answer: dict[str, Any]) -> Any:
    """tools/call during which the server must send `method` to the client; answer it."""
    since = len(p.messages)
    call_id = p.start("tools/call", params)
    asked = p.wait_for(lambda m: isinstance(m, dict) and m.get("method") == method, since=since)
    p.send({"jsonrpc": "2.0", "id": asked["id"], "result": answer})
    reply = p.response(call_id, since=since)
    assert "result" in reply, reply
    return asked["params"], reply["result"]


def test_conformance_scenarios_replayed(server: Proc) -> None:
    p = server
    init = handshake(p)
    assert init["protocolVersion"] == "2025-11-25"
    assert init["capabilities"] == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": True},
        "completions": {},
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
    }

    # logging-set-level, ping
    assert p.result("logging/setLevel", {"level": "info"}) == {}
    assert p.result("ping") == {}

    # completion-complete
    done = p.result(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "test"},
        },
    )
    assert done == {
        "completion": {"values": ["testValue1", "testValue2"], "total": 2, "hasMore": False}
    }

    # tools-list: every tool has a name, a non-empty description and an inputSchema
    tools = p.result("tools/list")["tools"]
    assert len(tools) == 35  # 13 for the scenarios above, 14 for 2026-07-28, reconnect, 7 tasks
    assert all(t["name"] and t["description"] and t["inputSchema"] for t in tools)
    [schema_tool] = [t for t in tools if t["name"] == "json_schema_2020_12_tool"]
    # json-schema-2020-12: the schema as written, byte for byte in key order too
    assert json.dumps(schema_tool["inputSchema"]) == json.dumps(
        {
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
            "allOf": [
                {"anyOf": [{"required": ["name"]}, {"required": ["address"]}, {"maxProperties": 0}]}
            ],
            "if": {"required": ["address"]},
            "then": {"properties": {"address": {"type": "object"}}},
            "else": {"properties": {"name": {"type": "string"}}},
        }
    )

    # tools-call-simple-text: no `arguments` key at all
    simple = p.result("tools/call", {"name": "test_simple_text"})
    assert simple == text("This is a simple text response for testing.")

    # tools-call-image / -audio / -embedded-resource / -mixed-content
    image = p.call("test_image_content")["content"]
    assert [(b["type"], b["mimeType"]) for b in image] == [("image", "image/png")]
    audio = p.call("test_audio_content")["content"]
    assert [(b["type"], b["mimeType"]) for b in audio] == [("audio", "audio/wav")]
    assert p.call("test_embedded_resource")["content"] == [
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    ]
    mixed = p.call("test_multiple_content_types")["content"]
    assert [b["type"] for b in mixed] == ["text", "image", "resource"]
    assert mixed[2]["resource"]["text"] == '{"test":"data","value":123}'

    # tools-call-with-logging: setLevel debug, then three info messages before the result
    assert p.result("logging/setLevel", {"level": "debug"}) == {}
    since = len(p.messages)
    assert p.call("test_tool_with_logging") == text("Tool with logging executed successfully")
    logs = [m for m in p.messages[since:] if m.get("method") == "notifications/message"]
    assert [m["params"] for m in logs] == [
        {"level": "info", "data": "Tool execution started"},
        {"level": "info", "data": "Tool processing data"},
        {"level": "info", "data": "Tool execution completed"},
    ]

    # tools-call-error: a result with isError, not a JSON-RPC error
    assert p.call("test_error_handling") == text(
        "This tool intentionally returns an error for testing", is_error=True
    )

    # tools-call-with-progress: the notifications come before the result, in order
    since = len(p.messages)
    progress = p.result(
        "tools/call",
        {
            "name": "test_tool_with_progress",
            "arguments": {},
            "_meta": {"progressToken": "progress-test-1"},
        },
    )
    assert progress == text("progress-test-1")
    notes = [m for m in p.messages[since:] if m.get("method") == "notifications/progress"]
    assert [m["params"] for m in notes] == [
        {"progressToken": "progress-test-1", "progress": n, "total": 100} for n in (0, 50, 100)
    ]

    # tools-call-sampling: the server asks during the call; the harness's answer comes back
    asked, sampled = call_answering(
        p,
        {"name": "test_sampling", "arguments": {"prompt": "Test prompt for sampling"}},
        "sampling/createMessage",
        SAMPLING_ANSWER,
    )
    assert asked == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}
        ],
        "maxTokens": 100,
    }
    assert sampled == text("LLM response: This is a test response from the client")

    # tools-call-elicitation
    asked, elicited = call_answering(
        p,
        {"name": "test_elicitation", "arguments": {"message": "Please provide your information"}},
        "elicitation/create",
        ELICITATION_ANSWER,
    )
    assert asked["message"] == "Please provide your information"
    assert asked["requestedSchema"]["required"] == ["username", "email"]
    assert elicited == text(
        'User response: action=accept, content={"username":"testuser","email":"test@example.com"}'
    )

    # elicitation-sep1034-defaults
    asked, _ = call_answering(
        p,
        {"name": "test_elicitation_sep1034_defaults", "arguments": {}},
        "elicitation/create",
        {"action": "decline"},
    )
    defaults = {k: v["default"] for k, v in asked["requestedSchema"]["properties"].items()}
    assert defaults == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert asked["requestedSchema"]["properties"]["age"]["type"] == "integer"

    # elicitation-sep1330-enums
    asked, enums = call_answering(
        p,
        {"name": "test_elicitation_sep1330_enums", "arguments": {}},
        "elicitation/create",
        {"action": "cancel"},
    )
    assert sorted(asked["requestedSchema"]["properties"]) == [
        "legacyEnum",
        "titledMulti",
        "titledSingle",
        "untitledMulti",
        "untitledSingle",
    ]
    assert enums == text("Elicitation completed: action=cancel, content={}")

    # resources-list / -read-text / -read-binary / -templates-read
    resources = p.result("resources/list")["resources"]
    assert [r["uri"] for r in resources] == [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
    ]
    assert all(r["name"] for r in resources)
    [item] = p.result("resources/read", {"uri": "test://static-text"})["contents"]
    assert item == {
        "uri": "test://static-text",
        "mimeType": "text/plain",
        "text": "This is the content of the static text resource.",
    }
    [item] = p.result("resources/read", {"uri": "test://static-binary"})["contents"]
    assert (item["uri"], item["mimeType"], item["blob"][:8]) == (
        "test://static-binary",
        "image/png",
        "iVBORw0K",  # base64 of the PNG signature
    )
    [item] = p.result("resources/read", {"uri": "test://template/123/data"})["contents"]
    assert item == {
        "uri": "test://template/123/data",
        "mimeType": "application/json",
        "text": '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
    }

    # resources-subscribe / -unsubscribe
    assert p.result("resources/subscribe", {"uri": "test://watched-resource"}) == {}
    assert p.result("resources/unsubscribe", {"uri": "test://watched-resource"}) == {}

    # prompts-list / -get-simple / -get-with-args / -get-embedded-resource / -get-with-image
    prompts = p.result("prompts/list")["prompts"]
    assert [(x["name"], bool(x["description"])) for x in prompts] == [
        ("test_simple_prompt", True),
        ("test_prompt_with_arguments", True),
        ("test_prompt_with_embedded_resource", True),
        ("test_prompt_with_image", True),
        ("test_input_required_result_prompt", True),
    ]
    simple_prompt = p.result("prompts/get", {"name": "test_simple_prompt"})
    assert simple_prompt["messages"] == [
        {
            "role": "user",
            "content": {"type": "text", "text": "This is a simple prompt for testing."},
        }
    ]
    with_args = p.result(
        "prompts/get",
        {
            "name": "test_prompt_with_arguments",
            "arguments": {"arg1": "testValue1", "arg2": "testValue2"},
        },
    )
    assert with_args["messages"][0]["content"]["text"] == (
        "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
    )
    embedded = p.result(
        "prompts/get",
        {
            "name": "test_prompt_with_embedded_resource",
            "arguments": {"resourceUri": "test://example-resource"},
        },
    )
    assert [m["content"]["type"] for m in embedded["messages"]] == ["resource", "text"]
    assert embedded["messages"][0]["content"]["resource"]["uri"] == "test://example-resource"
    with_image = p.result("prompts/get", {"name": "test_prompt_with_image"})
    assert [m["content"]["type"] for m in with_image["messages"]] == ["image", "text"]
    assert with_image["messages"][0]["content"]["mimeType"] == "image/png"

    p.close_stdin()
    assert p.wait() == 0
