"""A tool call running as a task, from the client: `TaskHandle` (its status, waiting with the
server's poll interval and backoff, its result, cancelling it), on either era.

The handle talks to the server through a `TaskLink` the Client hands it (its requests, its
callbacks answering input, the one result parser `call_tool` uses, the sleeper polls wait
with), so it reads nothing of the Client and a test can drive its time. What differs between
2025-11-25 and 2026-07-28 is read from the `TaskEra` (task_wire.py), never tested for here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.client.errors import McpError, TaskCancelled, TaskFailed, TaskNotFound
from plainmcp.client.results import CallToolResult
from plainmcp.client.task_wire import TaskEra, TaskState, next_delay, parse_task
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS

Request = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class TaskLink:
    """What a handle needs of its client."""

    era: TaskEra
    request: Request
    """One tasks/* request (declaring the extension where the era has one)."""
    answer: Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]
    """inputRequests -> inputResponses, by the client's elicit/sample/roots callbacks."""
    parse: Callable[[dict[str, Any]], Awaitable[CallToolResult]]
    """A tools/call result as call_tool gives it (output schema, data, raise_on_error)."""
    sleep: Sleep
    """How the handle waits between polls (the client's `poll_sleep`, anyio.sleep by default)."""


class TaskHandle:
    """A tool call running as a task: `await handle.wait()`, `await handle.result()`,
    `await handle.cancel()`; `id` reattaches to it later (`client.task(id)`).

    A call the server answered at once (it made no task, or the revision has none) gives a
    handle already completed with that result: `id` is None, `status` "completed"."""

    def __init__(
        self,
        link: TaskLink | None,
        state: TaskState | None,
        final: CallToolResult | None = None,
    ) -> None:
        self._link = link
        self._state = state
        self._final = final
        self._answered: set[str] = set()
        self._outcome: dict[str, Any] | McpError | None = None
        """The final tools/call result fetched (or the error it ended with), once fetched."""

    def __repr__(self) -> str:
        return f"TaskHandle(id={self.id!r}, status={self.status!r})"

    @property
    def id(self) -> str | None:
        """The task's id (None: the call was answered without a task)."""
        return self._state.task_id if self._state is not None else None

    @property
    def state(self) -> TaskState | None:
        """The last snapshot the server gave (None: no task)."""
        return self._state

    @property
    def status(self) -> str:
        """working, input_required, completed, failed or cancelled, as last seen."""
        return self._state.status if self._state is not None else "completed"

    @property
    def status_message(self) -> str | None:
        return self._state.status_message if self._state is not None else None

    @property
    def done(self) -> bool:
        return self._state is None or self._state.done

    async def refresh(self) -> TaskState | None:
        """Ask the server for the task's status now (tasks/get)."""
        if self._state is None:
            return None
        link, task_id = self._need()
        self._state = parse_task(link.era, await self._ask(link, "tasks/get", task_id))
        return self._state

    async def wait(self, on_status: Callable[[TaskState], Any] | None = None) -> TaskState | None:
        """Poll until the task ends, answering what it asks on the way; `on_status` hears
        each snapshot that differs from the one before. Each poll waits the server's
        poll interval, longer (task_wire.next_delay) while nothing changes."""
        if self._state is None:
            return None
        link, _ = self._need()
        unchanged = 0

        def heard(before: TaskState) -> bool:
            """Tell `on_status` of a change since `before`; False when there was none."""
            seen = self._state
            assert seen is not None
            if (seen.status, seen.status_message) == (before.status, before.status_message):
                return False
            if on_status is not None:
                on_status(seen)
            return True

        while not self._state.done:
            before = self._state
            if before.status == "input_required" and await self._give_input(link):
                unchanged = 0
                if heard(before):
                    continue  # answered: the status it moved to is looked at first
            await link.sleep(next_delay(self._state.poll_interval_ms, unchanged))
            await self.refresh()
            unchanged = 0 if heard(before) else unchanged + 1
        return self._state

    async def result(self) -> CallToolResult:
        """The call's result, once the task has ended (waiting for it first): the same
        CallToolResult call_tool gives (a tool's error is `is_error`). A failed task raises
        TaskFailed, a cancelled one TaskCancelled."""
        if self._final is not None:
            return self._final
        await self.wait()
        link, task_id = self._need()
        state = self._state
        assert state is not None
        if state.status == "cancelled":
            raise TaskCancelled(task_id, state.status_message)
        if self._outcome is None:
            self._outcome = await self._fetch_result(link, state)
        if isinstance(self._outcome, McpError):
            raise self._outcome
        self._final = await link.parse(self._outcome)
        return self._final

    async def cancel(self) -> None:
        """Ask the server to cancel the task (tasks/cancel); cooperative and idempotent: a task
        that has ended already stays as it is."""
        if self._state is None or self._final is not None:
            return
        link, task_id = self._need()
        try:
            reply = await self._ask(link, "tasks/cancel", task_id)
        except TaskNotFound:
            # 2025-11-25 refuses to cancel a finished task with the same code as an unknown
            # one: a task still there has ended, and stays as it is.
            if (await self.refresh()) is None or not self._state.done:
                raise
            return
        if "taskId" in reply:  # 2025-11-25 answers the task; 2026-07-28 an empty ack
            self._state = parse_task(link.era, reply)

    # --- plumbing --------------------------------------------------------------------------

    def _need(self) -> tuple[TaskLink, str]:
        assert self._link is not None and self._state is not None
        return self._link, self._state.task_id

    async def _ask(self, link: TaskLink, method: str, task_id: str) -> dict[str, Any]:
        try:
            return await link.request(method, {"taskId": task_id})
        except McpError as exc:
            if exc.code == INVALID_PARAMS:
                raise TaskNotFound(task_id, exc) from None
            raise

    async def _give_input(self, link: TaskLink) -> bool:
        """Answer what an input_required task asks; False when there is nothing new to answer.

        2026-07-28: the questions are in the snapshot, answered once each with tasks/update.
        2025-11-25: the server sends its own requests (answered by the client as they come)
        once tasks/result is waiting, which it is until the task ends."""
        state = self._state
        assert state is not None
        if link.era.update_method is None:
            self._outcome = await self._fetch_result(link, state)
            await self.refresh()
            return True
        asks = {k: v for k, v in state.input_requests.items() if k not in self._answered}
        if not asks:
            return False
        answers = await link.answer(asks)
        await link.request(
            link.era.update_method, {"taskId": state.task_id, "inputResponses": answers}
        )
        self._answered.update(asks)
        return True

    async def _fetch_result(self, link: TaskLink, state: TaskState) -> dict[str, Any] | TaskFailed:
        """The final tools/call result: inlined (2026-07-28) or from tasks/result (which
        waits for the end); a protocol error it ended with as TaskFailed."""
        if link.era.result_method is None:
            if state.result is None and state.error is None:
                # A snapshot without the payload (a CreateTaskResult that was already done):
                # tasks/get inlines it.
                state = await self.refresh() or state
            if state.status == "failed":
                return _failed(state.task_id, state.error, state.status_message)
            if state.result is None:
                raise McpError(INTERNAL_ERROR, f"Task {state.task_id!r} completed with no result")
            return state.result
        try:
            return await self._ask(link, link.era.result_method, state.task_id)
        except TaskNotFound:
            raise
        except McpError as exc:  # the call's own JSON-RPC error, as tasks/result returns it
            return TaskFailed(state.task_id, exc.code, exc.message, exc.data)


def _failed(task_id: str, error: Mapping[str, Any] | None, message: str | None) -> TaskFailed:
    code = error.get("code") if error is not None else None
    text = error.get("message") if error is not None else None
    return TaskFailed(
        task_id,
        code if isinstance(code, int) else INTERNAL_ERROR,
        text if isinstance(text, str) else message or f"Task {task_id!r} failed",
        error.get("data") if error is not None else None,
    )
