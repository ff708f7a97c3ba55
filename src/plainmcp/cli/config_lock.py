"""One `plainmcp install` at a time on a config file: the read, the edit and the rename of one
run must not interleave with another's, or the second writes over the first's entry (ten
concurrent installs left eight or nine).

On POSIX the lock is fcntl.flock on the file's folder: the file itself is replaced by a rename,
so a lock on it would be on the old inode, and the folder needs no lock file left beside the
config. Elsewhere (Windows) it is a lock file created with O_EXCL next to the config and
removed after; one left by a crash is named in the error, to be removed by hand.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from plainmcp.cli.usage import UsageError

try:
    import fcntl
except ImportError:  # Windows
    HAVE_FLOCK = False
else:
    HAVE_FLOCK = True

WAIT = 30.0
"""Seconds to wait for a lock file another install holds (the flock waits as long as it takes:
the kernel drops it when its holder exits)."""
POLL = 0.05


def lock_file(path: Path) -> Path:
    """The lock file of the portable fallback, beside the config."""
    return path.with_name(f".{path.name}.plainmcp-lock")


@contextlib.contextmanager
def locked(
    path: Path,
    *,
    flock: bool = HAVE_FLOCK,
    wait: float = WAIT,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[None]:
    """Hold the lock of config `path` for the block; its folder is made if it is missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if flock:
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock
        return
    marker = lock_file(path)
    deadline = clock() + wait
    while True:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            break
        except FileExistsError:
            if clock() >= deadline:
                raise UsageError(
                    f"{path} is being changed by another plainmcp install (its lock {marker}"
                    f" has been there over {wait:g} s): try again, or remove {marker} if no"
                    " install is running"
                ) from None
            time.sleep(POLL)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(marker)
