"""The 2026-07-28 request envelope (params._meta)."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp.wire.envelope import declaring, is_stateless, stamp, stateless_revision
from plainmcp.wire.jsonrpc import RpcError
from plainmcp.wire.revisions import REVISIONS

V = "io.modelcontextprotocol/protocolVersion"
C = "io.modelcontextprotocol/clientCapabilities"


def test_a_complete_envelope_names_its_revision() -> None:
    rev = stateless_revision("tools/list", {"_meta": {V: "2026-07-28", C: {}}})
    assert rev.version == "2026-07-28"
    assert is_stateless({"_meta": {V: "2026-07-28"}})
    assert not is_stateless({"_meta": {}}) and not is_stateless({})


@pytest.mark.parametrize(
    ("method", "meta", "code", "message"),
    [
        ("tools/list", None, -32602, f"Invalid params: _meta must carry {V}"),
        ("tools/list", {V: 5, C: {}}, -32602, f"Invalid params: {V} must be a string"),
        (
            "tools/list",
            {V: "2025-11-25", C: {}},
            -32022,
            "Unsupported protocol version: 2025-11-25",
        ),
        (
            "tools/list",
            {V: "2026-07-28"},
            -32602,
            f"Invalid params: _meta must carry {C} (an object)",
        ),
        (
            "tools/list",
            {V: "2026-07-28", C: {}, "io.modelcontextprotocol/logLevel": "loud"},
            -32602,
            "Invalid params: io.modelcontextprotocol/logLevel must be one of debug, info, notice,"
            " warning, error, critical, alert, emergency",
        ),
        (
            "ping",
            {V: "2026-07-28", C: {}},
            -32601,
            "Method not found: ping is not part of protocol revision 2026-07-28",
        ),
    ],
)
def test_envelope_errors(method: str, meta: Any, code: int, message: str) -> None:
    params = {} if meta is None else {"_meta": meta}
    with pytest.raises(RpcError) as caught:
        stateless_revision(method, params)
    assert (caught.value.code, caught.value.message) == (code, message)


# --- the era predicate: from a body or from a version ----------------------------------


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, False),
        ({"_meta": {}}, False),
        ({"_meta": None}, False),
        ({"_meta": {"progressToken": 1}}, False),
        ({"_meta": [V]}, False),
        ({"_meta": {V: "2026-07-28"}}, True),
        ({"_meta": {V: "1999-01-01"}}, True),  # refused later, as that era's error
        ({"_meta": {V: 5}}, True),
    ],
)
def test_a_body_is_stateless_when_its_meta_names_a_version(
    params: dict[str, Any], expected: bool
) -> None:
    assert is_stateless(params) is expected


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2026-07-28", True),
        ("2025-11-25", False),
        ("2024-11-05", False),
        ("1999-01-01", False),
        ("", False),
        (" 2026-07-28", False),  # as given: a header is stripped by its reader
        (None, False),
    ],
)
def test_a_version_is_stateless_when_its_revision_has_no_handshake(
    version: str | None, expected: bool
) -> None:
    assert is_stateless(version=version) is expected


def test_either_says_so() -> None:
    assert is_stateless({}, version="2026-07-28")
    assert is_stateless({"_meta": {V: "2026-07-28"}}, version="2025-11-25")
    assert not is_stateless(None)


# --- stamp: a client's request as a revision wants it ----------------------------------------

CLIENT = {"name": "probe", "version": "1"}


def test_a_stateless_request_carries_the_clients_envelope() -> None:
    stamped = stamp(
        {"name": "add"}, REVISIONS["2026-07-28"], capabilities={"roots": {}}, client_info=CLIENT
    )
    assert stamped == {
        "name": "add",
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            "io.modelcontextprotocol/clientInfo": CLIENT,
        },
    }


def test_capabilities_a_request_declares_for_itself_are_kept() -> None:
    own = {"extensions": {"io.modelcontextprotocol/skills": {}}}
    params = {"_meta": {"io.modelcontextprotocol/clientCapabilities": own, "k": 1}}
    stamped = stamp(params, REVISIONS["2026-07-28"], capabilities={"roots": {}}, client_info=CLIENT)
    assert stamped is not None
    assert stamped["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {"roots": {}, **own}
    assert stamped["_meta"]["k"] == 1
    assert params["_meta"]["io.modelcontextprotocol/clientCapabilities"] == own  # not changed


def test_a_handshake_request_is_sent_as_given() -> None:
    params = {"name": "add"}
    assert stamp(params, REVISIONS["2025-11-25"], capabilities={}, client_info=CLIENT) == params


def test_an_extension_declared_for_one_request_joins_the_clients_own() -> None:
    caps = "io.modelcontextprotocol/clientCapabilities"
    params = declaring({"name": "build", "_meta": {"k": 1}}, "io.modelcontextprotocol/tasks")
    assert params == {
        "name": "build",
        "_meta": {"k": 1, caps: {"extensions": {"io.modelcontextprotocol/tasks": {}}}},
    }
    client = {"roots": {}, "extensions": {"com.example/widgets": {"v": 2}}}
    stamped = stamp(params, REVISIONS["2026-07-28"], capabilities=client, client_info={"name": "c"})
    assert stamped is not None
    assert stamped["_meta"][caps] == {
        "roots": {},
        "extensions": {"com.example/widgets": {"v": 2}, "io.modelcontextprotocol/tasks": {}},
    }
