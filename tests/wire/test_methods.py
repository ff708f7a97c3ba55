"""The method table (wire.methods), walked: every method's revisions (against the official
schemas), capability, target, pagination, and the -32602 answer for each param it declares."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError
from plainmcp.wire.methods import METHODS, Method, Param, Target, check
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import _defs

ALL = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
HANDSHAKE = ALL[:4]
STATELESS = ALL[4:]

VALID: dict[str, dict[str, Any]] = {
    "initialize": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
    "server/discover": {},
    "ping": {},
    "logging/setLevel": {"level": "info"},
    "tools/list": {"cursor": "b:0"},
    "tools/call": {"name": "add", "arguments": {"a": 1}},
    "resources/list": {},
    "resources/templates/list": {},
    "resources/read": {"uri": "file:///a"},
    "resources/subscribe": {"uri": "file:///a"},
    "resources/unsubscribe": {"uri": "file:///a"},
    "prompts/list": {},
    "prompts/get": {"name": "greet", "arguments": {"who": "x"}},
    "completion/complete": {"ref": {"type": "ref/prompt"}, "argument": {}},
    "subscriptions/listen": {"notifications": {"resourceSubscriptions": ["file:///a"]}},
}
"""Params each method accepts (as far as the table checks them)."""


def _request_methods(version: str) -> set[str]:
    """The client-to-server request methods the official schema of `version` defines."""
    found = set()
    for name, definition in _defs(version).items():
        method = (definition.get("properties") or {}).get("method") or {}
        if name.endswith("Request") and "const" in method:
            found.add(method["const"])
    return found


def test_the_table_is_keyed_by_the_methods_own_names() -> None:
    assert list(METHODS) == list(VALID)
    assert all(m.name == name for name, m in METHODS.items())


@pytest.mark.parametrize(
    ("name", "revisions"),
    [
        ("initialize", HANDSHAKE),
        ("ping", HANDSHAKE),
        ("logging/setLevel", HANDSHAKE),
        ("resources/subscribe", HANDSHAKE),
        ("resources/unsubscribe", HANDSHAKE),
        ("server/discover", STATELESS),
        ("subscriptions/listen", STATELESS),
        *(
            (name, ALL)
            for name in (
                "tools/list",
                "tools/call",
                "resources/list",
                "resources/templates/list",
                "resources/read",
                "prompts/list",
                "prompts/get",
                "completion/complete",
            )
        ),
    ],
)
def test_the_revisions_each_method_exists_in(name: str, revisions: tuple[str, ...]) -> None:
    assert METHODS[name].revisions == set(revisions)


@pytest.mark.parametrize("version", ALL)
def test_the_methods_of_each_revision_are_those_its_schema_defines(version: str) -> None:
    ours = {name for name, m in METHODS.items() if version in m.revisions}
    assert ours == _request_methods(version) & set(METHODS)


def test_a_method_is_missing_after_its_first_revision_only_where_that_revision_removed_it() -> None:
    for method in METHODS.values():
        later = list(REVISIONS)[list(REVISIONS).index(method.since) :]
        for version in later:
            removed = method.name in REVISIONS[version].removed_methods
            assert (version not in method.revisions) == removed, (method.name, version)


def test_capabilities_a_session_must_have_been_offered() -> None:
    needs = {name: m.capability for name, m in METHODS.items() if m.capability is not None}
    assert needs == {
        "resources/list": "resources",
        "resources/templates/list": "resources",
        "resources/read": "resources",
        "resources/subscribe": "resources",
        "resources/unsubscribe": "resources",
        "prompts/list": "prompts",
        "prompts/get": "prompts",
        "completion/complete": "completions",
    }


def test_targets_name_a_tool_a_prompt_or_a_resource() -> None:
    targets = {
        name: (m.target.param, m.target.kind, m.target.arguments)
        for name, m in METHODS.items()
        if m.target is not None
    }
    assert targets == {
        "tools/call": ("name", "tool", True),
        "prompts/get": ("name", "prompt", True),
        "resources/read": ("uri", "resource", False),
    }


def test_subscribe_and_unsubscribe_name_a_resource_without_being_a_target() -> None:
    # `about` is what telemetry reads; `target` alone asks input and needs Mcp-Name.
    about = {name: m.about for name, m in METHODS.items() if m.about is not None}
    assert about == {
        "resources/subscribe": Target("uri", "resource", arguments=False),
        "resources/unsubscribe": Target("uri", "resource", arguments=False),
    }
    assert all(METHODS[name].target is None for name in about)
    named = {name: m.named.kind for name, m in METHODS.items() if m.named is not None}
    assert named == {
        "tools/call": "tool",
        "resources/read": "resource",
        "resources/subscribe": "resource",
        "resources/unsubscribe": "resource",
        "prompts/get": "prompt",
    }


def test_paginated_lists_and_their_result_keys() -> None:
    lists = {name: m.lists for name, m in METHODS.items() if m.lists is not None}
    assert lists == {
        "tools/list": "tools",
        "resources/list": "resources",
        "resources/templates/list": "resourceTemplates",
        "prompts/list": "prompts",
    }
    # every paginated list takes a cursor
    for name in lists:
        assert [p.name for p in METHODS[name].params] == ["cursor"]


def test_freshness_hints() -> None:
    ttl = {name: m.ttl for name, m in METHODS.items() if m.ttl is not None}
    assert ttl == {
        "server/discover": "list",
        "tools/list": "list",
        "resources/list": "list",
        "resources/templates/list": "list",
        "resources/read": "read",
        "prompts/list": "list",
    }


def test_the_session_rules_of_the_handshake_methods() -> None:
    assert [n for n, m in METHODS.items() if m.before_initialize] == ["initialize", "ping"]
    assert [n for n, m in METHODS.items() if m.starts_session] == ["initialize"]
    assert [n for n, m in METHODS.items() if m.needs_envelope] == ["server/discover"]


@pytest.mark.parametrize("name", list(VALID))
def test_valid_params_pass(name: str) -> None:
    check(METHODS[name].params, VALID[name])


def _wrong(param: Param) -> Any:
    if param.one_of:
        return "loud"
    return {"string": 7, "object": "text", "array": {"not": "a list"}}[param.kind]


def _walk(method: Method) -> list[tuple[str, dict[str, Any], str]]:
    """(case, params, the message expected) for every way the declared params can be wrong."""
    base = VALID[method.name]
    cases = []
    for param in method.params:
        name, problem = param.name, param.problem
        cases.append((f"{name}={_wrong(param)!r}", {**base, name: _wrong(param)}, problem))
        if param.required:
            absent = {k: v for k, v in base.items() if k != name}
            cases.append((f"{name} absent", absent, problem))
        if param.required or not param.nullable:
            cases.append((f"{name}=null", {**base, name: None}, problem))
        if param.items is not None:
            cases.append((f"{name} items", {**base, name: [7]}, problem))
        for inner in param.fields:
            wrong = {**base[name], inner.name: _wrong(inner)}
            cases.append((f"{name}.{inner.name}", {**base, name: wrong}, inner.problem))
            if inner.items is not None:
                mixed = {**base[name], inner.name: ["file:///a", 7]}
                cases.append((f"{name}.{inner.name} items", {**base, name: mixed}, inner.problem))
    return cases


CASES = [
    pytest.param(method, params, message, id=f"{method.name} {case}")
    for method in METHODS.values()
    for case, params, message in _walk(method)
]


@pytest.mark.parametrize(("method", "params", "message"), CASES)
def test_each_wrong_param_is_invalid_params_naming_it(
    method: Method, params: dict[str, Any], message: str
) -> None:
    with pytest.raises(RpcError) as raised:
        check(method.params, params)
    assert (raised.value.code, raised.value.message) == (INVALID_PARAMS, message)


def test_the_messages_clients_are_answered() -> None:
    problems = {f"{name} {p.name}": p.problem for name, m in METHODS.items() for p in m.params} | {
        f"{name} {p.name}.{f.name}": f.problem
        for name, m in METHODS.items()
        for p in m.params
        for f in p.fields
    }
    and_objects = "Invalid params: capabilities and clientInfo must be objects"
    assert problems == {
        "initialize protocolVersion": "Invalid params: protocolVersion must be a string",
        "initialize capabilities": and_objects,
        "initialize clientInfo": and_objects,
        "logging/setLevel level": "Invalid params: level must be one of debug, info, notice,"
        " warning, error, critical, alert, emergency",
        "tools/list cursor": "Invalid params: unknown cursor",
        "tools/call name": "Invalid params: name must be a string",
        "tools/call arguments": "Invalid params: arguments must be an object",
        "resources/list cursor": "Invalid params: unknown cursor",
        "resources/templates/list cursor": "Invalid params: unknown cursor",
        "resources/read uri": "Invalid params: uri must be a string",
        "resources/subscribe uri": "Invalid params: uri must be a string",
        "resources/unsubscribe uri": "Invalid params: uri must be a string",
        "prompts/list cursor": "Invalid params: unknown cursor",
        "prompts/get name": "Invalid params: name must be a string",
        "completion/complete ref": "Invalid params: ref and argument must be objects",
        "completion/complete argument": "Invalid params: ref and argument must be objects",
        "subscriptions/listen notifications": "Invalid params: notifications must be an object",
        "subscriptions/listen notifications.resourceSubscriptions": (
            "Invalid params: resourceSubscriptions must be a list of URIs"
        ),
    }


def test_optional_params_may_be_absent_or_null_unless_null_is_refused() -> None:
    call = METHODS["tools/call"].params
    check(call, {"name": "add"})
    check(call, {"name": "add", "arguments": None})
    with pytest.raises(RpcError, match="capabilities and clientInfo"):
        check(METHODS["initialize"].params, {"protocolVersion": "x", "capabilities": None})
    check(METHODS["initialize"].params, {"protocolVersion": "x"})


def test_the_first_wrong_param_in_declared_order_is_named() -> None:
    with pytest.raises(RpcError, match="name must be a string"):
        check(METHODS["tools/call"].params, {"name": 1, "arguments": 2})
