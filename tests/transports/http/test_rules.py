"""The sans-I/O HTTP rules: Accept and Content-Type, version headers, header/body agreement,
and the status code each JSON-RPC answer travels with."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp.transports.http import rules
from plainmcp.wire.jsonrpc import STORE_UNAVAILABLE, Request

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


@pytest.mark.parametrize(
    ("accept", "ok"),
    [
        ("application/json, text/event-stream", True),
        ("text/event-stream;q=0.9, application/json;q=1", True),
        ("*/*", True),
        ("application/*, text/*", True),
        ("application/json", False),
        ("text/event-stream", False),
        ("", False),
        (None, False),
    ],
)
def test_a_post_must_accept_json_and_event_streams(accept: str | None, ok: bool) -> None:
    assert rules.accepts_post_reply(accept) is ok


def test_content_type_parameters_are_ignored() -> None:
    assert rules.is_json("application/json; charset=utf-8")
    assert rules.is_json("Application/JSON")
    assert not rules.is_json("text/plain")
    assert not rules.is_json(None)


@pytest.mark.parametrize(
    ("reply", "stateless", "status"),
    [
        ({"result": {}}, True, 200),
        ({"error": {"code": -32601, "message": ""}}, True, 404),
        ({"error": {"code": -32020, "message": ""}}, True, 400),
        ({"error": {"code": -32021, "message": ""}}, True, 400),
        ({"error": {"code": -32022, "message": ""}}, True, 400),
        ({"error": {"code": -32602, "message": ""}}, True, 200),
        ({"error": {"code": -32601, "message": ""}}, False, 200),
        ({"error": {"code": -32700, "message": ""}}, False, 400),
        ({"error": {"code": "x", "message": ""}}, True, 200),
        ({"error": {"code": -32603, "message": STORE_UNAVAILABLE}}, True, 503),
        ({"error": {"code": -32603, "message": STORE_UNAVAILABLE}}, False, 503),
        ({"error": {"code": -32603, "message": "Internal error"}}, False, 200),
    ],
)
def test_status_codes(reply: dict[str, Any], stateless: bool, status: int) -> None:
    assert rules.status_for(reply, stateless=stateless) == status


@pytest.mark.parametrize("version", [None, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_any_handshake_version_is_fine_inside_a_session(version: str | None) -> None:
    assert rules.session_version_error(version) is None


@pytest.mark.parametrize("version", ["2026-07-28", "draft", ""])
def test_other_versions_are_refused_inside_a_session(version: str) -> None:
    error = rules.session_version_error(version)
    assert error is not None and error.code == -32600


def request(method: str, **params: Any) -> Request:
    return Request(1, method, {**params, "_meta": META})


def headers(**more: str) -> dict[str, str]:
    return {"mcp-protocol-version": "2026-07-28", **more}


def no_markers(tool: str) -> dict[str, str]:
    return {}


def test_headers_that_agree_pass() -> None:
    assert (
        rules.stateless_header_error(
            headers(**{"mcp-method": "resources/read", "mcp-name": "file:///a b"}),
            request("resources/read", uri="file:///a b"),
            no_markers,
        )
        is None
    )
    assert (
        rules.stateless_header_error(
            headers(**{"mcp-method": "tools/list"}), request("tools/list"), no_markers
        )
        is None
    )


def test_a_subscribe_needs_no_mcp_name_header() -> None:
    # The table says what subscribe is about (for telemetry) without making it a target.
    for method in ("resources/subscribe", "resources/unsubscribe"):
        assert (
            rules.stateless_header_error(
                headers(**{"mcp-method": method}), request(method, uri="note://a"), no_markers
            )
            is None
        )


def test_mirrored_integers_compare_numerically_and_absent_arguments_send_no_header() -> None:
    def markers(tool: str) -> dict[str, str]:
        return {"Priority": "/priority", "Region": "/region"}

    call = request("tools/call", name="t", arguments={"priority": 42})
    base = headers(**{"mcp-method": "tools/call", "mcp-name": "t"})
    assert (
        rules.stateless_header_error({**base, "mcp-param-priority": "42.0"}, call, markers) is None
    )
    extra = rules.stateless_header_error(
        {**base, "mcp-param-priority": "42", "mcp-param-region": "eu"}, call, markers
    )
    assert extra is not None
    assert extra.message == "Header mismatch: Mcp-Param-Region is sent but the argument is absent"
