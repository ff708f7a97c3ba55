"""Tasks as the extension io.modelcontextprotocol/tasks (2026-07-28) and as the core tasks of
2025-11-25, from one definition: `Tasks`, what `Server(tasks=...)` takes.

It wraps tools/call: a call of a tool declared `task="optional"` or `task="required"` may run
as a task. Who decides is the era's (eras.py): at 2025-11-25 the client, by sending `task`;
at 2026-07-28 the server, for a client whose request names the extension: the call answers
inline when it ends (or asks for input) within `budget` seconds, else it becomes a task. A tool
that may run as a task still answers a plain call from a client that did not ask.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from plainmcp.extensions import Answered, Extension, Handler, Render, Wrapper, client_extensions
from plainmcp.model.identity import identity
from plainmcp.tasks import eras
from plainmcp.tasks.handlers import CANCEL, GET, LIST, RESULT, UPDATE, TaskMethods
from plainmcp.tasks.memory import MemoryTaskStore
from plainmcp.tasks.runner import Run, Runner, Sleep, Terms
from plainmcp.wire.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from plainmcp.wire.meta import MISSING_REQUIRED_CLIENT_CAPABILITY

if TYPE_CHECKING:
    from collections.abc import Callable

    from plainmcp.exchange import Exchange
    from plainmcp.tasks.store import TaskStore
    from plainmcp.wire.methods import Method
    from plainmcp.wire.revisions import Revision

__all__ = ["Tasks"]


class Tasks(Extension):
    """The server's tasks: where they are kept and the terms each one gets.

    `store`: a TaskStore (MemoryTaskStore by default; one store shared by every process that
    serves the same clients). `budget`: seconds a 2026-07-28 call runs before it becomes a task
    (0: at once). `ttl_ms`: how long a task is kept from its creation (None: until the store's
    bound evicts it); `max_ttl_ms` caps what a 2025-11-25 client asks for. `poll_interval_ms`:
    how often a client is told to poll. `clock` and `sleep` are the time tasks are stamped and
    the budget waited with (tests pass their own).
    """

    id = eras.EXTENSION_ID
    since = "2026-07-28"

    def __init__(
        self,
        store: TaskStore | None = None,
        *,
        budget: float = 0.5,
        ttl_ms: int | None = 3_600_000,
        max_ttl_ms: int | None = 86_400_000,
        poll_interval_ms: int = 1000,
        page_size: int = 100,
        clock: Callable[[], float] = time.time,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        if budget < 0:
            raise ValueError("budget must be >= 0 seconds")
        if poll_interval_ms < 1:
            raise ValueError("poll_interval_ms must be at least 1")
        for name, value in (("ttl_ms", ttl_ms), ("max_ttl_ms", max_ttl_ms)):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1 ms or None")
        self.ttl_ms, self.max_ttl_ms, self.poll_interval_ms = ttl_ms, max_ttl_ms, poll_interval_ms
        self.clock = clock
        self.runner = Runner(
            store if store is not None else MemoryTaskStore(clock=clock), budget=budget, sleep=sleep
        )
        self.served = TaskMethods(self.runner.store, page_size, self.runner.streams)

    @property
    def store(self) -> TaskStore:
        return self.runner.store

    @store.setter
    def store(self, store: TaskStore) -> None:
        self.runner.store = self.served.store = store

    @property
    def budget(self) -> float:
        return self.runner.budget

    # --- the seam (plainmcp.extensions) ----------------------------------------------------

    def methods(self) -> Sequence[tuple[Method, Handler]]:
        s = self.served
        return (
            (GET, s.get),
            (RESULT, s.result),
            (LIST, s.list),
            (CANCEL, s.cancel),
            (UPDATE, s.update),
        )

    def core_capabilities(self, rev: Revision) -> Mapping[str, Any]:
        era = eras.era_of(rev.version)
        if era is None or era.gate != "server":
            return {}
        return {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}

    def refusal(self, ex: Exchange, method: Method) -> RpcError | None:
        era = eras.era_of(ex.revision.version)
        if era is None or method.name not in era.methods:
            return RpcError(METHOD_NOT_FOUND, f"Method not found: {method.name}")
        if era.gate == "client" and self.id not in client_extensions(ex):
            return self.missing(f"{method.name} needs the client capability {self.id}")
        return None

    def missing(self, message: str) -> RpcError:
        return RpcError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            message,
            {"requiredCapabilities": {"extensions": {self.id: {}}}},
        )

    def wraps(self) -> Mapping[str, Wrapper]:
        return {"tools/call": self._wrap_call}

    # --- tools/call ------------------------------------------------------------------------

    def _wrap_call(self, method: Method, handler: Handler, render: Render) -> Handler:
        async def call_maybe_as_task(core: Any, ex: Exchange) -> Any:
            params = ex.request.params
            tool = core.tools.by_key.get(params["name"])
            support = tool.task if tool is not None else None
            era = eras.ERAS.get(ex.revision.version)
            if era is None:
                return await handler(core, ex)
            asked = params.get("task") if era.decides == "client" else None
            if support is None:
                if asked is not None and tool is not None:
                    raise RpcError(METHOD_NOT_FOUND, f"Tool '{tool.name}' does not run as a task")
                return await handler(core, ex)
            if era.decides == "client":
                if asked is None:
                    if support == "required":
                        raise RpcError(
                            era.required_error,
                            f"Tool '{tool.name}' runs only as a task: call it with params.task",
                        )
                    return await handler(core, ex)
                terms = self._terms(asked)
            else:
                if self.id not in client_extensions(ex):
                    if support == "required":
                        raise self.missing(f"Tool '{tool.name}' runs only as a task")
                    return await handler(core, ex)
                terms = Terms(self.ttl_ms, self.poll_interval_ms)
            owner = identity(ex.principal)
            streams = self.runner.streams
            run = Run(self.store, era, owner, streams, handler, render, method, core, ex)
            record = await self.runner.call(
                run, terms, now=self.clock(), at_once=era.decides == "client"
            )
            if record is None:
                if run.error is not None:
                    raise run.error
                return run.value
            return Answered(eras.created(record, era))

        return call_maybe_as_task

    def _terms(self, asked: Any) -> Terms:
        """A 2025-11-25 client's `task` param: the ttl it asks, within max_ttl_ms."""
        if not isinstance(asked, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: task must be an object")
        ttl = asked.get("ttl", self.ttl_ms)
        if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 1):
            raise RpcError(INVALID_PARAMS, "Invalid params: task.ttl must be a positive integer")
        if self.max_ttl_ms is not None:
            ttl = self.max_ttl_ms if ttl is None else min(ttl, self.max_ttl_ms)
        return Terms(ttl, self.poll_interval_ms)
