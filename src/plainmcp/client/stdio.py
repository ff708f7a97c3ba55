"""A client session over a stdio subprocess (`Client.stdio`): the server spawned, its stdout
read one message a line, its end told to the session, the process ended with the session."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TypeVar

import anyio
import anyio.abc

from plainmcp.client.core import Core, single_errors
from plainmcp.client.errors import ConnectionClosed, ProtocolViolation, too_large

S = TypeVar("S")


@contextlib.asynccontextmanager
async def spawn(
    command: str,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | os.PathLike[str] | None,
    session: Callable[[Core], S],
) -> AsyncIterator[S]:
    """Spawn `command *args`, build `session` on the core that talks with it, and open it.

    `env` is added to this process's environment; the server's stderr goes to ours.
    """
    full_env = {**os.environ, **env} if env is not None else None
    process = await anyio.open_process([command, *args], env=full_env, cwd=cwd, stderr=None)
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def send(data: bytes) -> None:
        await stdin.send(data + b"\n")

    async with process, single_errors(), anyio.create_task_group() as tasks:
        core = Core(send, tasks)
        opened = session(core)

        async def read() -> None:
            try:
                await read_lines(core, stdout)
            except ProtocolViolation as exc:
                core.close(exc)
                process.terminate()
                return
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass
            returncode = None
            with anyio.move_on_after(2):
                returncode = await process.wait()
            how = f"exit code {returncode}" if returncode is not None else "still running"
            core.close(ConnectionClosed(f"The server closed the connection ({how})", returncode))

        tasks.start_soon(read)
        try:
            await core.start()
            yield opened
        finally:
            with anyio.CancelScope(shield=True):
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await stdin.aclose()
                with anyio.move_on_after(5):
                    await process.wait()
                if process.returncode is None:
                    process.terminate()
                    with anyio.move_on_after(2):
                        await process.wait()
                    if process.returncode is None:
                        process.kill()
                tasks.cancel_scope.cancel()


async def read_lines(core: Core, stdout: anyio.abc.ByteReceiveStream) -> None:
    """The server's stdout, one message a line; a line over the client's limit is refused
    before it is whole (a server that never ends its line cannot fill the memory)."""
    buffer = bytearray()
    async for chunk in stdout:
        buffer += chunk
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            line = bytes(buffer[start:end]).strip()
            start = end + 1
            if line:
                core.receive(line)
        del buffer[:start]
        if len(buffer) > core.max_message_size:
            raise too_large(core.max_message_size)
