"""stdio: newline-delimited JSON on stdin/stdout.

File descriptor 1 belongs to the protocol. `claim_stdout()` (transports/stdout.py) moves it aside
and points fd 1 at stderr, so a `print()`, a C extension or an import that writes to stdout cannot
corrupt the stream. `plainmcp run` calls it before importing the user's module; `run()` calls it
too, and sends there what `import plainmcp` held back from `sys.stdout` until then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.lowlevel import EventLoopToken
from anyio.streams.memory import MemoryObjectSendStream

from plainmcp.connection import STOPPED
from plainmcp.lifespan import running
from plainmcp.transports.stdout import claim_stdout

if TYPE_CHECKING:
    from plainmcp.connection import Connection
    from plainmcp.served import Served

log = logging.getLogger("plainmcp")

_READ_CHUNK = 1 << 16
_STOP_GRACE = 1.0
"""Seconds the calls cancelled at the shutdown deadline get to answer with an error themselves
(the HTTP transport's figure); the transport answers for those still running then."""


def _setup_logging() -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)


def run(
    server: Served,
    *,
    input_fd: int = 0,
    output_fd: int | None = None,
    shutdown_deadline: float = 30.0,
) -> None:
    """Serve one client on stdin/stdout until stdin closes, then answer what was read and exit.
    On SIGTERM, reading stops and the calls already read get `shutdown_deadline` seconds to
    be answered before the process exits; those still running then are answered with an
    error (STOPPED, as over HTTP)."""
    out = claim_stdout() if output_fd is None else output_fd
    _setup_logging()
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, server, input_fd, out, shutdown_deadline)


class LineSplitter:
    """Bytes in, complete lines out (sans-I/O). A line longer than `limit` comes out once, cut
    to limit + 1 bytes (so the connection refuses it), and the rest of it is skipped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._pending = bytearray()
        self._discarding = False

    def feed(self, chunk: bytes) -> list[bytes]:
        pending = self._pending
        # `pending` holds no newline before this chunk: search only the new bytes, so a long
        # line read in many chunks costs linear time, not quadratic.
        scanned = len(pending)
        pending += chunk
        lines: list[bytes] = []
        start = 0
        while True:
            end = pending.find(b"\n", max(start, scanned))
            if end < 0:
                break
            if self._discarding:
                self._discarding = False
            else:
                line = bytes(pending[start:end]).strip()
                if line:
                    lines.append(line)
            start = end + 1
        del pending[:start]
        if len(pending) > self.limit:
            if not self._discarding:
                lines.append(bytes(pending[: self.limit + 1]))
                self._discarding = True
            pending.clear()
        return lines

    def finish(self) -> list[bytes]:
        """What is left when the input ends: a last line without a newline."""
        tail = bytes(self._pending).strip()
        self._pending.clear()
        return [tail] if tail and not self._discarding else []


def _reader(
    fd: int, lines: MemoryObjectSendStream[list[bytes]], limit: int, token: EventLoopToken
) -> None:
    """Blocking reads in a thread (for input the event loop cannot wait on: a terminal, a
    file); complete lines go to the loop in batches, one hop per chunk."""
    splitter = LineSplitter(limit)
    try:
        while True:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except OSError:
                break
            if not chunk:
                break
            batch = splitter.feed(chunk)
            if batch:
                anyio.from_thread.run(lines.send, batch, token=token)
        tail = splitter.finish()
        if tail:
            anyio.from_thread.run(lines.send, tail, token=token)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, RuntimeError):
        pass
    finally:
        with contextlib.suppress(RuntimeError):
            anyio.from_thread.run_sync(lines.close, token=token)


def _pollable(fd: int) -> bool:
    """A pipe or a socket: the event loop can wait on it (a regular file or terminal cannot,
    or should not be switched to non-blocking mode, since a shell shares it)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _read_in_loop(fd: int, conn: Connection) -> None:
    """Read a pipe without a thread: a reader callback reads what arrived and starts its
    requests at once (no thread hop, no task switch between the read and the dispatch)."""
    splitter = LineSplitter(conn.max_message_bytes)
    was_blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            for line in splitter.feed(chunk):
                conn.receive_nowait(line)
            return
        loop.remove_reader(fd)
        for line in splitter.finish():
            conn.receive_nowait(line)
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ended
    finally:
        loop.remove_reader(fd)
        with contextlib.suppress(OSError):
            os.set_blocking(fd, was_blocking)


async def serve(
    server: Served, input_fd: int, output_fd: int, shutdown_deadline: float = 30.0
) -> None:
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

    if server.telemetry is not None:  # imported only then: telemetry off costs no import
        from plainmcp.telemetry import STDIO_ATTRIBUTES, TRANSPORT

        TRANSPORT.set(STDIO_ATTRIBUTES)  # this task's context: every request's task inherits it
    from plainmcp.stdio_cache import use_user_cache

    use_user_cache(server)  # refs that outlive this process; nothing is read until one is needed
    async with running(server):  # before the first line is read; LifespanError if it fails
        conn = server.connect(send)
        try:
            await _serve_connection(conn, input_fd, broken, shutdown_deadline)
        finally:
            conn.close()


async def _serve_connection(
    conn: Connection, input_fd: int, broken: anyio.Event, shutdown_deadline: float
) -> None:
    async with anyio.create_task_group() as tasks:
        conn.bind(tasks)

        async def watch_broken() -> None:
            await broken.wait()
            log.info("stdout closed by the client; stopping")
            tasks.cancel_scope.cancel()

        tasks.start_soon(watch_broken)
        deadline = math.inf
        with anyio.CancelScope() as reading:

            def terminated() -> None:
                nonlocal deadline
                log.info("SIGTERM: answering the calls already read, then exiting")
                deadline = shutdown_deadline
                reading.cancel()

            with _on_sigterm(terminated):
                if _pollable(input_fd):
                    await _read_in_loop(input_fd, conn)
                else:
                    await _read_in_thread(input_fd, conn)
        # stdin is closed (or SIGTERM came): the requests already read still get their
        # answers (within the deadline after a SIGTERM), and listen streams end gracefully.
        conn.closing.set()
        with anyio.move_on_after(deadline):
            await conn.settled()  # woken by the last request's end, not polled
        if conn.busy:
            # As HTTP does (HttpApp.drain): cancelled, and answered with an error, not dropped.
            stopped = conn.stop(STOPPED)
            log.warning(
                "shutdown: %d call(s) still running after %.1f s; answering them with an error",
                stopped,
                deadline,
            )
            with anyio.move_on_after(_STOP_GRACE):
                await conn.settled()
            await conn.answer_stopped()  # those that did not end when cancelled
        tasks.cancel_scope.cancel()


@contextlib.contextmanager
def _on_sigterm(handler: Callable[[], None]) -> Iterator[None]:
    """Call `handler` on the first SIGTERM (a second one ends the process as usual). Only in
    the main thread, where signals are delivered."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    loop = asyncio.get_running_loop()

    def once() -> None:
        loop.remove_signal_handler(signal.SIGTERM)
        handler()

    try:
        loop.add_signal_handler(signal.SIGTERM, once)
    except (NotImplementedError, RuntimeError):  # no signals on this platform or loop
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


async def _read_in_thread(fd: int, conn: Connection) -> None:
    send_lines, receive_lines = anyio.create_memory_object_stream[list[bytes]](16)
    thread = threading.Thread(
        target=_reader,
        args=(fd, send_lines, conn.max_message_bytes, anyio.lowlevel.current_token()),
        name="plainmcp-stdin",
        daemon=True,
    )
    thread.start()
    async with receive_lines:
        async for batch in receive_lines:
            for line in batch:
                await conn.receive(line)
