"""Every method of the method table, at every revision, is answered alike in every mode: over
the in-memory connection (what stdio serves), over HTTP with handshake sessions, over HTTP
without sessions (`sessions=None`), and for 2026-07-28 over HTTP statelessly (both apps route
a 2026-07-28 POST there). Alike: the same result, or an error with the same code.

What a client is offered is decided in one place (plainmcp.offers); this pins that the modes
do not disagree, e.g. a sessionless 2024-11-05 request served completion/complete as a
session at that revision is.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import pytest

from plainmcp import Server
from plainmcp.wire.methods import METHODS
from plainmcp.wire.request_headers import stateless_headers
from plainmcp.wire.revisions import REVISIONS
from tests.conftest import Session
from tests.transports.http.asgi import meta, open_call, request

pytestmark = pytest.mark.anyio

CLIENT = {"name": "modes-tests", "version": "0"}
NOTES = "file:///notes.txt"

PARAMS: dict[str, dict[str, Any]] = {
    "initialize": {"capabilities": {}, "clientInfo": CLIENT},  # protocolVersion added
    "server/discover": {},
    "ping": {},
    "logging/setLevel": {"level": "warning"},
    "tools/list": {},
    "tools/call": {"name": "add", "arguments": {"a": 1, "b": 2}},
    "resources/list": {},
    "resources/templates/list": {},
    "resources/read": {"uri": NOTES},
    "resources/subscribe": {"uri": NOTES},
    "resources/unsubscribe": {"uri": NOTES},
    "prompts/list": {},
    "prompts/get": {"name": "greet", "arguments": {"topic": "python"}},
    "completion/complete": {
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "topic", "value": "p"},
    },
    "subscriptions/listen": {"notifications": {"toolsListChanged": True}},
}

Outcome = tuple[str, Any]


class Shelf(Enum):
    """A template variable that completes on its own."""

    FICTION = "fiction"
    POETRY = "poetry"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def topics(value: str, _: Any) -> list[str]:
    return [t for t in ("python", "perl") if t.startswith(value)]


def make_server() -> Server:
    """Tools, resources, a template, a prompt and completers: every method is live."""
    app = Server("modes", "1.0.0", instructions="Every method is live here.")

    @app.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @app.resource(NOTES)
    def notes() -> str:
        """The notes."""
        return "the notes"

    @app.resource("file:///shelves/{shelf}")
    def shelf(shelf: Shelf) -> str:
        """One shelf."""
        return f"books on {shelf.value}"

    @app.prompt(complete={"topic": topics})
    def greet(topic: str) -> str:
        """Greet someone about a topic."""
        return f"Hello! Let us talk about {topic}."

    return app


def test_the_table_is_covered() -> None:
    assert set(PARAMS) == set(METHODS)


def params_for(method: str, version: str) -> dict[str, Any]:
    params = dict(PARAMS[method])
    if method == "initialize":
        params["protocolVersion"] = version
    if not REVISIONS[version].handshake:
        params["_meta"] = meta()
    return params


def outcome_of(reply: dict[str, Any]) -> Outcome:
    if "error" in reply:
        return ("error", reply["error"]["code"])
    return ("result", reply["result"])


# --- the modes -------------------------------------------------------------------------------


async def in_memory(method: str, version: str) -> Outcome:
    params = params_for(method, version)
    async with Session(make_server(), revision_hint=version) as s:
        if REVISIONS[version].handshake and method != "initialize":
            await s.initialize(version)
        if method == "subscriptions/listen" and not REVISIONS[version].handshake:
            await s.start(method, params, id=7)
            acknowledged = await s.wait_for(
                lambda m: m.get("method") == "notifications/subscriptions/acknowledged"
            )
            return ("notification", acknowledged["params"])
        return outcome_of(await s.request(method, params, id=7))


def http_reply(call: Any, request_id: int) -> dict[str, Any]:
    if call.content_type.startswith("text/event-stream"):
        (reply,) = [e for e in call.events() if e.get("id") == request_id]
        return dict(reply)
    return dict(call.json())


async def over_http(app: Any, method: str, version: str, session: bool) -> Outcome:
    """One POST of the request (after the handshake of a session when `session`)."""
    params = params_for(method, version)
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    headers = {"mcp-protocol-version": version}
    if not REVISIONS[version].handshake:
        headers = stateless_headers(method, params)
    elif session and method != "initialize":
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": params_for("initialize", version),
        }
        opened = await request(app, body=init, revision=version)
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        acknowledged = await request(app, body=done, headers=headers, revision=version)
        assert acknowledged.status == 202
    if method == "subscriptions/listen" and not REVISIONS[version].handshake:
        async with open_call(app, body=body, headers=headers, revision=version) as call:
            event = await call.next_event()
            call.disconnect()
        return ("notification", event["params"])
    return outcome_of(
        http_reply(await request(app, body=body, headers=headers, revision=version), 7)
    )


async def with_sessions(method: str, version: str) -> Outcome:
    return await over_http(make_server().http_app(), method, version, session=True)


async def sessionless(method: str, version: str) -> Outcome:
    return await over_http(make_server().http_app(sessions=None), method, version, session=False)


@pytest.mark.parametrize("version", list(REVISIONS))
@pytest.mark.parametrize("method", list(METHODS))
async def test_every_mode_answers_alike(method: str, version: str) -> None:
    answers = {
        "in memory": await in_memory(method, version),
        "HTTP sessions": await with_sessions(method, version),
        "HTTP sessionless": await sessionless(method, version),
    }
    expected = answers["in memory"]
    if version in METHODS[method].revisions:  # live: served, not refused
        assert expected[0] != "error", expected
    assert {mode: a for mode, a in answers.items() if a != expected} == {}


async def test_a_2024_11_05_client_without_a_session_is_served_completions() -> None:
    assert await sessionless("completion/complete", "2024-11-05") == (
        "result",
        {"completion": {"values": ["python", "perl"], "total": 2, "hasMore": False}},
    )
