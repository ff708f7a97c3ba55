"""Tasks end to end: a server subprocess over stdio and over Streamable HTTP (uvicorn), on
2025-11-25 and on 2026-07-28; every message it writes is validated against its revision's
schema (the extension's own schema for the 2026-07-28 tasks messages).

Where the protocol has the client poll (2026-07-28 tasks/get), the test polls as a client does,
at the task's pollIntervalMs (20 ms here), within a deadline."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import test_stdio
from tests.e2e.test_stdio import Proc
from tests.http_server import HttpServer, http_server
from tests.mcp_schemas import validate_server_message

SERVER = Path(__file__).resolve().parent / "servers" / "tasks_server.py"
MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS: {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"},
}
RELATED = "io.modelcontextprotocol/related-task"


def poll(get: Callable[[], dict[str, Any]], done: Callable[[dict[str, Any]], bool]) -> Any:
    """tasks/get until `done`, at the task's pollIntervalMs (the client's side of polling)."""
    deadline = time.monotonic() + 10
    while True:
        task = get()
        if done(task) or time.monotonic() > deadline:
            assert done(task), task
            return task
        time.sleep(task["pollIntervalMs"] / 1000)


# --- stdio ---------------------------------------------------------------------------------------


@pytest.fixture
def stdio(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Proc]]:
    monkeypatch.setattr(test_stdio, "SERVER", SERVER)
    made: list[Proc] = []

    def start(revision: str) -> Proc:
        made.append(Proc(revision_hint=revision))
        return made[-1]

    yield start
    for proc in made:
        try:
            proc.check()
        finally:
            proc.kill()


def test_stdio_2025_11_25_a_task_asks_on_the_session_and_tasks_result_gives_the_end(
    stdio: Callable[[str], Proc],
) -> None:
    p = stdio("2025-11-25")
    p.result(
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "e2e", "version": "0"},
        },
    )
    p.notify("notifications/initialized")
    created = p.result("tools/call", {"name": "confirm", "arguments": {"item": "x"}, "task": {}})
    task_id = created["task"]["taskId"]
    asked = p.wait_for(lambda m: isinstance(m, dict) and m.get("method") == "elicitation/create")
    assert asked["params"]["_meta"] == {RELATED: {"taskId": task_id}}
    p.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}})
    result = p.result("tasks/result", {"taskId": task_id})
    assert result == {
        "content": [{"type": "text", "text": "x: decline"}],
        "isError": False,
        "_meta": {RELATED: {"taskId": task_id}},
    }


def test_stdio_2026_07_28_a_task_is_polled_answered_and_read(
    stdio: Callable[[str], Proc],
) -> None:
    p = stdio(MODERN)
    created = p.result("tools/call", {"name": "confirm", "arguments": {"item": "y"}, "_meta": META})
    assert (created["resultType"], created["status"]) == ("task", "working")
    task_id = created["taskId"]

    def get() -> dict[str, Any]:
        got: dict[str, Any] = p.result("tasks/get", {"taskId": task_id, "_meta": META})
        return got

    waiting = poll(get, lambda t: t["status"] == "input_required")
    (key,) = waiting["inputRequests"]
    ack = p.result(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {key: {"action": "accept"}}, "_meta": META},
    )
    assert ack["resultType"] == "complete"
    done = poll(get, lambda t: t["status"] == "completed")
    assert done["result"]["content"] == [{"type": "text", "text": "y: accept"}]


# --- Streamable HTTP -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served() -> Iterator[HttpServer]:
    with http_server(SERVER) as server:
        yield server


def post(
    server: HttpServer, body: dict[str, Any], headers: dict[str, str], revision: str
) -> tuple[dict[str, str], Any]:
    """One POST; its one JSON-RPC answer (JSON or the last SSE event), validated."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    try:
        sent = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        }
        conn.request("POST", "/mcp", json.dumps(body).encode(), sent)
        response = conn.getresponse()
        got = {k.lower(): v for k, v in response.getheaders()}
        raw = response.read()
    finally:
        conn.close()
    if not raw:
        return got, None
    if got.get("content-type") == "text/event-stream":
        events = [json.loads(x[5:]) for x in raw.decode().split("\n") if x.startswith("data:")]
    else:
        events = [json.loads(raw)]
    for event in events:
        validate_server_message(event, revision, method=body.get("method"))
    return got, events[-1]


def modern(server: HttpServer, request_id: int, method: str, **params: Any) -> Any:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    named = params.get("name", params.get("taskId"))
    if named is not None and method != "tasks/result":
        headers["Mcp-Name"] = named
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": META},
    }
    return post(server, body, headers, MODERN)[1]


def test_http_2026_07_28_a_task_outlives_its_post_and_is_read_from_another(
    served: HttpServer,
) -> None:
    created = modern(served, 1, "tools/call", name="shout", arguments={"text": "hey"})["result"]
    assert created["resultType"] == "task"
    task_id = created["taskId"]
    done = poll(
        lambda: modern(served, 2, "tasks/get", taskId=task_id)["result"],
        lambda t: t["status"] == "completed",
    )
    assert done["result"]["content"] == [{"type": "text", "text": "HEY"}]
    assert modern(served, 3, "tasks/cancel", taskId=task_id)["result"]["resultType"] == "complete"
    unknown = modern(served, 4, "tasks/get", taskId="not-a-task")
    assert unknown["error"]["code"] == -32602


def test_http_2026_07_28_a_wrong_mcp_name_on_tasks_get_is_a_header_mismatch(
    served: HttpServer,
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tasks/get",
        "params": {"taskId": "a", "_meta": META},
    }
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tasks/get", "Mcp-Name": "b"}
    _, answer = post(served, body, headers, MODERN)
    assert answer["error"]["code"] == -32020


def test_http_2025_11_25_a_session_runs_a_task_and_waits_on_tasks_result(
    served: HttpServer,
) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "0"},
        },
    }
    got, answer = post(served, init, {}, "2025-11-25")
    assert answer["result"]["capabilities"]["tasks"]["requests"] == {"tools": {"call": {}}}
    session = {"Mcp-Session-Id": got["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    post(served, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, "2025-11-25")
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "ok"}, "task": {"ttl": 60000}},
    }
    task = post(served, call, session, "2025-11-25")[1]["result"]["task"]
    assert (task["ttl"], task["pollInterval"]) == (60000, 20)
    result = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tasks/result",
        "params": {"taskId": task["taskId"]},
    }
    answer = post(served, result, session, "2025-11-25")[1]["result"]
    assert answer["content"] == [{"type": "text", "text": "OK"}]
    listed = {"jsonrpc": "2.0", "id": 4, "method": "tasks/list", "params": {}}
    tasks = post(served, listed, session, "2025-11-25")[1]["result"]["tasks"]
    assert task["taskId"] in [t["taskId"] for t in tasks]
    required = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "x"}},
    }
    assert post(served, required, session, "2025-11-25")[1]["error"]["code"] == -32601
