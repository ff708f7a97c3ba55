"""Revision 2026-07-28 over a real subprocess (`python tests/e2e/servers/everything.py`, raw JSON
lines over pipes): stateless requests and a handshake session interleaved on one process.

The `Proc` harness of test_stdio.py, validating each line at the era of the request it belongs to
(`Eras` of tests/test_stateless.py): a response to a request whose `_meta` names 2026-07-28
against the 2026-07-28 schema, every other line against the session's revision.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from tests.conftest import HANDSHAKE_REVISIONS
from tests.e2e.test_stdio import TIMEOUT, Proc
from tests.test_stateless import ALL_VERSIONS, PROTOCOL_VERSION, SERVER_INFO, STATELESS, Eras, meta

E2E_INFO = {SERVER_INFO: {"name": "e2e", "version": "1.0.0", "title": "E2E"}}


class EraProc(Proc):
    """Proc, validating each line at its request's era."""

    def __init__(self, revision_hint: str = STATELESS) -> None:
        self.eras = Eras(revision_hint)
        super().__init__(revision_hint)

    def _read_stdout(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            try:
                assert line.endswith(b"\n"), "a message must end with a newline"
                message = orjson.loads(line)
                self.eras.check(message)
            except (AssertionError, orjson.JSONDecodeError) as exc:
                self.failures.append(f"{exc}\n  raw: {line[:400]!r}")
                message = {"__invalid__": line[:400]}
            with self._cond:
                self.messages.append(message)
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def send(self, message: Any) -> int:
        self.eras.sent(message)
        return super().send(message)

    def initialize(self, version: str = "2025-11-25") -> Any:
        self.eras.hint = version
        return super().initialize(version)

    def modern(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """A 2026-07-28 request (`_meta` added unless params carry one); the whole response."""
        params = dict(params or {})
        params.setdefault("_meta", meta())
        return self.request(method, params)

    def modern_result(self, method: str, params: dict[str, Any] | None = None) -> Any:
        reply = self.modern(method, params)
        assert "result" in reply, reply
        return reply["result"]


@pytest.fixture
def proc() -> Iterator[EraProc]:
    server = EraProc()
    try:
        yield server
        server.check()
    finally:
        server.kill()


def ends_cleanly(proc: EraProc) -> None:
    proc.close_stdin()
    assert proc.wait() == 0
    proc.check()
    assert b"Traceback" not in proc.stderr


def test_a_stateless_process_discovers_lists_and_calls(proc: EraProc) -> None:
    assert proc.modern_result("server/discover") == {
        "resultType": "complete",
        "supportedVersions": ALL_VERSIONS,
        "capabilities": {
            "logging": {},
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
        },
        "instructions": "Test server.",
        "ttlMs": 60000,
        "cacheScope": "public",
        "_meta": E2E_INFO,
    }
    tools = proc.modern_result("tools/list")
    assert (tools["resultType"], tools["ttlMs"], tools["cacheScope"]) == (
        "complete",
        60000,
        "public",
    )
    defs = {t["name"]: t for t in tools["tools"]}
    assert defs["add"]["outputSchema"] == {"type": "integer"}
    assert defs["items"]["outputSchema"] == {"type": "array", "items": {"type": "integer"}}
    assert proc.modern_result("tools/call", {"name": "add", "arguments": {"a": 20, "b": 22}}) == {
        "content": [{"type": "text", "text": "42"}],
        "structuredContent": 42,
        "isError": False,
        "resultType": "complete",
        "_meta": E2E_INFO,
    }
    items = proc.modern_result("tools/call", {"name": "items"})
    assert (items["structuredContent"], items["content"]) == (
        [1, 2, 3],
        [{"type": "text", "text": "[1,2,3]"}],
    )
    refused = proc.modern_result("tools/call", {"name": "refuses"})
    assert refused == {
        "content": [{"type": "text", "text": "Cannot divide by zero"}],
        "isError": True,
        "resultType": "complete",
        "_meta": E2E_INFO,
    }
    ends_cleanly(proc)


@pytest.mark.parametrize("version", HANDSHAKE_REVISIONS)
def test_a_handshake_session_and_stateless_requests_on_one_process(version: str) -> None:
    proc = EraProc()
    try:
        # stateless first: it starts no session, so initialize still works afterwards
        before = proc.modern_result("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert before["structuredContent"] == 3
        init = proc.initialize(version)
        assert init["protocolVersion"] == version
        assert "resultType" not in init

        add = {"name": "add", "arguments": {"a": 20, "b": 22}}
        items = {"name": "items"}
        for _ in range(2):  # interleaved, twice: neither era disturbs the other
            old = proc.result("tools/call", add)
            new = proc.modern_result("tools/call", add)
            assert old["content"] == new["content"] == [{"type": "text", "text": "42"}]
            assert "resultType" not in old and "_meta" not in old
            assert (new["resultType"], new["_meta"], new["structuredContent"]) == (
                "complete",
                E2E_INFO,
                42,
            )
            old_items = proc.result("tools/call", items)
            new_items = proc.modern_result("tools/call", items)
            assert new_items["structuredContent"] == [1, 2, 3]
            if version >= "2025-06-18":
                assert old["structuredContent"] == {"result": 42}
                assert old_items["structuredContent"] == {"result": [1, 2, 3]}
            else:
                assert "structuredContent" not in old and "structuredContent" not in old_items

        old_tools = {t["name"]: t for t in proc.result("tools/list")["tools"]}
        new_tools = {t["name"]: t for t in proc.modern_result("tools/list")["tools"]}
        assert list(old_tools) == list(new_tools)
        assert new_tools["add"]["outputSchema"] == {"type": "integer"}
        if version >= "2025-06-18":
            assert old_tools["add"]["outputSchema"] == {
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
            }
        else:
            assert "outputSchema" not in old_tools["add"]

        # ping: the session has it, a 2026-07-28 request does not
        assert proc.result("ping") == {}
        assert proc.modern("ping")["error"]["code"] == -32601
        assert proc.modern_result("server/discover")["supportedVersions"] == ALL_VERSIONS
        ends_cleanly(proc)
    finally:
        proc.kill()


def test_both_eras_in_flight_at_once(proc: EraProc) -> None:
    """A slow handshake-era call and a stateless call overlap; each gets its own shape."""
    proc.initialize("2025-11-25")
    slow = proc.start("tools/call", {"name": "slow", "arguments": {"seconds": 0.5}})
    quick = proc.start("tools/call", {"name": "items", "_meta": meta()})
    first = proc.response(quick)
    assert first["result"]["structuredContent"] == [1, 2, 3]
    with proc._cond:
        assert not any(m.get("id") == slow for m in proc.messages if isinstance(m, dict))
    late = proc.response(slow)
    assert late["result"] == {"content": [{"type": "text", "text": "slept 0.5"}], "isError": False}
    ends_cleanly(proc)


def test_unsupported_versions_and_missing_meta(proc: EraProc) -> None:
    for requested in ("2027-01-01", "2025-11-25"):
        reply = proc.modern("tools/list", {"_meta": meta(**{PROTOCOL_VERSION: requested})})
        assert reply["error"] == {
            "code": -32022,
            "message": f"Unsupported protocol version: {requested}",
            "data": {"supported": [STATELESS], "requested": requested},
        }
    reply = proc.request("tools/list", {"_meta": {}})
    assert reply["error"] == {
        "code": -32602,
        "message": "Server not initialized: send initialize before tools/list",
    }
    reply = proc.request("server/discover", {})
    assert reply["error"] == {
        "code": -32602,
        "message": f"Invalid params: _meta must carry {PROTOCOL_VERSION}",
    }
    reply = proc.modern("logging/setLevel", {"level": "debug"})
    assert reply["error"] == {
        "code": -32601,
        "message": "Method not found: logging/setLevel is not part of protocol revision 2026-07-28",
    }
    # the process serves on after each error
    assert (
        proc.modern_result("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})[
            "structuredContent"
        ]
        == 2
    )
    ends_cleanly(proc)


def test_cancelling_a_stateless_call_over_stdio(proc: EraProc) -> None:
    since = proc.send(
        {
            "jsonrpc": "2.0",
            "id": "h-1",
            "method": "tools/call",
            "params": {"name": "hang", "_meta": meta()},
        }
    )
    time.sleep(0.2)
    proc.notify(
        "notifications/cancelled", {"requestId": "h-1", "reason": "User requested cancellation"}
    )
    after = proc.modern_result("tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})
    assert after["structuredContent"] == 4
    time.sleep(0.3)
    with proc._cond:
        answered = [
            m for m in proc.messages[since:] if isinstance(m, dict) and m.get("id") == "h-1"
        ]
    assert answered == []
    # EOF ends the process promptly: the cancelled call is not holding it up
    started = time.monotonic()
    ends_cleanly(proc)
    assert time.monotonic() - started < TIMEOUT


def test_listen_stream_then_eof_ends_it_gracefully(proc: EraProc) -> None:
    """subscriptions/listen over stdio: acknowledged first; when stdin closes the stream is
    answered with its result (a graceful end), then the process exits 0."""
    sub = "io.modelcontextprotocol/subscriptionId"
    proc.start(
        "subscriptions/listen",
        {"_meta": meta(), "notifications": {"toolsListChanged": True}},
        id="listen-1",
    )
    ack = proc.wait_for(lambda m: m.get("method") == "notifications/subscriptions/acknowledged")
    assert ack["params"] == {
        "_meta": {sub: "listen-1"},
        "notifications": {"toolsListChanged": True},
    }
    proc.close_stdin()
    reply = proc.response("listen-1")
    assert reply["result"]["resultType"] == "complete"
    assert reply["result"]["_meta"][sub] == "listen-1"
    assert proc.wait() == 0
