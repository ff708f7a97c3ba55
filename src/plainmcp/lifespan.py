"""The server's lifespan: what it opens once per process (a database pool, a model) before the
first request, and closes at shutdown, whatever the transport.

`Server(lifespan=fn)` takes an async context manager factory `fn(app)` (an
`@asynccontextmanager` function, or a bare async generator function); what it yields is the
state tools, resources and prompts read with `ctx.lifespan(StateType)`. `hooks()` builds one
from a start-up and a shutdown function. Every transport enters it through
`Lifespan.running()`: stdio before it reads a line, HTTP on the ASGI lifespan startup, the
in-memory client when it connects.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypeVar

from plainmcp.context import NotRunning as NotRunning  # defined where ctx.lifespan() is

__all__ = ["LifespanError", "LifespanFactory", "hooks"]

T = TypeVar("T")

LifespanFactory = Callable[[Any], AbstractAsyncContextManager[Any]]
"""`fn(app)` giving the async context manager the process runs inside (`app`: the Server,
not named here: server.py imports this module)."""


class Holder(Protocol):
    """The server whose lifespan runs: its name (in errors) and its Lifespan, if any."""

    @property
    def name(self) -> str: ...

    lifespan_manager: Lifespan | None


class LifespanError(RuntimeError):
    """The lifespan's start-up raised (the cause is chained): the server does not serve."""


_UNSET: Any = object()


def as_factory(given: Callable[[Any], Any]) -> LifespanFactory:
    """`given` as a context manager factory: an async generator function is wrapped."""
    if inspect.isasyncgenfunction(given):
        return contextlib.asynccontextmanager(given)
    return given


def hooks(
    startup: Callable[[Any], T | Awaitable[T]],
    shutdown: Callable[[T], Any] | None = None,
) -> LifespanFactory:
    """A lifespan from two functions (each sync or async): `startup(app)` returns the state,
    `shutdown(state)` closes it, also after a failure. For servers written that way already."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[T]:
        state = startup(app)
        if inspect.isawaitable(state):
            state = await state
        try:
            yield state
        finally:
            if shutdown is not None:
                done = shutdown(state)
                if inspect.isawaitable(done):
                    await done

    return lifespan


class Lifespan:
    """One server's lifespan: entered by the first transport that starts, exited when that one
    stops. A transport started inside it (an in-memory client within a served process, an
    HttpApp both mounted and given its host's lifespan) shares it instead of entering again."""

    def __init__(self, factory: LifespanFactory) -> None:
        self.factory = factory
        self.state: Any = _UNSET
        self._depth = 0
        self.nested: list[Holder] = []
        """Servers mounted in this one (mount.py): their lifespans are entered, in order,
        after this one's start-up, and exited, in reverse, before its shutdown."""

    def nest(self, server: Holder) -> None:
        """Run `server`'s lifespan inside this one (nothing when it declares none)."""
        if server.lifespan_manager is not None:
            self.nested.append(server)

    @property
    def running(self) -> bool:
        return self._depth > 0

    @contextlib.asynccontextmanager
    async def run(self, server: Holder) -> AsyncIterator[Any]:
        """Enter the lifespan for the block (or share the one running); LifespanError if its
        start-up raises. Its exit runs when the block ends, however it ends."""
        if self._depth:
            self._depth += 1
            try:
                yield self.state
            finally:
                self._depth -= 1
            return
        async with contextlib.AsyncExitStack() as stack:
            try:
                state = await stack.enter_async_context(self.factory(server))
            except Exception as exc:
                raise LifespanError(
                    f"the lifespan of server {server.name!r} failed to start:"
                    f" {type(exc).__name__}: {exc}"
                ) from exc
            self.state, self._depth = state, 1
            try:
                for server_within in self.nested:
                    await stack.enter_async_context(running(server_within))
                yield state
            finally:
                self.state, self._depth = _UNSET, 0

    def get(self, cls: type[T] | None = None) -> Any:
        """The state, checked against `cls` when given."""
        if not self._depth:
            raise NotRunning(
                "the server's lifespan is not running: serve it with app.run(), an HttpApp"
                " whose host runs its lifespan (Starlette: lifespan=http_app.lifespan), or"
                " Client.memory(app)"
            )
        state = self.state
        if cls is not None and not isinstance(state, cls):
            raise TypeError(f"the lifespan yielded {type(state).__name__}, not {cls.__name__}")
        return state


@contextlib.asynccontextmanager
async def running(server: Holder) -> AsyncIterator[Any]:
    """The server's lifespan for the block; nothing to enter when it declares none."""
    lifespan = server.lifespan_manager
    if lifespan is None:
        yield None
        return
    async with lifespan.run(server) as state:
        yield state
