"""A scripted server for the client's task tests: every request the client sends is recorded,
each answered by a function of the test, so a test pins the exact sequence of requests (and
drives time with the sleeper it hands the client)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import orjson

from plainmcp.client import Client
from plainmcp.client.core import Core

Answer = Callable[[str, dict[str, Any]], dict[str, Any]]
"""(method, params) -> a result, or `rpc_error(...)` for a JSON-RPC error."""
ERROR = "__jsonrpc_error__"


def rpc_error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A reply that is a JSON-RPC error."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {ERROR: error}


STAMP = "2025-11-25T10:30:00Z"
TASK_TOOLS = {
    name: "optional"
    for name in ("compute", "ask", "hello", "failing_job", "protocol_error_job", "slow_compute")
}
"""The tools the scripted server lists by default, each `execution.taskSupport`."""


def core_task(task_id: str, status: str, **extra: Any) -> dict[str, Any]:
    """A 2025-11-25 Task object."""
    return {
        "taskId": task_id,
        "status": status,
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttl": 60000,
        **extra,
    }


def ext_task(task_id: str, status: str, **extra: Any) -> dict[str, Any]:
    """A 2026-07-28 DetailedTask (without its resultType)."""
    return {
        "taskId": task_id,
        "status": status,
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttlMs": 60000,
        **extra,
    }


class Sleeps:
    """The client's `poll_sleep`: records each delay, then runs the test's step for it."""

    def __init__(self, step: Callable[[int], None] | None = None) -> None:
        self.delays: list[float] = []
        self._step = step

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        if self._step is not None:
            self._step(len(self.delays))
        await anyio.lowlevel.checkpoint()


class Scripted:
    """The requests sent (method, params without the 2026-07-28 envelope's own keys)."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.metas: list[dict[str, Any]] = []

    def calls(self, *methods: str) -> list[tuple[str, dict[str, Any]]]:
        """The requests after the opening (tools/call, tasks/*...)."""
        skip = {"initialize", "server/discover", "subscriptions/listen", "tools/list"}
        return [(m, p) for m, p in self.sent if m not in skip and (not methods or m in methods)]


@contextlib.asynccontextmanager
async def scripted_client(
    answer: Answer,
    *,
    protocol: str,
    capabilities: dict[str, Any],
    tools: dict[str, str | None] = TASK_TOOLS,
    **options: Any,
) -> AsyncIterator[tuple[Client, Scripted]]:
    listed = [
        {"name": name, "inputSchema": {"type": "object"}}
        | ({"execution": {"taskSupport": support}} if support else {})
        for name, support in tools.items()
    ]
    script = Scripted(answer)
    async with anyio.create_task_group() as tasks:
        core: Core | None = None

        async def send(data: bytes) -> None:
            message = orjson.loads(data)
            if "id" not in message or "method" not in message:
                return  # a notification, or the client's reply to a request
            method, params = message["method"], dict(message.get("params") or {})
            meta = params.pop("_meta", None)
            script.metas.append(meta or {})
            if method == "initialize":
                result: dict[str, Any] = {
                    "protocolVersion": protocol,
                    "capabilities": capabilities,
                    "serverInfo": {"name": "scripted", "version": "1"},
                }
            elif method == "server/discover":
                result = {"supportedVersions": [protocol], "capabilities": capabilities}
            elif method == "tools/list":
                script.sent.append((method, params))
                result = {"tools": listed}
            elif method == "subscriptions/listen":
                result = rpc_error(-32601, "no")
            else:
                script.sent.append((method, params))
                result = answer(method, params)
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
            if ERROR in result:
                reply["error"] = result[ERROR]
            else:
                reply["result"] = result
            tasks.start_soon(deliver, orjson.dumps(reply))

        async def deliver(data: bytes) -> None:
            assert core is not None
            core.receive(data)

        core = Core(send, tasks)
        client = Client(core, tasks, protocol=protocol, **options)
        await core.start()
        yield client, script
        tasks.cancel_scope.cancel()
