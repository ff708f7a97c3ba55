"""What a call tells the user while it runs, on stderr: the server's progress (a rich progress
bar on a terminal, else one plain line each) and its log messages."""

from __future__ import annotations

import json
import sys
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plainmcp.client import LogMessage, Progress


def log_line(entry: LogMessage) -> str:
    data = entry.data if isinstance(entry.data, str) else json.dumps(entry.data, ensure_ascii=False)
    where = f" {entry.logger}:" if entry.logger else ""
    return f"[{entry.level}]{where} {data}"


def progress_line(progress: Progress) -> str:
    def number(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else f"{value:g}"

    done = number(progress.progress)
    if progress.total is not None:
        done += f"/{number(progress.total)}"
    return f"progress {done}" + (f": {progress.message}" if progress.message else "")


class Feedback:
    """The stderr side of one command: `on_progress` and `on_log` for the Client, and `say`
    for the command's own notes. A bar is drawn only on a terminal, with rich when installed."""

    def __init__(self, stream: IO[str] | None = None, *, bar: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        wanted = self.stream.isatty() if bar is None else bar
        self._console: Any = None
        self._bar: Any = None
        self._task: Any = None
        if wanted:
            try:
                from rich.console import Console
            except ImportError:  # the `cli` extra is not installed: plain lines
                return
            self._console = Console(file=self.stream)

    def __enter__(self) -> Feedback:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        """Take the bar away (the call is over; its result is about to be printed)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def say(self, line: str) -> None:
        if self._console is not None:
            self._console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.stream, flush=True)

    def on_log(self, entry: LogMessage) -> None:
        self.say(log_line(entry))

    def on_progress(self, progress: Progress) -> None:
        if self._console is None:
            self.say(progress_line(progress))
            return
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

        if self._bar is None:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                console=self._console,
                transient=True,
                redirect_stdout=False,  # stdout is the result's, whatever draws on stderr
                redirect_stderr=False,
            )
            self._bar.start()
            self._task = self._bar.add_task("", total=None)
        self._bar.update(
            self._task,
            completed=progress.progress,
            total=progress.total,
            description=progress.message or "",
        )
