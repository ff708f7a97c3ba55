"""Streamable HTTP through a real socket: `plainmcp run FILE --http` served by uvicorn.

The raw client is http.client, so every byte the server writes is visible; every JSON-RPC
message (JSON body or SSE event) is validated against its revision's official schema.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.http_server import HttpServer, http_server, oversized_head
from tests.mcp_schemas import validate_server_message

HERE = Path(__file__).resolve().parent
PROBE = HERE / "servers" / "http_probe.py"
AUTH_PROBE = HERE / "servers" / "auth_probe.py"
EVERYTHING = HERE.parents[1] / "examples" / "everything_server.py"
STATELESS = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


class Reply:
    def __init__(self, response: http.client.HTTPResponse, revision: str, method: str | None):
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        self.body = response.read()
        self.revision = revision
        self.method = method

    def messages(self) -> list[Any]:
        if self.headers.get("content-type") == "text/event-stream":
            found = [
                json.loads(line[5:])
                for line in self.body.decode().split("\n")
                if line.startswith("data:")
            ]
        else:
            found = [json.loads(self.body)]
        for message in found:
            method = self.method if "result" in message else None
            validate_server_message(message, self.revision, method=method)
        return found

    def message(self) -> Any:
        (only,) = self.messages()
        return only


def post(
    server: HttpServer,
    body: Any,
    headers: dict[str, str] | None = None,
    *,
    revision: str = "2025-11-25",
    raw: bytes | None = None,
) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    try:
        data = raw if raw is not None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", "Accept": ACCEPT, **(headers or {})}
        conn.request("POST", "/mcp", data, sent)
        method = body.get("method") if isinstance(body, dict) else None
        return Reply(conn.getresponse(), revision, method)
    finally:
        conn.close()


def stateless(
    server: HttpServer,
    request_id: int,
    method: str,
    *,
    token: str | None = None,
    **params: Any,
) -> Reply:
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": method}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if "name" in params:
        headers["Mcp-Name"] = params["name"]
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": META},
    }
    return post(server, body, headers, revision=STATELESS)


@pytest.fixture(scope="module")
def probe() -> Iterator[HttpServer]:
    with http_server(PROBE) as server:
        yield server


def test_a_session_from_initialize_to_delete(probe: HttpServer) -> None:
    init = post(
        probe,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "0"},
            },
        },
        revision="2025-06-18",
    )
    assert init.status == 200
    assert init.message()["result"]["protocolVersion"] == "2025-06-18"
    session = {
        "Mcp-Session-Id": init.headers["mcp-session-id"],
        "MCP-Protocol-Version": "2025-06-18",
    }
    done = post(probe, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert (done.status, done.body) == (202, b"")
    call = post(
        probe,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        },
        session,
        revision="2025-06-18",
    )
    assert call.message() == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "content": [{"type": "text", "text": "hi"}],
            "isError": False,
        },
    }
    conn = http.client.HTTPConnection("127.0.0.1", probe.port, timeout=10)
    conn.request("DELETE", "/mcp", headers=session)
    assert conn.getresponse().status == 204
    conn.close()
    gone = post(probe, {"jsonrpc": "2.0", "id": 3, "method": "ping"}, session)
    assert gone.status == 404


def test_a_foreign_host_or_origin_is_refused_over_the_socket(probe: HttpServer) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert post(probe, ping, {"Host": "evil.example.com"}).status == 421
    assert post(probe, ping, {"Origin": "http://evil.example.com"}).status == 403


def test_an_oversized_body_is_413_and_the_server_keeps_serving(probe: HttpServer) -> None:
    big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * (5 << 20) + b'"}}'
    refused = post(probe, None, raw=big)
    assert refused.status == 413
    answer = stateless(probe, 2, "tools/call", name="echo", arguments={"text": "still here"})
    assert answer.message()["result"]["content"] == [{"type": "text", "text": "still here"}]


REFUSED = "HTTP/1.1 431 Request Header Fields Too Large"
TOO_LONG = b"Request Header Fields Too Large: the request line and headers exceed 16384 bytes"
TOO_MANY = b"Request Header Fields Too Large: more than 100 header fields"


def test_an_oversized_head_is_431_and_the_server_keeps_serving(probe: HttpServer) -> None:
    assert oversized_head(probe.port) == (REFUSED, TOO_LONG)  # one 64 MiB header
    assert oversized_head(probe.port, 0, fields=101) == (REFUSED, TOO_MANY)
    answer = stateless(probe, 2, "tools/call", name="echo", arguments={"text": "still here"})
    assert answer.message()["result"]["content"] == [{"type": "text", "text": "still here"}]


def test_app_run_refuses_an_oversized_head_before_any_auth() -> None:
    with http_server(AUTH_PROBE, script=True) as server:  # app.run("http", auth=...)
        assert oversized_head(server.port) == (REFUSED, TOO_LONG)
        assert oversized_head(server.port, 0, fields=101) == (REFUSED, TOO_MANY)


def test_closing_the_stream_cancels_a_stateless_call(probe: HttpServer) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "slow",
                "arguments": {},
                "_meta": {**META, "io.modelcontextprotocol/logLevel": "info"},
            },
        }
    ).encode()
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Accept: {ACCEPT}\r\nMCP-Protocol-Version: {STATELESS}\r\nMcp-Method: tools/call\r\n"
        f"Mcp-Name: slow\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", probe.port), timeout=10) as sock:
        sock.sendall(head + body)
        received = b""
        while b"started" not in received:  # the log message: the tool is running
            chunk = sock.recv(4096)
            assert chunk, received
            received += chunk
        assert b"text/event-stream" in received
    deadline = time.monotonic() + 5
    while True:
        history = stateless(probe, 2, "tools/call", name="history", arguments={})
        events = history.message()["result"]["structuredContent"]
        if events[-1] != "started" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert events[-2:] == ["started", "cancelled"]


def test_stateless_scale_out_across_two_processes() -> None:
    """One 2026-07-28 conversation, its requests sent alternately to two processes that share
    only the state secret: nothing lives in process memory."""
    env = {"PLAINMCP_STATE_SECRET": "e2e-shared-secret-of-enough-length"}
    with http_server(EVERYTHING, env=env) as a, http_server(EVERYTHING, env=env) as b:
        discover = stateless(a, 1, "server/discover").message()["result"]
        assert discover["supportedVersions"][0] == STATELESS
        listed = stateless(b, 2, "tools/list").message()["result"]["tools"]
        assert "test_input_required_result_multi_round" in [t["name"] for t in listed]
        name = "test_input_required_result_multi_round"
        first = stateless(a, 3, "tools/call", name=name, arguments={}).message()["result"]
        assert first["resultType"] == "input_required"
        (key1,) = first["inputRequests"]
        second = stateless(
            b,
            4,
            "tools/call",
            name=name,
            arguments={},
            inputResponses={key1: {"action": "accept", "content": {"name": "Ada"}}},
            requestState=first["requestState"],
        ).message()["result"]
        assert second["resultType"] == "input_required"
        (key2,) = second["inputRequests"]
        assert key2 != key1
        third = stateless(
            a,
            5,
            "tools/call",
            name=name,
            arguments={},
            inputResponses={key2: {"action": "accept", "content": {"color": "teal"}}},
            requestState=second["requestState"],
        ).message()["result"]
        assert third["resultType"] == "complete"
        assert third["content"] == [{"type": "text", "text": "Ada's favorite color is teal"}]


def test_a_different_secret_cannot_continue_the_conversation() -> None:
    with (
        http_server(
            EVERYTHING, env={"PLAINMCP_STATE_SECRET": "first-secret-first-secret-first-secret"}
        ) as a,
        http_server(
            EVERYTHING, env={"PLAINMCP_STATE_SECRET": "other-secret-other-secret-other-secret"}
        ) as b,
    ):
        name = "test_input_required_result_multi_round"
        first = stateless(a, 1, "tools/call", name=name, arguments={}).message()["result"]
        (key,) = first["inputRequests"]
        refused = stateless(
            b,
            2,
            "tools/call",
            name=name,
            arguments={},
            inputResponses={key: {"action": "accept", "content": {"name": "Ada"}}},
            requestState=first["requestState"],
        )
        assert refused.status == 200
        assert refused.message()["error"]["code"] == -32602


def test_a_request_state_is_bound_to_the_subject_it_was_issued_to() -> None:
    """An input-required state issued to one authenticated subject cannot be continued by
    another: the other subject's retry is refused with -32602, the issuer's own succeeds."""
    with http_server(AUTH_PROBE, script=True) as server:
        asked = stateless(
            server, 1, "tools/call", token="token-ada", name="confirm", arguments={"what": "x"}
        ).message()["result"]
        assert asked["resultType"] == "input_required"
        (key,) = asked["inputRequests"]
        retry = {
            "name": "confirm",
            "arguments": {"what": "x"},
            "inputResponses": {key: {"action": "accept", "content": {"ok": True}}},
            "requestState": asked["requestState"],
        }
        stolen = stateless(server, 2, "tools/call", token="token-bob", **retry)
        assert stolen.status == 200
        assert stolen.message() == {
            "jsonrpc": "2.0",
            "id": 2,
            "error": {
                "code": -32602,
                "message": "Invalid requestState: it was issued for another principal",
            },
        }
        own = stateless(server, 3, "tools/call", token="token-ada", **retry).message()
        assert own["result"]["resultType"] == "complete"
        assert own["result"]["content"] == [
            {"type": "text", "text": "ada confirmed x: {'ok': True}"}
        ]
