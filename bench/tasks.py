"""The `tasks` scenario's client: `add` as a plain call beside `add_task` run as a task.

2026-07-28 stateless over one HTTP/1.1 keep-alive connection, one request at a time: a plain
`tools/call add`, then `tools/call add_task` (the same sum, `task="required"`), whose
CreateTaskResult is followed by `tasks/get` at once, again and again, until the task is
`completed` with its result inlined (checked). The two alternate, call by call, so that the
machine's drift falls on both alike. Raw JSON-RPC, no MCP library (rpc.py's client).
"""

from __future__ import annotations

import time
from typing import Any

import orjson
import rpc
from rpc import STATELESS_VERSION, BenchError, HttpConnection

EXTENSION = "io.modelcontextprotocol/tasks"
META = dict(
    rpc.STATELESS_META,
    **{"io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}}},
)
HEADERS = dict(rpc.JSON_HEADERS, **{"MCP-Protocol-Version": STATELESS_VERSION})


def _body(rid: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}
    return orjson.dumps(message)


def _headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = dict(HEADERS, **{"Mcp-Method": method})
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


CALL_ADD = _headers("tools/call", "add")
CALL_TASK = _headers("tools/call", "add_task")


async def _post(
    conn: HttpConnection, port: int, body: bytes, headers: dict[str, str], rid: int
) -> Any:
    reply = await conn.post(port, body, headers)
    message = reply.message(rid)
    if reply.status != 200 or message is None or "result" not in message:
        raise BenchError(f"request {rid}: HTTP {reply.status}: {reply.body[:200]!r}")
    return message["result"]


def _sum_of(result: dict[str, Any]) -> str:
    content = result.get("content") or [{}]
    return str(content[0].get("text"))


async def task_beside_plain(port: int, count: int, cap_s: float) -> dict[str, Any]:
    """{plain, task, created: latencies in ns; gets: tasks/get per task}: `count` of each (20
    of each first as a warm-up), or fewer when `cap_s` runs out."""
    conn = await HttpConnection.open(port)
    plain: list[int] = []
    task: list[int] = []
    created: list[int] = []
    gets: list[int] = []
    rid = 0
    try:
        stop_at = time.perf_counter() + cap_s
        for n in range(count + 20):
            if time.perf_counter() > stop_at:
                break
            a = n + 1
            rid += 1
            began = time.perf_counter_ns()
            result = await _post(
                conn, port, _body(rid, "tools/call", _args("add", a)), CALL_ADD, rid
            )
            took = time.perf_counter_ns() - began
            if _sum_of(result) != str(a + 2):
                raise BenchError(f"add {a}: {result!r}")
            rid += 1
            began = time.perf_counter_ns()
            made = await _post(
                conn, port, _body(rid, "tools/call", _args("add_task", a)), CALL_TASK, rid
            )
            made_at = time.perf_counter_ns()
            if made.get("resultType") != "task":
                raise BenchError(f"add_task {a} was not made a task: {made!r}")
            polls = 0
            get = _headers("tasks/get", made["taskId"])  # Mcp-Name: the task's id
            while True:
                if time.perf_counter() > stop_at + 30:
                    raise BenchError(f"add_task {a}: not completed 30 s after the cap")
                rid += 1
                polls += 1
                body = _body(rid, "tasks/get", {"taskId": made["taskId"]})
                got = await _post(conn, port, body, get, rid)
                if got.get("status") == "completed":
                    break
                if got.get("status") not in ("working", "input_required"):
                    raise BenchError(f"add_task {a}: {got!r}")
            done = time.perf_counter_ns()
            if _sum_of(got.get("result") or {}) != str(a + 2):
                raise BenchError(f"add_task {a}: the result is {got!r}")
            if n >= 20:
                plain.append(took)
                task.append(done - began)
                created.append(made_at - began)
                gets.append(polls)
    finally:
        conn.close()
    if not plain:
        raise BenchError("no call was measured before the cap")
    return {"plain": plain, "task": task, "created": created, "gets": gets}


def _args(tool: str, a: int) -> dict[str, Any]:
    return {"name": tool, "arguments": {"a": a, "b": 2}}
