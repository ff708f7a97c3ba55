"""A client session with a server in this process (`Client.memory`): the server's connection
and the client's core handed each other's way in, with the server's lifespan around them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from plainmcp.client.core import Core, single_errors
from plainmcp.client.errors import ConnectionClosed, ProtocolViolation
from plainmcp.lifespan import running

if TYPE_CHECKING:
    from plainmcp.server import Server

S = TypeVar("S")


@contextlib.asynccontextmanager
async def in_process(
    server: Server, principal: Any, session: Callable[[Core], S]
) -> AsyncIterator[S]:
    """Connect to `server` as `principal` (None: nobody, as over stdio), build `session` on
    the core that talks with it, and open it."""
    async with running(server), single_errors(), anyio.create_task_group() as tasks:
        core: Core | None = None

        async def to_client(data: bytes) -> None:
            if core is not None:
                try:
                    core.receive(data)
                except ProtocolViolation as exc:
                    core.close(exc)

        conn = server.connect(to_client)
        conn.principal = principal
        conn.bind(tasks)
        core = Core(conn.receive, tasks)
        opened = session(core)
        try:
            await core.start()
            yield opened
        finally:
            core.close(ConnectionClosed("The client closed the session"))
            # Drop the client -> connection reference so the server forgets this session
            # now, not at the next garbage collection (it would still post to it).
            core.detach()
            conn.close()
            tasks.cancel_scope.cancel()
