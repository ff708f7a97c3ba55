"""The schema validator must be able to fail as well as pass, at each revision's own rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.mcp_schemas import (
    REVISIONS,
    definition_names,
    schemas_dir,
    validate_definition,
    validate_server_message,
)

LEGACY = REVISIONS[:4]  # revisions with the initialize handshake
MODERN = "2026-07-28"


def response(result: dict[str, Any], revision: str, id_: int | str = 1) -> dict[str, Any]:
    """A result response; from 2026-07-28 on results carry resultType, lists also cache hints."""
    if revision >= MODERN:
        result = {"resultType": "complete", **result}
        if any(key in result for key in ("tools", "prompts", "resources", "resourceTemplates")):
            result = {"ttlMs": 0, "cacheScope": "private", **result}
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def call_result(*content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"content": list(content), **extra}


TEXT = {"type": "text", "text": "5"}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}


def assert_invalid(message: Any, revision: str, *, method: str | None = None) -> str:
    with pytest.raises(AssertionError) as info:
        validate_server_message(message, revision, method=method)
    return str(info.value)


# --- every revision -------------------------------------------------------------------------


@pytest.mark.parametrize("revision", REVISIONS)
def test_schema_files_present(revision: str) -> None:
    assert (schemas_dir() / revision / "schema.json").is_file()
    assert "CallToolResult" in definition_names(revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_call_tool_result_valid(revision: str) -> None:
    msg = response(call_result(TEXT, isError=False, structuredContent={"result": 5}), revision)
    validate_server_message(msg, revision, method="tools/call")
    validate_server_message(msg, revision)  # envelope only


@pytest.mark.parametrize("revision", REVISIONS)
def test_call_tool_result_without_content_fails(revision: str) -> None:
    msg = response({"isError": False}, revision)
    text = assert_invalid(msg, revision, method="tools/call")
    assert "content" in text
    validate_server_message(msg, revision)  # the envelope alone does not know about content


@pytest.mark.parametrize("revision", REVISIONS)
def test_unknown_content_type_fails(revision: str) -> None:
    msg = response(call_result({"type": "video", "data": "x"}), revision)
    assert_invalid(msg, revision, method="tools/call")


@pytest.mark.parametrize("revision", REVISIONS)
def test_list_tools(revision: str) -> None:
    tool = {"name": "add", "description": "Add.", "inputSchema": {"type": "object"}}
    validate_server_message(response({"tools": [tool]}, revision), revision, method="tools/list")
    no_schema = {"name": "add"}
    assert_invalid(response({"tools": [no_schema]}, revision), revision, method="tools/list")
    assert_invalid(response({"tools": "add"}, revision), revision, method="tools/list")


@pytest.mark.parametrize("revision", REVISIONS)
def test_error_response(revision: str) -> None:
    good = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Method not found"}}
    validate_server_message(good, revision)
    string_code = {"jsonrpc": "2.0", "id": 3, "error": {"code": "-32601", "message": "nope"}}
    assert "code" in assert_invalid(string_code, revision)
    no_message = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601}}
    assert_invalid(no_message, revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_envelope_errors(revision: str) -> None:
    assert_invalid({"jsonrpc": "1.0", "id": 1, "result": {"content": []}}, revision)
    assert_invalid({"jsonrpc": "2.0", "result": {}}, revision)  # no id
    assert_invalid({"jsonrpc": "2.0", "id": None, "result": {}}, revision)
    both = {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}
    assert "both" in assert_invalid(both, revision)
    assert_invalid({"jsonrpc": "2.0"}, revision)
    assert_invalid("not an object", revision)


@pytest.mark.parametrize("revision", REVISIONS)
def test_notifications(revision: str) -> None:
    log = {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "hello"},
    }
    validate_server_message(log, revision)
    bad_level = {**log, "params": {"level": "verbose", "data": "hello"}}
    assert_invalid(bad_level, revision)
    progress = {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "t", "progress": 1},
    }
    validate_server_message(progress, revision)
    assert_invalid({**progress, "params": {"progressToken": "t"}}, revision)
    assert_invalid({"jsonrpc": "2.0", "method": "notifications/initialized"}, revision)


def test_unknown_revision() -> None:
    with pytest.raises(ValueError, match="unknown MCP revision"):
        validate_server_message({}, "2099-01-01")


# --- legacy (initialize handshake) ------------------------------------------------------------


@pytest.mark.parametrize("revision", LEGACY)
def test_initialize_result(revision: str) -> None:
    result = {
        "protocolVersion": revision,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "plainmcp", "version": "0.1.0"},
    }
    validate_server_message(response(result, revision), revision, method="initialize")
    no_info = {k: v for k, v in result.items() if k != "serverInfo"}
    assert "serverInfo" in assert_invalid(
        response(no_info, revision), revision, method="initialize"
    )


@pytest.mark.parametrize("revision", LEGACY)
def test_ping_and_set_level_are_empty_results(revision: str) -> None:
    validate_server_message(response({}, revision), revision, method="ping")
    validate_server_message(response({"_meta": {}}, revision), revision, method="logging/setLevel")


@pytest.mark.parametrize("revision", LEGACY)
def test_server_requests(revision: str) -> None:
    validate_server_message({"jsonrpc": "2.0", "id": 7, "method": "roots/list"}, revision)
    sampling = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "maxTokens": 10,
        },
    }
    validate_server_message(sampling, revision)
    no_max = {**sampling, "params": {"messages": sampling["params"]["messages"]}}
    assert_invalid(no_max, revision)
    assert_invalid({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, revision)


def test_audio_content_arrives_in_2025_03_26() -> None:
    msg = response(call_result(AUDIO), "2024-11-05")
    assert_invalid(msg, "2024-11-05", method="tools/call")
    for revision in REVISIONS[1:]:
        validate_server_message(
            response(call_result(AUDIO), revision), revision, method="tools/call"
        )


def test_resource_link_arrives_in_2025_06_18() -> None:
    for revision in ("2024-11-05", "2025-03-26"):
        assert_invalid(response(call_result(LINK), revision), revision, method="tools/call")
    for revision in REVISIONS[2:]:
        validate_server_message(
            response(call_result(LINK), revision), revision, method="tools/call"
        )


def test_structured_content_array_allowed_only_in_2026_07_28() -> None:
    for revision in ("2025-06-18", "2025-11-25"):
        msg = response(call_result(TEXT, structuredContent=[1, 2]), revision)
        assert "structuredContent" in assert_invalid(msg, revision, method="tools/call")
    msg = response(call_result(TEXT, structuredContent=[1, 2]), MODERN)
    validate_server_message(msg, MODERN, method="tools/call")


def test_elicitation_request_arrives_in_2025_06_18() -> None:
    elicit = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "elicitation/create",
        "params": {
            "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
    }
    assert_invalid(elicit, "2025-03-26")
    validate_server_message(elicit, "2025-06-18")
    validate_server_message(elicit, "2025-11-25")


def test_batch_responses_only_in_2025_03_26() -> None:
    batch = [
        response(call_result(TEXT), "2025-03-26", 1),
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool"}},
    ]
    validate_server_message(batch, "2025-03-26", method="tools/call")
    bad = [batch[0], response({"isError": True}, "2025-03-26", 3)]
    assert_invalid(bad, "2025-03-26", method="tools/call")
    assert_invalid([], "2025-03-26")
    assert_invalid(batch, "2025-06-18")


# --- 2026-07-28 (stateless) -------------------------------------------------------------------


def test_modern_results_need_result_type() -> None:
    msg = {"jsonrpc": "2.0", "id": 1, "result": call_result(TEXT)}
    assert "resultType" in assert_invalid(msg, MODERN, method="tools/call")
    assert "resultType" in assert_invalid(msg, MODERN)  # the envelope's Result requires it too
    validate_server_message(msg, "2025-11-25", method="tools/call")


def test_modern_input_required_result() -> None:
    msg = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"resultType": "input_required", "requestState": "s"},
    }
    validate_server_message(msg, MODERN, method="tools/call")
    # ListToolsResultResponse does not admit InputRequiredResult; the schema says so, not us.
    assert_invalid(msg, MODERN, method="tools/list")
    # The schema alone would take any object as InputRequiredResult; the prose rules would not.
    empty = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}}
    assert "requestState" in assert_invalid(empty, MODERN, method="tools/call")
    odd = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "partial", "content": []}}
    assert "resultType" in assert_invalid(odd, MODERN, method="tools/call")


def test_modern_discover() -> None:
    result = {
        "resultType": "complete",
        "supportedVersions": [MODERN],
        "capabilities": {"tools": {}},
        "ttlMs": 0,
        "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "plainmcp", "version": "0.1.0"}},
    }
    validate_server_message(
        {"jsonrpc": "2.0", "id": 1, "result": result}, MODERN, method="server/discover"
    )
    for missing in ("supportedVersions", "ttlMs", "cacheScope"):
        partial = {k: v for k, v in result.items() if k != missing}
        msg = {"jsonrpc": "2.0", "id": 1, "result": partial}
        assert missing in assert_invalid(msg, MODERN, method="server/discover")
    bad_scope = {"jsonrpc": "2.0", "id": 1, "result": {**result, "cacheScope": "shared"}}
    assert_invalid(bad_scope, MODERN, method="server/discover")


def test_modern_has_no_handshake_ping_or_server_requests() -> None:
    assert "initialize" in assert_invalid(response({}, MODERN), MODERN, method="initialize")
    assert_invalid(response({}, MODERN), MODERN, method="ping")
    assert_invalid({"jsonrpc": "2.0", "id": 7, "method": "roots/list"}, MODERN)


# --- the official 2026-07-28 examples -------------------------------------------------------

EXAMPLES = schemas_dir() / MODERN / "examples"
# definition folder -> method the result answers (None: a notification)
RESPONSE_EXAMPLES = {
    "CallToolResultResponse": "tools/call",
    "ListToolsResultResponse": "tools/list",
    "DiscoverResultResponse": "server/discover",
    "CompleteResultResponse": "completion/complete",
    "GetPromptResultResponse": "prompts/get",
    "ListPromptsResultResponse": "prompts/list",
    "ListResourcesResultResponse": "resources/list",
    "ListResourceTemplatesResultResponse": "resources/templates/list",
    "ReadResourceResultResponse": "resources/read",
}
RESULT_EXAMPLES = {
    "CallToolResult": "tools/call",
    "InputRequiredResult": "tools/call",
    "ListToolsResult": "tools/list",
    "DiscoverResult": "server/discover",
    "ReadResourceResult": "resources/read",
}
NOTIFICATION_EXAMPLES = ("ProgressNotification", "LoggingMessageNotification")
ERROR_EXAMPLES = ("InvalidParamsError", "MethodNotFoundError", "InternalError", "ParseError")


def _examples(*folders: str) -> list[Any]:
    files = sorted(p for f in folders for p in (EXAMPLES / f).glob("*.json"))
    return [pytest.param(p, id=f"{p.parent.name}/{p.stem}") for p in files]


# Upstream example that omits ttlMs/cacheScope, which ReadResourceResult requires. The raw schema
# accepts it only because InputRequiredResult (the other anyOf branch) requires nothing but
# resultType; validate_server_message dispatches on resultType and so rejects it.
STALE_EXAMPLES = {"ReadResourceResultResponse/read-resource-result-response"}


@pytest.mark.parametrize("path", _examples(*RESPONSE_EXAMPLES))
def test_example_responses(path: Any) -> None:
    message = json.loads(path.read_text())
    method = RESPONSE_EXAMPLES[path.parent.name]
    validate_definition(message, MODERN, path.parent.name)
    if f"{path.parent.name}/{path.stem}" in STALE_EXAMPLES:
        assert "ttlMs" in assert_invalid(message, MODERN, method=method)
    else:
        validate_server_message(message, MODERN, method=method)


@pytest.mark.parametrize("path", _examples(*RESULT_EXAMPLES))
def test_example_results(path: Any) -> None:
    result = json.loads(path.read_text())
    message = {"jsonrpc": "2.0", "id": "x", "result": result}
    validate_server_message(message, MODERN, method=RESULT_EXAMPLES[path.parent.name])


@pytest.mark.parametrize("path", _examples(*NOTIFICATION_EXAMPLES))
def test_example_notifications(path: Any) -> None:
    validate_server_message(json.loads(path.read_text()), MODERN)


@pytest.mark.parametrize("path", _examples(*ERROR_EXAMPLES))
def test_example_errors(path: Any) -> None:
    error = json.loads(path.read_text())
    validate_definition(error, MODERN, path.parent.name)
    validate_server_message({"jsonrpc": "2.0", "id": 5, "error": error}, MODERN)


def test_examples_found() -> None:
    assert len(_examples(*RESPONSE_EXAMPLES)) >= 5
    assert len(_examples(*RESULT_EXAMPLES)) >= 5


def test_example_with_array_structured_content_is_modern_only() -> None:
    path = EXAMPLES / "CallToolResult" / "result-with-array-structured-content.json"
    result = json.loads(path.read_text())
    validate_server_message(
        {"jsonrpc": "2.0", "id": 1, "result": result}, MODERN, method="tools/call"
    )
    legacy = {k: v for k, v in result.items() if k != "resultType"}
    message = {"jsonrpc": "2.0", "id": 1, "result": legacy}
    assert_invalid(message, "2025-11-25", method="tools/call")
