"""Who owns stdout: the protocol, once this process serves stdio; the program, otherwise.

A stdio server's fd 1 is its protocol stream, so nothing else may reach it. `claim_stdout()`
(called by `Server.run()`, and by `plainmcp run` before it imports the user's module) moves the
real stdout aside for the protocol and points fd 1 and `sys.stdout` at stderr. Under
`python server.py` that comes too late for what the module printed before `app.run()` when it
was flushed (`print(..., flush=True)`, or any print under `PYTHONUNBUFFERED=1`): it has already
reached the client.

So `import plainmcp` holds `sys.stdout` (`hold_stdout()`) when the process could be a stdio server
for a program: stdout is a pipe or socket and stdin is not a terminal (a host pipes both; at a
terminal a person reads the output, so nothing is held). Writes are kept, in order,
until the process shows what it is:

- it serves stdio (`claim_stdout()`): the held output goes to stderr;
- it is not a stdio server (`release_stdout()`): the held output goes to the real stdout at once
  and `sys.stdout` is the original stream again. That happens when a `Client` session starts, when
  an HTTP app starts serving (`run("http")` and `plainmcp run --http` before uvicorn starts; an
  app served some other way at its ASGI lifespan's start, its first request, or when a host
  enters `HttpApp.lifespan()`), when the `plainmcp` command starts (it decides for itself: `run`
  claims, `list`, `call` and `demo` are clients), and at exit. Making an app (`http_app()`) is
  no sign: a file may make one at import for `uvicorn server:web` and still end with `app.run()`
  for hosts. Call it yourself in a program that waits (e.g. on stdin) before any of these and
  wants its output seen meanwhile.

At most `HOLD_LIMIT` (1 MiB) is held: the write that passes it sends a note, what was held and
everything after to stderr, where a server's prints belong anyway (memory stays bounded, nothing
is lost, nothing reaches a protocol stream); `release_stdout()` later points `sys.stdout` at the
real stdout again.

Guessing instead (a pipe on stdout means a server) would send a client script's output to
stderr; holding costs only a delay in programs that are neither servers nor clients, and no
delay at all when stdout is a terminal or a file. Not caught before `run()`: `os.write(1, ...)`,
C extensions and subprocesses writing to fd 1, and what a server that opens a `Client` first (a
proxy) prints after that; `plainmcp run` catches those too, since it claims fd 1 before the
import. Held output reaches stderr when `run()` starts, so it follows what was written to stderr
meanwhile; after that, fd 1 itself points at stderr. A process killed by a signal before it
decides loses what it held (nothing is lost on a normal exit).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import stat
import sys
import threading
from typing import Any, TextIO

_protocol_fd: int | None = None
_held: HeldStdout | None = None

HOLD_LIMIT = 1 << 20
"""What may be held, in characters of text plus bytes: past it, everything goes to stderr."""

OVERFLOW_NOTE = (
    "plainmcp: more than {0} bytes were written to stdout before this process served stdio or"
    " showed it is no stdio server; they and what follows go to stderr"
    " (plainmcp.transports.stdout)\n"
)


class HeldStdout(io.TextIOBase):
    """Stands in for `sys.stdout`: keeps what is written (text and `.buffer` bytes, in order)
    until `decide(target)`, then hands it to `target` and forwards everything after it, so a
    reference kept meanwhile (a logging handler) keeps working.

    At most `limit` is kept: the write that passes it decides for `spill` (default: stderr,
    where a stdio server's prints go anyway), after a note saying so, so memory stays bounded
    and nothing reaches a protocol stream or is lost."""

    def __init__(
        self, stream: TextIO, *, limit: int = HOLD_LIMIT, spill: TextIO | None = None
    ) -> None:
        super().__init__()
        self.original = stream
        self._target: TextIO = stream
        self._held: list[str | bytes] | None = []
        self._size = 0
        self._limit = limit
        self._spill = spill
        self._lock = threading.RLock()
        self._buffer = _HeldBuffer(self)

    @property
    def buffer(self) -> io.BufferedIOBase:
        return self._buffer

    @property
    def holding(self) -> bool:
        return self._held is not None

    def decide(self, target: TextIO) -> None:
        """Send what was held to `target`; from now on, write through to it. Only once."""
        with self._lock:
            if self._held is None:
                return
            held, self._held = self._held, None
            same: object = target
            self._target = self.original if same is self else target  # no loop through itself
            for chunk in held:
                self._emit(chunk)
            with contextlib.suppress(Exception):
                target.flush()

    def _emit(self, chunk: str | bytes) -> int:
        target = self._target
        if isinstance(chunk, str):
            return target.write(chunk)
        binary = getattr(target, "buffer", None)
        if binary is None:
            return target.write(chunk.decode(target.encoding or "utf-8", "replace"))
        target.flush()  # what the text layer holds comes first
        written: int = binary.write(chunk)
        return written

    def _put(self, chunk: str | bytes) -> int:
        with self._lock:
            if self._held is not None:
                self._held.append(chunk)
                self._size += len(chunk)
                if self._size > self._limit:
                    self._overflow()
                return len(chunk)
            return self._emit(chunk)

    def _overflow(self) -> None:
        spill = self._spill if self._spill is not None else sys.stderr
        same: object = spill
        if same is self:  # stderr pointed at stdout: there is nowhere else to go
            spill = self.original
        with contextlib.suppress(Exception):
            spill.write(OVERFLOW_NOTE.format(self._limit))
        self.decide(spill)

    def write(self, s: str, /) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        return self._put(s)

    def flush(self) -> None:
        with self._lock:
            if self._held is None:
                self._target.flush()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._target.fileno()

    def isatty(self) -> bool:
        return False if self.holding else self._target.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._target.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._target.errors

    def __getattr__(self, name: str) -> Any:
        # line_buffering, reconfigure, name, mode...: those of the stream it stands for.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._target, name)


class _HeldBuffer(io.BufferedIOBase):
    """`sys.stdout.buffer` while held: bytes join the text in one ordered queue."""

    def __init__(self, owner: HeldStdout) -> None:
        super().__init__()
        self._owner = owner

    def write(self, b: Any, /) -> int:
        data = bytes(b)
        self._owner._put(data)
        return len(data)

    def flush(self) -> None:
        self._owner.flush()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._owner.fileno()


def _could_be_stdio_server(stream: TextIO) -> bool:
    """stdout is a pipe or socket (a host reading messages), stdin is not a terminal."""
    try:
        if stream.fileno() != 1 or os.isatty(0):
            return False
        mode = os.fstat(1).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def hold_stdout() -> None:
    """Hold `sys.stdout` until the process serves stdio or turns out not to (see above).

    Only the interpreter's own stdout is held: a notebook's, a test runner's capture or a stream
    the program installed is left alone."""
    global _held
    stream: TextIO | None = sys.stdout
    if _held is not None or _protocol_fd is not None or sys.stdout is not sys.__stdout__:
        return
    if stream is None or not _could_be_stdio_server(stream):
        return
    _held = HeldStdout(stream)
    sys.stdout = _held
    atexit.register(release_stdout)


def release_stdout() -> None:
    """Not a stdio server: what was held goes to stdout now, and `sys.stdout` is itself again."""
    held = _held
    if held is None or _protocol_fd is not None:
        return
    held.decide(held.original)  # nothing, when it overflowed to stderr: the rest comes here
    if sys.stdout is held:
        sys.stdout = held.original


def claim_stdout() -> int:
    """Keep the real stdout for protocol messages; send everything else written there to stderr."""
    global _protocol_fd
    if _protocol_fd is None:
        _protocol_fd = os.dup(1)
        os.dup2(2, 1)
        # Flush only now: what was printed before (buffered, or held above) goes to stderr with
        # fd 1, instead of corrupting the protocol stream.
        for stream in (sys.__stdout__, sys.stdout):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        sys.stdout = sys.stderr
        if _held is not None:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            _held.decide(sys.stderr)
    return _protocol_fd
