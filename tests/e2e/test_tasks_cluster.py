"""Tasks across processes on a real redis-server: plainmcp processes (tests/e2e/servers/
tasks_server.py) sharing it, each request sent to the process the test names (or through nginx,
round robin). A task started on one process is polled, answered, cancelled and read on
another; its result outlives the request that started it; and the faults: the process running
a task killed with SIGKILL, Redis restarted under running tasks, TTL expiry, a cancel racing the
completion. Every request is 2026-07-28 (stateless) unless it says otherwise.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import redis as redis_py

from plainmcp.tasks.redis_store import LEASE_LOST
from tests.cluster import RedisServer, nginx, redis_server
from tests.http_server import HttpServer, http_server

SERVER = Path(__file__).resolve().parent / "servers" / "tasks_server.py"
MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {TASKS: {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "by-hand", "version": "0"},
}
ACK = {
    "resultType": "complete",
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "tasks-cluster", "version": "1.0.0"}},
}
STORE_DOWN = {"code": -32603, "message": "Internal error: the task store is unavailable"}


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def raw(redis: RedisServer) -> Iterator[redis_py.Redis]:
    client = redis_py.Redis.from_url(redis.url)
    client.flushdb()
    yield client
    client.close()


@contextlib.contextmanager
def workers(redis: RedisServer, n: int, lease: float | None = None) -> Iterator[list[HttpServer]]:
    env = {"PLAINMCP_TEST_SESSIONS": redis.url}
    if lease is not None:
        env["PLAINMCP_TEST_TASK_LEASE"] = str(lease)
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(http_server(SERVER, env=env, script=True)) for _ in range(n)]


@pytest.fixture(scope="module")
def three(redis: RedisServer) -> Iterator[list[HttpServer]]:
    with workers(redis, 3) as servers:
        yield servers


def post(port: int, rid: int, method: str, params: dict[str, Any]) -> tuple[int, Any]:
    """One 2026-07-28 request to the process (or nginx) at `port`: (status, reply)."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    elif "taskId" in params:
        headers["Mcp-Name"] = params["taskId"]
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/mcp", json.dumps(body).encode(), headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()  # the request that started a task is over once its answer is read


def result(port: int, rid: int, method: str, **params: Any) -> dict[str, Any]:
    status, reply = post(port, rid, method, params)
    assert status == 200 and "result" in reply, (status, reply)
    assert reply["id"] == rid
    return dict(reply["result"])


def start(server: HttpServer, tool: str, **arguments: Any) -> str:
    created = result(server.port, 1, "tools/call", name=tool, arguments=arguments)
    assert (created["resultType"], created["status"]) == ("task", "working")
    return str(created["taskId"])


def get(server: HttpServer, task_id: str, rid: int = 2) -> dict[str, Any]:
    return result(server.port, rid, "tasks/get", taskId=task_id)


def until(check: Callable[[], Any], seconds: float = 20) -> Any:
    """Poll `check` until it answers something true, or fail after `seconds` (no fixed sleep:
    each round is one request or one Redis read)."""
    deadline = time.monotonic() + seconds
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def past(port: int, task_id: str, *statuses: str) -> dict[str, Any]:
    """The task as tasks/get at `port` answers it once its status is none of `statuses`."""
    seen: list[dict[str, Any]] = []

    def moved() -> bool:
        seen[:] = [result(port, 2, "tasks/get", taskId=task_id)]
        return seen[0]["status"] not in statuses

    until(moved)
    return seen[0]


def popped(raw: redis_py.Redis, key: str) -> str:
    """The next value pushed to the list `key` (waiting up to 20 s)."""
    got = raw.blpop([key], timeout=20)
    assert got is not None, f"nothing was pushed to {key}"
    return str(got[1].decode())


def pid(server: HttpServer) -> str:
    return str(server.proc.pid)


def text_of(task: dict[str, Any]) -> str:
    return str(task["result"]["content"][0]["text"])


# --- across processes -------------------------------------------------------------------------


def test_a_task_started_on_one_process_is_polled_and_read_on_another_after_its_request_ended(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    a, b, c = three
    task_id = start(a, "slow", n=1)  # the POST that started it is answered and closed
    assert popped(raw, "started:1") == pid(a)
    working = get(b, task_id)
    assert (working["taskId"], working["status"]) == (task_id, "working")
    raw.rpush("release:1", "go")
    done = past(c.port, task_id, "working")
    assert text_of(done) == f"done 1 in {pid(a)}"
    assert get(b, task_id) == done  # and read again, anywhere, until its TTL runs out


def test_a_cancel_sent_to_another_process_reaches_the_running_tool(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    a, b, c = three
    task_id = start(a, "held", n=2)
    assert popped(raw, "started:2") == pid(a)
    assert result(b.port, 3, "tasks/cancel", taskId=task_id) == ACK
    assert popped(raw, "cancelled:2") == pid(a)  # the tool on a was cancelled
    assert get(c, task_id)["status"] == "cancelled"
    assert result(c.port, 4, "tasks/cancel", taskId=task_id) == ACK


def test_an_input_request_is_read_and_answered_on_other_processes(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    a, b, c = three
    task_id = start(a, "ask_name")
    asked = past(b.port, task_id, "working")
    assert asked["status"] == "input_required"
    [(key, request)] = asked["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    answer = {key: {"action": "accept", "content": {"name": "Ann"}}}
    assert result(c.port, 5, "tasks/update", taskId=task_id, inputResponses=answer) == ACK
    done = past(b.port, task_id, "working", "input_required")
    assert text_of(done) == f"accept: Ann in {pid(a)}"


def test_tasks_through_nginx_round_robin_are_served_by_every_process(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    with nginx([s.port for s in three]) as lb:
        created = [
            result(lb.port, n, "tools/call", name="slow", arguments={"n": 10 + n}) for n in range(3)
        ]
        runners = {popped(raw, f"started:{10 + n}") for n in range(3)}
        assert runners == {pid(s) for s in three}  # one task started on each process
        for n in range(3):
            raw.rpush(f"release:{10 + n}", "go")
        for n, made in enumerate(created):
            done = past(lb.port, made["taskId"], "working")
            assert text_of(done).startswith(f"done {10 + n} in ")


# --- faults -----------------------------------------------------------------------------------


def test_the_process_running_a_task_killed_leaves_it_failed_on_another(
    redis: RedisServer, raw: redis_py.Redis
) -> None:
    with workers(redis, 2, lease=1.0) as (a, b):
        task_id = start(a, "slow", n=30)
        assert popped(raw, "started:30") == pid(a)
        assert get(b, task_id)["status"] == "working"
        a.proc.kill()
        a.proc.wait(10)
        failed = past(b.port, task_id, "working")
        assert (failed["status"], failed["statusMessage"]) == ("failed", LEASE_LOST)
        assert failed["error"] == {
            "code": -32603,
            "message": "Internal error: the process running the task stopped",
        }
        assert get(b, task_id) == failed  # settled once, read the same from then on


def test_redis_restarted_under_a_running_task_is_503_then_the_task_goes_on(
    raw: redis_py.Redis,
) -> None:
    with redis_server() as own, workers(own, 2, lease=30.0) as (a, b):
        own_raw = redis_py.Redis.from_url(own.url)
        task_id = start(a, "slow", n=40)
        assert popped(own_raw, "started:40") == pid(a)
        # Warm pools: connections the restart breaks without the processes noticing.
        with ThreadPoolExecutor(8) as pool:
            assert all(
                r["status"] == "working" for r in pool.map(lambda _: get(b, task_id), range(16))
            )
        own.stop(save=True)  # the task and its lease are kept through the restart
        assert post(b.port, 41, "tasks/get", {"taskId": task_id}) == (
            503,
            {"jsonrpc": "2.0", "id": 41, "error": STORE_DOWN},
        )
        assert post(a.port, "call-42", "tools/call", {"name": "nap", "arguments": {}}) == (
            503,
            {"jsonrpc": "2.0", "id": "call-42", "error": STORE_DOWN},
        )
        own.start()
        own_raw = redis_py.Redis.from_url(own.url)
        assert get(b, task_id, 43)["status"] == "working"  # the first request after: works
        own_raw.rpush("release:40", "go")
        done = past(b.port, task_id, "working", "input_required")
        assert text_of(done) == f"done 40 in {pid(a)}"
        own_raw.close()
        assert f"Redis at {own.url} is unavailable" in b.log()
        assert "Traceback" not in b.log(), b.log()


def test_a_task_is_unknown_on_every_process_once_its_ttl_ran_out(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    a, b, _ = three
    task_id = start(a, "slow", n=50)
    popped(raw, "started:50")
    raw.rpush("release:50", "go")
    assert past(b.port, task_id, "working")["status"] == "completed"
    raw.pexpire(f"plainmcp:task:rec:{task_id}", 1)  # the TTL runs out (Redis expiry)
    until(lambda: raw.exists(f"plainmcp:task:rec:{task_id}") == 0)
    for server in (a, b):
        status, reply = post(server.port, 51, "tasks/get", {"taskId": task_id})
        assert (status, reply["error"]["code"]) == (200, -32602)


def test_a_cancel_racing_the_completion_ends_the_task_one_way_for_every_process(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    a, b, c = three
    for n in range(60, 70):
        task_id = start(a, "slow", n=n)
        popped(raw, f"started:{n}")
        with ThreadPoolExecutor(2) as pool:
            release = pool.submit(raw.rpush, f"release:{n}", "go")
            cancel = pool.submit(post, b.port, 7, "tasks/cancel", {"taskId": task_id})
            release.result()
            assert cancel.result()[0] == 200
        final = past(c.port, task_id, "working")
        assert final["status"] in ("completed", "cancelled")
        assert get(a, task_id) == get(b, task_id) == final


def test_a_2025_task_made_on_one_process_is_awaited_by_tasks_result_on_another(
    three: list[HttpServer], raw: redis_py.Redis
) -> None:
    """2025-11-25, one session on Redis: the client asks for a task on one process and blocks
    in tasks/result on another until the process running it completes it."""
    from tests.e2e.test_scale_out import open_session
    from tests.e2e.test_scale_out import post as in_session

    a, b, _ = three
    session = open_session(a)
    call = {"name": "slow", "arguments": {"n": 80}, "task": {"ttl": 60_000}}
    made = in_session(
        a, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, session
    )
    assert made[0] == 200 and made[1]["result"]["task"]["status"] == "working"
    task_id = made[1]["result"]["task"]["taskId"]
    assert popped(raw, "started:80") == pid(a)
    with ThreadPoolExecutor(1) as pool:
        asked = {"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": task_id}}
        waiting = pool.submit(in_session, b, asked, session)
        raw.rpush("release:80", "go")
        status, reply = waiting.result(timeout=30)
    assert status == 200
    assert reply["result"]["content"] == [{"type": "text", "text": f"done 80 in {pid(a)}"}]
