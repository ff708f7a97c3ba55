"""Which of the three modes a POST goes to, from its body and headers alone."""

from __future__ import annotations

from plainmcp.transports.http import modes
from plainmcp.wire.jsonrpc import Notification, Request
from plainmcp.wire.meta import PROTOCOL_VERSION

ENVELOPE = {"_meta": {PROTOCOL_VERSION: "2026-07-28"}}
PING = Request(1, "ping", {})
STATELESS_PING = Request(1, "ping", ENVELOPE)
NOTE = Notification("notifications/initialized", {})
V2026 = {"mcp-protocol-version": "2026-07-28"}


def test_a_request_carrying_its_revision_is_stateless_even_with_a_session_header() -> None:
    assert modes.route(STATELESS_PING, {"mcp-session-id": "s"}, True) is modes.stateless
    assert modes.route(STATELESS_PING, {}, False) is modes.stateless


def test_the_2026_header_without_a_session_is_stateless_for_any_body() -> None:
    for body in (PING, NOTE, [PING, NOTE]):
        assert modes.route(body, V2026, True) is modes.stateless
    assert modes.route(PING, {**V2026, "mcp-session-id": "s"}, True) is modes.sessions


def test_handshake_revisions_go_to_sessions_or_stand_alone() -> None:
    old = {"mcp-protocol-version": "2025-06-18"}
    assert modes.route(PING, old, True) is modes.sessions
    assert modes.route([PING], {}, True) is modes.sessions
    assert modes.route(PING, old, False) is modes.sessionless
    assert modes.route(NOTE, {}, False) is modes.sessionless
