"""A BlobStore in a folder: offloaded payloads that outlive the process that stored them.

The default over stdio (stdio_cache.py), where every session, and with some hosts every call, is
a new server process: a `read_more` ref one process gave out is followed in the next. One file
per payload, named by its key, its modification time set to its expiry (so expired files are
found by a stat, without reading them; the file's first line holds the exact expiry too). The
folder is the user's alone (0700, files 0600); every file is written under a temporary name and
renamed into place, so a reader sees a whole payload or none. A put holds a lock file while it
drops expired payloads and then the oldest, to stay within `max_bytes` with other processes
writing the same folder; reads take no lock.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator

from plainmcp.store import DEFAULT_MAX_BYTES, StoredBlob, admitted, new_key

__all__ = [
    "FileStore",
    "UnusableFolder",
    "drop_expired",
    "locked",
    "private_folder",
    "write_atomically",
]

_MAGIC = b"plainmcp-blob/1 "
_NAME = re.compile(r"[A-Za-z0-9_-]{43}")
"""A payload's file name, its key: 32 random bytes (base64url), as MemoryStore's keys (a longer
key would make every ref longer, and every part shorter)."""
_LAST = 2**33 - 1
"""The latest expiry a file's time holds (the year 2242): a longer TTL is kept that long."""
_TMP = ".tmp-"
_STALE_TMP = 600.0
"""Seconds after which a temporary file is a crashed writer's, and removed."""
_LOCK = ".lock"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)


class UnusableFolder(OSError):
    """The folder cannot be made private to this user (another user's, a symlink, not a
    folder); the message names it."""


def private_folder(path: str) -> None:
    """Make `path` (and its parents) if needed, and make sure it is this user's alone: 0700,
    owned by this user, a real folder (not a symlink). The parents it makes are 0700 too
    (os.makedirs gives them the default mode): their names are the servers'."""
    missing: list[str] = []
    here = os.path.abspath(path)
    while not os.path.lexists(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for each in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it meanwhile
            os.mkdir(each, 0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise UnusableFolder(errno.ENOTDIR, "not a folder (a symlink or a file)", path)
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        raise UnusableFolder(errno.EPERM, "owned by another user", path)
    if os.name == "posix" and stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)


def write_atomically(folder: str, name: str, data: bytes, mtime: float | None = None) -> None:
    """`folder/name` holds `data` (0600), all of it or, for a reader, nothing new: written under
    a temporary name (whose modification time is then set to `mtime`), then renamed over it."""
    tmp = os.path.join(folder, f"{_TMP}{os.getpid()}-{new_key()[:12]}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        if mtime is not None:
            os.utime(tmp, (mtime, mtime))
        os.replace(tmp, os.path.join(folder, name))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_private(path: str) -> bytes | None:
    """The bytes of the regular file at `path`, not through a symlink; None when it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        return file.read()


@contextlib.contextmanager
def locked(folder: str) -> Iterator[None]:
    """Hold `folder/.lock` exclusively: one process at a time (and, in this one, one thread)."""
    fd = os.open(os.path.join(folder, _LOCK), os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    try:
        if sys.platform == "win32":  # pragma: no cover - Windows
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class FileStore:
    """`Server(blob_store=FileStore(folder))`: payloads kept as files in `folder`, readable by
    any process of this user until their TTL runs out.

    As MemoryStore: when a new payload would take the folder past `max_bytes`, the oldest go
    first, and expired ones are dropped on `put` (and the first time the folder is used);
    `clock` is wall-clock seconds, shared by every process (injected by tests). Files of other
    names are left alone; a damaged file of a key's name is never served (and goes as any file
    of the store does, when its time is past or it is the oldest).
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        max_bytes: int = DEFAULT_MAX_BYTES,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be at least 1")
        self.folder = os.fspath(folder)
        self.max_bytes = max_bytes
        self._clock = clock
        self._opened = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FileStore({self.folder!r}, max_bytes={self.max_bytes})"

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        data = admitted(data, ttl, self.max_bytes)
        if "\n" in mime_type or "\r" in mime_type:
            raise ValueError("a MIME type cannot hold a line break")
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self._put, data, mime_type, ttl)

    async def get(self, key: str) -> StoredBlob | None:
        if _NAME.fullmatch(key) is None:
            return None
        import anyio.to_thread

        return await anyio.to_thread.run_sync(self._get, key)

    # --- blocking parts, in a worker thread ---------------------------------------------------

    def _open(self) -> None:
        """The first use in this process: the folder made private, what has expired dropped."""
        if self._opened:
            return
        private_folder(self.folder)
        with self._lock, locked(self.folder):
            self._sweep(self._clock(), 0)
        self._opened = True

    def _put(self, data: bytes, mime_type: str, ttl: float) -> str:
        self._open()
        now = self._clock()
        expires_at = now + ttl
        key = new_key()
        body = _MAGIC + repr(expires_at).encode() + b" " + mime_type.encode() + b"\n" + data
        with self._lock, locked(self.folder):
            self._sweep(now, len(body))
            write_atomically(self.folder, key, body, min(expires_at, _LAST))
        return key

    def _get(self, key: str) -> StoredBlob | None:
        self._open()
        path = os.path.join(self.folder, key)
        raw = read_private(path)
        if raw is None:
            return None
        blob = _parse(raw)
        if blob is None:
            return None
        if blob.expires_at <= self._clock():
            with contextlib.suppress(OSError):
                os.unlink(path)
            return None
        return blob

    def _sweep(self, now: float, incoming: int) -> None:
        """Drop expired payloads and stale temporary files, then the oldest payloads until
        `incoming` more bytes fit. Called with the lock held."""
        kept: list[tuple[int, int, str, int]] = []
        total = 0
        with os.scandir(self.folder) as entries:
            for entry in entries:
                name = entry.name
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue
                if name.startswith(_TMP):
                    if info.st_mtime < time.time() - _STALE_TMP:
                        _remove(entry.path)
                    continue
                if _NAME.fullmatch(name) is None:
                    continue  # not ours: left alone, and not counted
                if info.st_mtime <= now:
                    _remove(entry.path)
                    continue
                kept.append((info.st_mtime_ns, info.st_ctime_ns, name, info.st_size))
                total += info.st_size
        if total + incoming <= self.max_bytes:
            return
        # Expiry order: with one TTL (the guards use one), the order they came in.
        kept.sort()
        for _, _, name, size in kept:
            _remove(os.path.join(self.folder, name))
            total -= size
            if total + incoming <= self.max_bytes:
                return


def drop_expired(folder: str, now: float) -> None:
    """Remove the expired payloads in `folder`, found by their times alone and without its lock
    (removing what has expired races with nothing): what a server that is not started again
    left behind. A folder that cannot be read is left as it is."""
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            if _NAME.fullmatch(entry.name) is None:
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime <= now:
                    os.unlink(entry.path)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _parse(raw: bytes) -> StoredBlob | None:
    """A stored file's payload; None when it is not one this store wrote whole."""
    if not raw.startswith(_MAGIC):
        return None
    end = raw.find(b"\n", len(_MAGIC))
    if end < 0:
        return None
    expires, _, mime_type = raw[len(_MAGIC) : end].partition(b" ")
    try:
        expires_at = float(expires)
        mime = mime_type.decode("utf-8")
    except ValueError:
        return None
    if math.isnan(expires_at) or not mime:
        return None
    return StoredBlob(raw[end + 1 :], mime, expires_at)
