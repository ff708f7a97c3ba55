"""A process's stderr read line by line in a thread, so a test can wait for a line."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class Lines:
    """Every line read from `stream`; `wait_for(text)` blocks until a line after the last one
    waited for contains `text` (or the stream ends: AssertionError)."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._seen = 0
        self._ended = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    @classmethod
    def pipe(cls) -> tuple[Lines, IO[str]]:
        """Lines of a new pipe, and its write end (to hand a child as its stderr)."""
        read_fd, write_fd = os.pipe()
        return cls(os.fdopen(read_fd, encoding="utf-8")), os.fdopen(write_fd, "w")

    @classmethod
    @contextlib.contextmanager
    def fifo(cls, path: Path) -> Iterator[Lines]:
        """Lines written to a new FIFO at `path`, by whatever process opens it later (a
        child's stderr, a relay's record). A writer of its own stays open for the block, so
        reading never ends before that process has opened it."""
        os.mkfifo(path)
        reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        keeper = os.open(path, os.O_WRONLY)
        os.set_blocking(reader, True)
        try:
            yield cls(os.fdopen(reader, encoding="utf-8"))
        finally:
            os.close(keeper)

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        with self._changed:
            while True:
                for index in range(self._seen, len(self.lines)):
                    if text in self.lines[index]:
                        self._seen = index + 1
                        return self.lines[index]
                if self._ended:
                    raise AssertionError(f"no line with {text!r} in:\n" + "\n".join(self.lines))
                if not self._changed.wait(timeout):
                    seen = "\n".join(self.lines)
                    raise AssertionError(f"{text!r} not seen in {timeout} s:\n{seen}")
