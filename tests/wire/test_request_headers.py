"""The headers of a stateless request, from its body."""

from __future__ import annotations

from plainmcp.wire.meta import PROTOCOL_VERSION
from plainmcp.wire.request_headers import stateless_headers

META = {"_meta": {PROTOCOL_VERSION: "2026-07-28"}}
SCHEMA = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "limit": {"type": "integer", "x-mcp-header": "Limit"},
        "query": {"type": "string"},
    },
}


def test_every_request_names_its_version_and_method() -> None:
    assert stateless_headers("tools/list", META) == {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
    }


def test_a_targeted_request_names_its_target() -> None:
    assert stateless_headers("resources/read", {**META, "uri": "test://a"})["mcp-name"] == (
        "test://a"
    )
    assert stateless_headers("prompts/get", {**META, "name": "grüße"})["mcp-name"] == (
        "=?base64?Z3LDvMOfZQ==?="
    )


def test_marked_arguments_are_mirrored_and_absent_ones_are_not() -> None:
    params = {**META, "name": "sql", "arguments": {"region": "eu", "query": "select 1"}}
    assert stateless_headers("tools/call", params, SCHEMA) == {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "sql",
        "mcp-param-region": "eu",
    }
    params["arguments"] = {"region": "eu", "limit": 10}
    assert stateless_headers("tools/call", params, SCHEMA)["mcp-param-limit"] == "10"


def test_a_session_request_has_none() -> None:
    assert stateless_headers("tools/call", {"name": "sql"}) == {}


def test_an_extension_method_names_its_target_by_the_param_given() -> None:
    params = {"taskId": "t-1", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    assert stateless_headers("tasks/get", params, target="taskId") == {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tasks/get",
        "mcp-name": "t-1",
    }
    assert "mcp-name" not in stateless_headers("tasks/get", params)
