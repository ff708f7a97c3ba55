"""stdio: newline-delimited JSON on stdin/stdout.

File descriptor 1 belongs to the protocol. `claim_stdout()` moves it aside and points fd 1 at
stderr, so a `print()`, a C extension or an import that writes to stdout cannot corrupt the
stream. `plainmcp run` calls it before importing the user's module; `Server.run()` calls it too.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.lowlevel import EventLoopToken
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

if TYPE_CHECKING:
    from plainmcp.connection import Connection
    from plainmcp.server import Server

log = logging.getLogger("plainmcp")

_protocol_fd: int | None = None
_READ_CHUNK = 1 << 16


def claim_stdout() -> int:
    """Keep the real stdout for protocol messages; send everything else written there to stderr."""
    global _protocol_fd
    if _protocol_fd is None:
        _protocol_fd = os.dup(1)
        os.dup2(2, 1)
        # Flush only now: what was printed before (an import that prints, while stdout is a
        # block-buffered pipe) is still in the buffer and goes to stderr with fd 1, instead of
        # corrupting the protocol stream.
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout = sys.stderr
    return _protocol_fd


def _setup_logging() -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)


def run(server: Server, *, input_fd: int = 0, output_fd: int | None = None) -> None:
    """Serve one client on stdin/stdout until stdin closes, then answer what was read and exit."""
    out = claim_stdout() if output_fd is None else output_fd
    _setup_logging()
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, server, input_fd, out)


def _reader(
    fd: int, lines: MemoryObjectSendStream[list[bytes]], limit: int, token: EventLoopToken
) -> None:
    """Blocking reads in a thread; complete lines go to the loop in batches (one hop per chunk)."""
    pending = bytearray()
    discarding = False
    try:
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except OSError:
                break
            if not chunk:
                break
            # `pending` holds no newline before this chunk: search only the new bytes, so a
            # long line read in many chunks costs linear time, not quadratic.
            scanned = len(pending)
            pending += chunk
            batch: list[bytes] = []
            start = 0
            while True:
                end = pending.find(b"\n", max(start, scanned))
                if end < 0:
                    break
                if discarding:
                    discarding = False
                else:
                    line = bytes(pending[start:end]).strip()
                    if line:
                        batch.append(line)
                start = end + 1
            del pending[:start]
            if len(pending) > limit:
                # An oversized line: answer it once and skip the rest of it.
                if not discarding:
                    batch.append(bytes(pending[: limit + 1]))
                    discarding = True
                pending.clear()
            if batch:
                anyio.from_thread.run(lines.send, batch, token=token)
        tail = bytes(pending).strip()
        if tail and not discarding:
            anyio.from_thread.run(lines.send, [tail], token=token)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, RuntimeError):
        pass
    finally:
        with contextlib.suppress(RuntimeError):
            anyio.from_thread.run_sync(lines.close, token=token)


async def serve(server: Server, input_fd: int, output_fd: int) -> None:
    """The stdio loop: read lines, dispatch concurrently, write replies as they finish."""
    broken = anyio.Event()

    async def send(data: bytes) -> None:
        if broken.is_set():
            return
        view = memoryview(data + b"\n")
        try:
            while view:
                written = os.write(output_fd, view)
                view = view[written:]
        except (BrokenPipeError, ConnectionResetError, OSError):
            broken.set()

    conn = server.connect(send)
    send_lines, receive_lines = anyio.create_memory_object_stream[list[bytes]](16)
    try:
        await _serve_connection(conn, input_fd, send_lines, receive_lines, broken)
    finally:
        conn.close()


async def _serve_connection(
    conn: Connection,
    input_fd: int,
    send_lines: MemoryObjectSendStream[list[bytes]],
    receive_lines: MemoryObjectReceiveStream[list[bytes]],
    broken: anyio.Event,
) -> None:
    server = conn.server
    async with anyio.create_task_group() as tasks:
        conn.bind(tasks)
        thread = threading.Thread(
            target=_reader,
            args=(input_fd, send_lines, server.max_message_bytes, anyio.lowlevel.current_token()),
            name="plainmcp-stdin",
            daemon=True,
        )

        async def watch_broken() -> None:
            await broken.wait()
            log.info("stdout closed by the client; stopping")
            tasks.cancel_scope.cancel()

        tasks.start_soon(watch_broken)
        thread.start()
        async with receive_lines:
            async for batch in receive_lines:
                for line in batch:
                    await conn.receive(line)
        # stdin is closed: the requests already read still get their answers, and listen
        # streams end gracefully.
        conn.closing.set()
        while conn.busy:
            await anyio.sleep(0.01)
        tasks.cancel_scope.cancel()
