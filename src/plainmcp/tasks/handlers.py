"""The tasks/* methods: tasks/get, tasks/update, tasks/cancel (both eras where they exist),
tasks/result and tasks/list (2025-11-25), each answered from the store alone, so any process
sharing it answers any task. A task of another principal is answered as an unknown id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.model.identity import identity
from plainmcp.tasks import eras
from plainmcp.tasks.peer import WATCH_SECONDS
from plainmcp.tasks.store import BadCursor
from plainmcp.tasks.transitions import Answer, Cancel
from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError
from plainmcp.wire.methods import Method, Param, Target

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.tasks.eras import Era
    from plainmcp.tasks.record import TaskRecord
    from plainmcp.tasks.store import TaskStore

_TASK_ID = Param("taskId", "string", required=True)
_A_TASK = Target("taskId", "task", arguments=False)
"""The Mcp-Name header of a tasks/* request repeats its taskId (SEP-2663)."""

GET = Method("tasks/get", params=(_TASK_ID,), since="2025-11-25", target=_A_TASK)
RESULT = Method("tasks/result", params=(_TASK_ID,), since="2025-11-25")
"""2025-11-25 only: no Mcp-Name (a 2026-07-28 client gets -32601 for it, not -32020)."""
CANCEL = Method("tasks/cancel", params=(_TASK_ID,), since="2025-11-25", target=_A_TASK)
UPDATE = Method(
    "tasks/update",
    params=(_TASK_ID, Param("inputResponses", "object", required=True)),
    since="2025-11-25",
    target=_A_TASK,
)
LIST = Method(
    "tasks/list",
    params=(Param("cursor", "string", problem="Invalid params: unknown cursor"),),
    since="2025-11-25",
)

NOT_FOUND = "Failed to retrieve task: Task not found"


class TaskMethods:
    """The handlers of one store, given the era of each request."""

    def __init__(
        self, store: TaskStore, page_size: int, streams: dict[str, tuple[Any, Any]] | None = None
    ) -> None:
        self.store = store
        self.page_size = page_size
        self.streams: dict[str, tuple[Any, Any]] = {} if streams is None else streams
        """Task id -> (peer, request id) of a tasks/result waiting in this process: a question
        of that task goes on that request's stream (2025-11-25)."""

    async def _known(self, ex: Exchange) -> tuple[TaskRecord, Era, str | None]:
        era = _era(ex)
        owner = identity(ex.principal)
        record = await self.store.get(ex.request.params["taskId"], owner)
        if record is None or not _same_era(record, ex):
            raise RpcError(INVALID_PARAMS, NOT_FOUND)
        return record, era, owner

    async def get(self, core: Any, ex: Exchange) -> dict[str, Any]:
        record, era, _ = await self._known(ex)
        return eras.detailed(record, era)

    async def update(self, core: Any, ex: Exchange) -> dict[str, Any]:
        record, _, owner = await self._known(ex)
        await self.store.change(
            record.task_id, owner, Answer(dict(ex.request.params["inputResponses"]))
        )
        return {}

    async def cancel(self, core: Any, ex: Exchange) -> dict[str, Any]:
        record, era, owner = await self._known(ex)
        if not record.terminal:
            after = await self.store.change(record.task_id, owner, Cancel())
            record = after if after is not None else record
            if after is None:
                raise RpcError(INVALID_PARAMS, NOT_FOUND)
            if record.status == "cancelled" and record.cancel_requested:
                return eras.cancelled(record, era)
        if era.cancel_terminal == "refuse":
            raise RpcError(
                INVALID_PARAMS, f"Cannot cancel a task in a terminal status ({record.status})"
            )
        return eras.cancelled(record, era)

    async def result(self, core: Any, ex: Exchange) -> dict[str, Any]:
        """Blocks until the task ends, then answers what the call itself would have."""
        record, era, owner = await self._known(ex)
        stream = (ex.peer, ex.request.id)
        self.streams[record.task_id] = stream
        try:
            while not record.terminal:
                later = await self.store.wait(record.task_id, owner, record.version, WATCH_SECONDS)
                if later is None:
                    raise RpcError(INVALID_PARAMS, NOT_FOUND)
                record = later
        finally:
            if self.streams.get(record.task_id) is stream:
                del self.streams[record.task_id]
        if record.error is not None:
            error = record.error
            raise RpcError(error["code"], error["message"], error.get("data"))
        if record.result is None:  # cancelled before it answered
            record = _with_result(record, "The task was cancelled before it finished.")
        return eras.payload(record, era)

    async def list(self, core: Any, ex: Exchange) -> dict[str, Any]:
        era = _era(ex)
        try:
            page = await self.store.page(
                identity(ex.principal), ex.request.params.get("cursor"), self.page_size
            )
        except BadCursor:
            raise RpcError(INVALID_PARAMS, "Invalid params: unknown cursor") from None
        mine = [r for r in page.records if _same_era(r, ex)]
        return eras.listing(mine, era, page.next_cursor)


def _same_era(record: TaskRecord, ex: Exchange) -> bool:
    """A task is read in the revision that made it (its result is rendered for that one)."""
    return not record.revision or record.revision == ex.revision.version


def _era(ex: Exchange) -> Era:
    era = eras.era_of(ex.revision.version)
    assert era is not None  # the extension's refusal let no other revision through
    return era


def _with_result(record: TaskRecord, text: str) -> TaskRecord:
    import dataclasses

    result = {"content": [{"type": "text", "text": text}], "isError": True}
    return dataclasses.replace(record, result=result)
