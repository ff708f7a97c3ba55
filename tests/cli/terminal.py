"""A command run with a pseudo-terminal as its stdin and stderr (python's `pty`), stdout a pipe:
the test waits for each question on the terminal and types the answer."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path


class Terminal:
    def __init__(self, args: Sequence[str], cwd: Path | None = None) -> None:
        self._master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "plainmcp", *args],
            stdin=slave,
            stderr=slave,
            stdout=subprocess.PIPE,
            cwd=cwd,
            text=True,
        )
        os.close(slave)
        self.screen = ""
        self._seen = 0
        self._changed = threading.Condition()
        self._ended = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 4096)
            except OSError:  # the child closed its end
                chunk = b""
            with self._changed:
                if not chunk:
                    self._ended = True
                    self._changed.notify_all()
                    return
                self.screen += chunk.decode(errors="replace").replace("\r\n", "\n")
                self._changed.notify_all()

    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        """Block until `text` shows on the terminal after what was last waited for."""
        with self._changed:
            while True:
                at = self.screen.find(text, self._seen)
                if at >= 0:
                    self._seen = at + len(text)
                    return
                if self._ended or not self._changed.wait(timeout):
                    raise AssertionError(f"{text!r} never showed; the terminal has:\n{self.screen}")

    def type(self, line: str) -> None:
        os.write(self._master, line.encode() + b"\n")

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        """The exit code and stdout."""
        out, _ = self.proc.communicate(timeout=timeout)
        os.close(self._master)
        return self.proc.returncode, out
