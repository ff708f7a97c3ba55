"""Session state as data (wire.session): the decisions it drives, and its serialized form."""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson
import pytest

from plainmcp.wire.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, Request
from plainmcp.wire.methods import METHODS
from plainmcp.wire.revisions import REVISIONS
from plainmcp.wire.session import SessionState, unbatchable

HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def opened(version: str, features: frozenset[str] = frozenset({"tools"})) -> SessionState:
    state = SessionState()
    state.open(REVISIONS[version], {"name": "c"}, {"roots": {}}, features)
    return state


def test_before_initialize_only_initialize_and_ping_are_served() -> None:
    state = SessionState()
    refused = {}
    for name, method in METHODS.items():
        refusal = state.refusal(method)
        if refusal is not None:
            refused[name] = (refusal.code, refusal.message)
    assert set(METHODS) - set(refused) == {"initialize", "ping"}
    assert refused["tools/call"] == (
        INVALID_PARAMS,
        "Server not initialized: send initialize before tools/call",
    )


def test_once_open_a_second_initialize_and_the_2026_methods_are_refused() -> None:
    state = opened("2025-06-18")
    refused = {n: state.refusal(m) for n, m in METHODS.items()}
    assert [n for n, r in refused.items() if r is not None] == [
        "initialize",
        "server/discover",
        "subscriptions/listen",
    ]
    error = refused["initialize"]
    assert error is not None and (error.code, error.message) == (
        INVALID_REQUEST,
        "Already initialized",
    )


def test_open_keeps_what_initialize_settled() -> None:
    state = opened("2025-03-26", frozenset({"tools", "prompts"}))
    assert state.revision is REVISIONS["2025-03-26"]
    assert state.client_info == {"name": "c"}
    assert state.client_capabilities == {"roots": {}}
    assert state.features == {"tools", "prompts"}


@pytest.mark.parametrize("version", HANDSHAKE)
def test_list_changes_are_announced_for_the_features_initialize_offered(version: str) -> None:
    state = opened(version, frozenset({"tools", "resources"}))
    assert [f for f in ("tools", "prompts", "resources") if state.announces(f)] == [
        "tools",
        "resources",
    ]


def test_no_announcement_without_a_session_or_where_the_revision_sends_none() -> None:
    assert not SessionState(features=frozenset({"tools"})).announces("tools")
    modern = SessionState(REVISIONS["2026-07-28"], features=frozenset({"tools"}))
    assert REVISIONS["2026-07-28"].session_notifications is False
    assert not modern.announces("tools")


def test_resource_updates_go_to_subscribed_uris_only() -> None:
    state = opened("2025-11-25")
    state.subscribe("file:///a")
    assert state.hears_updates_of("file:///a")
    assert not state.hears_updates_of("file:///b")
    assert not SessionState(subscriptions={"file:///a"}).hears_updates_of("file:///a")


def test_errors_without_an_id_follow_the_revision() -> None:
    assert SessionState().errors_without_id  # before initialize: our latest form
    assert [v for v in HANDSHAKE if opened(v).errors_without_id] == ["2025-11-25"]


def test_batches_are_served_only_in_a_2025_03_26_session() -> None:
    assert opened("2025-03-26").batch_refusal() is None
    for version in ("2024-11-05", "2025-06-18", "2025-11-25"):
        refusal = opened(version).batch_refusal()
        assert refusal is not None and (refusal.code, refusal.message) == (
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are only part of revision 2025-03-26"
            f" (this session: {version})",
        )
    refusal = SessionState().batch_refusal()
    assert refusal is not None and refusal.message.endswith("(this session: none negotiated)")


def test_what_may_not_travel_in_a_batch() -> None:
    init = Request(1, "initialize", {})
    assert unbatchable(init, METHODS["initialize"]) == "initialize must not be batched"
    modern = Request(2, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "x"}})
    assert unbatchable(modern, METHODS["tools/list"]) == (
        "Invalid Request: a 2026-07-28 request cannot travel in a JSON-RPC batch"
    )
    assert unbatchable(Request(3, "tools/list", {}), METHODS["tools/list"]) is None
    assert unbatchable(Request(4, "nope", {}), None) is None


def test_to_dict_is_json_and_from_dict_restores_it() -> None:
    state = opened("2025-06-18", frozenset({"tools", "resources"}))
    state.complete_handshake()
    state.set_log_level("warning")
    state.subscribe("file:///b")
    state.subscribe("file:///a")
    data = orjson.loads(orjson.dumps(state.to_dict()))
    assert data == {
        "revision": "2025-06-18",
        "client_info": {"name": "c"},
        "client_capabilities": {"roots": {}},
        "features": ["resources", "tools"],
        "initialized": True,
        "log_level": "warning",
        "subscriptions": ["file:///a", "file:///b"],
    }
    restored = SessionState.from_dict(data)
    assert restored == state
    assert restored.revision is REVISIONS["2025-06-18"]
    assert SessionState.from_dict(SessionState().to_dict()) == SessionState()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"revision": "2026-07-28"}, "not a handshake revision: '2026-07-28'"),
        ({"revision": "1999-01-01"}, "not a handshake revision: '1999-01-01'"),
        ({"revision": 5}, "not a handshake revision: 5"),
        ({"client_info": []}, "client_info and client_capabilities must be objects"),
        ({"client_capabilities": None}, "client_info and client_capabilities must be objects"),
        ({"features": "tools"}, "features and subscriptions must be lists of strings"),
        ({"subscriptions": [1]}, "features and subscriptions must be lists of strings"),
        ({"log_level": "loud"}, "not a log level: 'loud'"),
        ({"initialized": 1}, "initialized must be a boolean"),
    ],
)
def test_from_dict_refuses_what_to_dict_never_gives(change: dict[str, Any], message: str) -> None:
    data = {**opened("2025-11-25").to_dict(), **change}
    with pytest.raises(ValueError) as raised:
        SessionState.from_dict(data)
    assert str(raised.value) == message


def test_a_session_is_not_served_what_its_revision_lacks() -> None:
    state = opened("2025-11-25")
    refusal = state.refusal(METHODS["subscriptions/listen"])
    assert refusal is not None and (refusal.code, refusal.message) == (
        -32601,
        "Method not found: subscriptions/listen",
    )


def test_the_state_changes_only_through_its_events() -> None:
    state = opened("2025-11-25")
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.log_level = "debug"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.subscriptions.add("file:///a")  # type: ignore[attr-defined]
    state.subscribe("file:///a")
    state.subscribe("file:///b")
    state.unsubscribe("file:///a")
    state.unsubscribe("file:///never")
    assert state.subscriptions == {"file:///b"}
    with pytest.raises(ValueError, match="not a log level: 'loud'"):
        state.set_log_level("loud")
    assert state.log_level is None


def test_restore_replaces_the_state_in_place() -> None:
    live, stored = opened("2024-11-05"), opened("2025-06-18", frozenset({"prompts"}))
    stored.complete_handshake()
    stored.set_log_level("error")
    stored.subscribe("file:///a")
    held = live
    live.restore(stored)
    assert held is live and live == stored
    assert live.to_dict() == stored.to_dict()
