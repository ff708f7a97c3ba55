"""The Client's task requests: `call_tool_as_task` (a call that may run as a task, as a
`TaskHandle`) and `task` (reattach to one by id). `Client` inherits them, and gives them its
requests (`request`, `_exchange`), its callbacks, its result parsing (`_tool_result`) and the
sleeper polls wait with."""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from plainmcp.client import questions
from plainmcp.client.options import DEFAULT_TIMEOUT
from plainmcp.client.task_wire import (
    ERAS,
    TaskEra,
    TaskState,
    call_params,
    created,
    is_task_result,
    server_offers,
)
from plainmcp.client.tasks import Sleep, TaskHandle, TaskLink
from plainmcp.wire.envelope import declaring
from plainmcp.wire.revisions import Revision

if TYPE_CHECKING:
    from plainmcp.client.callbacks import Callbacks
    from plainmcp.client.results import CallToolResult, ToolInfo


class TaskCalls(abc.ABC):
    """Tool calls run as tasks, on 2025-11-25 (core tasks) and 2026-07-28 (the extension)."""

    capabilities: dict[str, Any]
    _callbacks: Callbacks
    _poll_sleep: Sleep
    _task_support: dict[str, str | None]
    """Each listed tool's execution.taskSupport (2025-11-25), by name."""

    @property
    @abc.abstractmethod
    def revision(self) -> Revision | None: ...

    @abc.abstractmethod
    async def list_tools(self) -> list[ToolInfo]: ...

    @abc.abstractmethod
    def _needs_schema(self, name: str) -> bool: ...

    @abc.abstractmethod
    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_progress: Any = None,
    ) -> dict[str, Any]: ...

    @abc.abstractmethod
    async def _exchange(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        on_progress: Any,
        *,
        rev: Revision | None = None,
    ) -> dict[str, Any]: ...

    @abc.abstractmethod
    async def _tool_result(
        self, name: str | None, raw: dict[str, Any], result_type: Any, raise_on_error: bool
    ) -> CallToolResult: ...

    def _task_handle(
        self, era: TaskEra, name: str, raw: dict[str, Any], result_type: Any, raise_on_error: bool
    ) -> TaskHandle:
        """The handle of a task a tools/call result announced."""
        link = self._task_link(era, name, result_type, raise_on_error)
        return TaskHandle(link, created(era, raw))

    def task_era(self) -> TaskEra | None:
        """How the revision spoken carries tasks, when the server offers them (else None)."""
        rev = self.revision
        era = ERAS.get(rev.version) if rev is not None else None
        return era if era is not None and server_offers(era, self.capabilities) else None

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl: float | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        result_type: Any = None,
        raise_on_error: bool = False,
    ) -> TaskHandle:
        """Call a tool so that it may run as a task; the handle comes back as soon as the
        server answers. `ttl`: seconds the task should be kept (2025-11-25 asks for it; the
        server may keep it more or less). At 2025-11-25 the call asks for a task; at
        2026-07-28 it declares the tasks extension and the server decides. A server (or
        revision) without tasks answers the call at once: the handle is already completed.
        `timeout`, `result_type` and `raise_on_error` as for `call_tool`."""
        era = self.task_era()
        ttl_ms = None if ttl is None else round(ttl * 1000)
        params = call_params(era, name, arguments or {}, ttl_ms)
        raw = await self._task_call(name, params, timeout, era)
        if era is not None and is_task_result(era, raw):
            return self._task_handle(era, name, raw, result_type, raise_on_error)
        link = self._task_link(era or ERAS["2026-07-28"], name, result_type, raise_on_error)
        return TaskHandle(None, None, await link.parse(raw))

    async def task(self, task_id: str, *, tool: str | None = None) -> TaskHandle:
        """Reattach to a task by id (one started earlier, by this connection or another of
        the same principal): its status read now. TaskNotFound when the server has no such
        task (never made, expired, someone else's). `tool`: the tool it calls, so its result's
        `data` is checked and hydrated as call_tool does (without it, `data` is None)."""
        era = self.task_era()
        if era is None:
            rev = self.revision
            raise ValueError(
                f"the server offers no tasks at {rev.version if rev else 'this revision'}"
            )
        # Named only until the tasks/get below says what it is (or that there is none).
        handle = TaskHandle(self._task_link(era, tool, None, False), TaskState(task_id, "working"))
        await handle.refresh()
        return handle

    # --- what a handle talks through --------------------------------------------------------

    async def _task_call(
        self, name: str, params: dict[str, Any], timeout: Any, era: TaskEra | None
    ) -> dict[str, Any]:
        if self._needs_schema(name):
            await self.list_tools()
        if "task" in params:  # 2025-11-25: asked for only of a tool that may run as a task
            if name not in self._task_support:
                await self.list_tools()
            if self._task_support.get(name) not in ("optional", "required"):
                params = {k: v for k, v in params.items() if k != "task"}
        if era is not None and era.extension is not None:  # 2026-07-28: declared for the call
            params = declaring(params, era.extension)
        return await self.request("tools/call", params, timeout=timeout)

    def _task_link(
        self, era: TaskEra, tool: str | None, result_type: Any, raise_on_error: bool
    ) -> TaskLink:
        rev = self.revision

        async def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
            if era.extension is not None:
                params = declaring(params, era.extension)
            return await self._exchange(method, params, DEFAULT_TIMEOUT, None)

        async def answer(asks: Mapping[str, Any]) -> dict[str, Any]:
            assert rev is not None
            return await questions.input_responses(self._callbacks, asks, rev)

        async def parse(raw: dict[str, Any]) -> CallToolResult:
            return await self._tool_result(tool, raw, result_type, raise_on_error)

        return TaskLink(era, request, answer, parse, self._poll_sleep)
