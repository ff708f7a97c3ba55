"""subscriptions/listen (2026-07-28): a stream of the notifications the client opted in to."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import Server
from tests.conftest import Session

pytestmark = pytest.mark.anyio

SUB = "io.modelcontextprotocol/subscriptionId"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def make_server() -> Server:
    app = Server("listen", version="1.0.0", continuation=None)
    app.add_resource("v1", "app://config", name="config")

    @app.tool
    def ping_tool() -> str:
        return "pong"

    return app


async def listen(s: Session, notifications: dict[str, Any], request_id: str) -> dict[str, Any]:
    await s.start(
        "subscriptions/listen", {"_meta": META, "notifications": notifications}, id=request_id
    )
    ack: dict[str, Any] = await s.wait_for(
        lambda m: (
            m.get("method") == "notifications/subscriptions/acknowledged"
            and m["params"]["_meta"][SUB] == request_id
        )
    )
    return ack


async def test_acknowledged_first_and_only_what_was_asked() -> None:
    app = make_server()
    async with Session(app, revision_hint="2026-07-28") as s:
        ack = await listen(
            s,
            {
                "toolsListChanged": True,
                "promptsListChanged": True,  # no prompts: not honoured
                "resourceSubscriptions": ["app://config", "app://nope"],
            },
            "listen-1",
        )
        assert ack["params"] == {
            "_meta": {SUB: "listen-1"},
            "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["app://config"]},
        }
        app.add_tool(lambda: "x", name="late")
        app.notify_resource_updated("app://config")
        app.notify_resource_updated("app://other")
        app.add_resource("v2", "app://second", name="second")  # resourcesListChanged not asked
        # posted before the request is read, so written before its answer
        listed = await s.request("tools/list", {"_meta": META})
        since_ack = s.upto(listed)[s.messages.index(ack) + 1 : -1]
        assert [(m["method"], m.get("params")) for m in since_ack] == [
            ("notifications/tools/list_changed", {"_meta": {SUB: "listen-1"}}),
            (
                "notifications/resources/updated",
                {"uri": "app://config", "_meta": {SUB: "listen-1"}},
            ),
        ]


async def test_cancel_ends_the_stream_without_a_response() -> None:
    app = make_server()
    async with Session(app, revision_hint="2026-07-28") as s:
        await listen(s, {"toolsListChanged": True}, "L")
        await listen(s, {"toolsListChanged": True}, "M")  # stays open: what L would have got
        await s.notify("notifications/cancelled", {"requestId": "L"})
        listed = await s.request("tools/list", {"_meta": META})  # answered after the cancel
        assert [t["name"] for t in listed["result"]["tools"]] == ["ping_tool"]
        assert not s.conn.in_use("L")
        assert s.conn.in_use("M")
        app.add_tool(lambda: "x", name="after")
        changed = await s.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")
        assert changed["params"] == {"_meta": {SUB: "M"}}
        # streams are told in the order they opened: L's would have come first
        upto = s.upto(changed)
        assert s.replies_to("L", upto) == []
        assert [m for m in upto if m.get("method") == "notifications/tools/list_changed"] == [
            changed
        ]
    assert s.replies_to("L") == []


async def test_closing_answers_the_listen_request() -> None:
    app = make_server()
    async with Session(app, revision_hint="2026-07-28") as s:
        await listen(s, {"resourcesListChanged": True}, "L2")
        s.conn.closing.set()
        reply = await s.response("L2")
        assert reply["result"] == {
            "_meta": {
                SUB: "L2",
                "io.modelcontextprotocol/serverInfo": {"name": "listen", "version": "1.0.0"},
            },
            "resultType": "complete",
        }


async def test_listen_needs_the_stateless_envelope() -> None:
    async with Session(make_server()) as s:
        await s.initialize("2025-11-25")
        reply = await s.request("subscriptions/listen", {"notifications": {}})
        assert reply["error"] == {
            "code": -32601,
            "message": "Method not found: subscriptions/listen",
        }
        bad = await s.request("subscriptions/listen", {"_meta": META, "notifications": []})
        assert bad["error"]["code"] == -32602
