"""The dispatcher (dispatch.py) reads the method table: a handler for every entry, each method
answered where it is absent, and the declared params checked before any handler runs."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import Server
from plainmcp.dispatch import HANDLERS
from plainmcp.wire.methods import METHODS
from plainmcp.wire.revisions import REVISIONS
from tests.conftest import Session

pytestmark = pytest.mark.anyio

STATELESS = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientCapabilities": {},
}
HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def make_server() -> Server:
    app = Server("dispatch", version="1.0.0")
    app.add_resource("v1", "app://config", name="config")

    @app.resource("app://items/{item}")
    def item(item: str) -> str:
        return item

    @app.prompt
    def greet(who: str) -> str:
        return f"Hello {who}"

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    return app


def test_every_method_of_the_table_has_a_handler_and_nothing_else_does() -> None:
    assert {m.name for m in HANDLERS} == set(METHODS)
    assert all(HANDLERS[m].__module__.startswith("plainmcp.handlers.") for m in HANDLERS)


def _wrong(kind: str) -> Any:
    return {"string": 7, "object": "text", "array": {"not": "a list"}}[kind]


@pytest.mark.parametrize("name", [n for n, m in METHODS.items() if m.params])
async def test_the_first_declared_param_is_checked_before_the_handler(name: str) -> None:
    method = METHODS[name]
    first = method.params[0]
    params = {first.name: "loud" if first.one_of else _wrong(first.kind)}
    async with Session(make_server(), revision_hint=STATELESS) as s:
        if "2025-11-25" in method.revisions and not method.starts_session:
            await s.initialize("2025-11-25")
        elif not method.starts_session:
            params["_meta"] = META
        reply = await s.request(name, params)
    assert reply["error"] == {"code": -32602, "message": first.problem}


ABSENT = [
    (name, version)
    for name, method in METHODS.items()
    for version in REVISIONS
    if version not in method.revisions
]


@pytest.mark.parametrize(("name", "version"), ABSENT)
async def test_a_method_is_answered_as_absent_where_its_revision_lacks_it(
    name: str, version: str
) -> None:
    async with Session(make_server(), revision_hint=version) as s:
        if version in HANDSHAKE:
            await s.initialize(version)
            reply = await s.request(name, {})
        else:
            reply = await s.request(name, {"_meta": META})
    if version not in HANDSHAKE:
        message = f"Method not found: {name} is not part of protocol revision {version}"
        assert reply["error"] == {"code": -32601, "message": message}
    elif METHODS[name].needs_envelope:
        message = "Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion"
        assert reply["error"] == {"code": -32602, "message": message}
    else:
        assert reply["error"] == {"code": -32601, "message": f"Method not found: {name}"}


async def test_an_unknown_method_is_not_found_in_both_eras() -> None:
    async with Session(make_server(), revision_hint=STATELESS) as s:
        modern = await s.request("tools/delete", {"_meta": META})
        await s.initialize("2025-11-25")
        legacy = await s.request("tools/delete", {})
    for reply in (modern, legacy):
        assert reply["error"] == {"code": -32601, "message": "Method not found: tools/delete"}
