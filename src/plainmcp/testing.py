"""Helpers for testing your own servers without a subprocess.

from plainmcp.testing import call, connect

def test_add():
    assert call(app, "add", a=1, b=2).data == 3

async def test_tools():  # no marks with pytest_plugins = ["plainmcp.pytest_plugin"]
    async with connect(app) as client:
        assert [t.name for t in await client.list_tools()] == ["add"]

def test_build():  # a task tool: its result and every status it went through
    run = run_task(app, "build", target="docs")
    assert (run.statuses, run.result.text) == (["working", "completed"], "built docs")

The callbacks (`elicit=`, `sample=`, `roots=`, `on_progress=`, `on_log=`) and everything else
the in-memory client takes pass straight through to `Client.memory`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import anyio

from plainmcp.client import (
    TASKS_EXTENSION,
    CallToolResult,
    Client,
    McpError,
    TaskState,
    ToolInfo,
)
from plainmcp.server import Server
from plainmcp.wire.revisions import LATEST_HANDSHAKE
from plainmcp.wire.revisions import REVISIONS as ALL_REVISIONS

__all__ = ["REVISIONS", "TaskRun", "call", "connect", "list_tools", "render_all", "run_task"]

REVISIONS: tuple[str, ...] = tuple(ALL_REVISIONS)
"""The revisions `render_all` renders a call in by default: every one the client speaks."""

_CALLBACKS = ("elicit", "sample", "roots", "on_progress", "on_log")


def connect(
    app: Server, *, protocol: str = LATEST_HANDSHAKE, **options: Any
) -> AbstractAsyncContextManager[Client]:
    """An initialized in-memory client session with `app` (`async with connect(app) as c:`).

    `options` go to `Client.memory`: the callbacks answering the server's requests, and
    `principal` to authenticate the session (a `plainmcp.Principal`: its scopes are checked).
    """
    return Client.memory(app, protocol=protocol, **options)


def call(
    app: Server,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    /,
    *,
    protocol: str = LATEST_HANDSHAKE,
    elicit: Any = None,
    sample: Any = None,
    roots: Any = None,
    on_progress: Any = None,
    on_log: Any = None,
    principal: Any = None,
    result_type: Any = None,
    raise_on_error: bool = False,
    **tool_arguments: Any,
) -> CallToolResult:
    """Call one tool synchronously: `call(app, "add", a=1, b=2)` or `call(app, "add", {...})`
    (the dict form for arguments named like this function's own keywords)."""
    options = _options(elicit, sample, roots, on_progress, on_log, principal)

    async def run() -> CallToolResult:
        async with connect(app, protocol=protocol, **options) as client:
            return await client.call_tool(
                name,
                {**(arguments or {}), **tool_arguments},
                result_type=result_type,
                raise_on_error=raise_on_error,
            )

    return anyio.run(run)


TASK_POLL = 0.01
"""Seconds `run_task` waits between polls at most, whatever the server asks (in memory)."""


@dataclass(frozen=True, slots=True)
class TaskRun:
    """A tool run as a task to its end (`run_task`)."""

    task_id: str | None
    """The task's id (None: the server answered at once, without a task)."""
    statuses: list[str]
    """Each status the client saw, in order, from the one the call answered to the last."""
    result: CallToolResult | None
    """The result, as call_tool gives it (None when the task failed or was cancelled)."""
    error: McpError | None = None
    """TaskFailed (a protocol error) or TaskCancelled, when the task ended so."""


def run_task(
    app: Server,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    /,
    *,
    protocol: str = LATEST_HANDSHAKE,
    ttl: float | None = None,
    cancel: bool = False,
    elicit: Any = None,
    sample: Any = None,
    roots: Any = None,
    on_progress: Any = None,
    on_log: Any = None,
    principal: Any = None,
    result_type: Any = None,
    **tool_arguments: Any,
) -> TaskRun:
    """Call one tool as a task, synchronously, and follow it to its end: its statuses and its
    result. At 2026-07-28 the client declares the tasks extension (the server decides); polls
    wait TASK_POLL seconds at most. `cancel`: cancel the task once it is made, then follow it
    (to see the cancel reach the tool)."""
    options = _options(elicit, sample, roots, on_progress, on_log, principal)

    async def quick(seconds: float) -> None:
        await anyio.sleep(min(seconds, TASK_POLL))

    async def run() -> TaskRun:
        async with connect(
            app,
            protocol=protocol,
            extensions={TASKS_EXTENSION: {}},
            poll_sleep=quick,
            **options,
        ) as client:
            handle = await client.call_tool_as_task(
                name, {**(arguments or {}), **tool_arguments}, ttl=ttl, result_type=result_type
            )
            statuses = [handle.status]
            if cancel:
                await handle.cancel()
                if handle.status != statuses[-1]:
                    statuses.append(handle.status)

            def seen(state: TaskState) -> None:
                if state.status != statuses[-1]:  # a new message alone is not a new status
                    statuses.append(state.status)

            await handle.wait(on_status=seen)
            try:
                result = await handle.result()
            except McpError as exc:
                return TaskRun(handle.id, statuses, None, exc)
            return TaskRun(handle.id, statuses, result)

    return anyio.run(run)


def list_tools(app: Server, *, protocol: str = LATEST_HANDSHAKE) -> list[ToolInfo]:
    """The tools `app` lists, synchronously."""

    async def run() -> list[ToolInfo]:
        async with connect(app, protocol=protocol) as client:
            return await client.list_tools()

    return anyio.run(run)


def render_all(
    app: Server,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    /,
    *,
    revisions: Iterable[str] = REVISIONS,
    elicit: Any = None,
    sample: Any = None,
    roots: Any = None,
    on_progress: Any = None,
    on_log: Any = None,
    principal: Any = None,
    **tool_arguments: Any,
) -> dict[str, dict[str, Any]]:
    """One tool call in each revision, side by side: `{revision: the result as sent}`, for
    snapshot tests of what each client sees (wrapped values, downgraded blocks)."""
    options = _options(elicit, sample, roots, on_progress, on_log, principal)
    args = {**(arguments or {}), **tool_arguments}

    async def run() -> dict[str, dict[str, Any]]:
        rendered: dict[str, dict[str, Any]] = {}
        for revision in revisions:
            async with connect(app, protocol=revision, **options) as client:
                rendered[revision] = (await client.call_tool(name, args)).raw
        return rendered

    return anyio.run(run)


def _options(*values: Any) -> dict[str, Any]:
    """The callbacks and principal given (those left out are not passed at all)."""
    names = (*_CALLBACKS, "principal")
    return {key: value for key, value in zip(names, values, strict=True) if value is not None}
