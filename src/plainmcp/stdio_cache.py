"""Over stdio, refs that outlive the process that gave them out.

A host starts a stdio server per session, and LangChain's default `get_tools()` one per call, so
the `read_more` ref (or `plainmcp://blob/` link) one process gave out is followed in the next,
which would know neither the payload (in the first one's memory) nor the secret that signed the
ref (random per process). So when the server was given neither a blob store nor a state secret,
the stdio transport keeps both in the server's folder of the user's cache (user_cache.py):
`blobs/` (a FileStore, bounded like the memory store) and `state-secret`, each made and read
the first time it is needed, so a server that never cuts a result never touches the disk. Over
HTTP nothing changes: the payloads stay in memory or Redis and are bound to the principal.

If the folder cannot be used (a read-only home, another user's folder, a damaged secret), the
server says why on stderr, once, and keeps both in memory as before: results are still cut
and followed within one process. `Server(stdio_cache=False)` keeps them in memory always.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from plainmcp.file_store import (
    FileStore,
    drop_expired,
    locked,
    private_folder,
    read_private,
    write_atomically,
)
from plainmcp.store import BlobStore, StoredBlob
from plainmcp.user_cache import server_dir
from plainmcp.wire.request_state import ENV_SECRET, MIN_SECRET_BYTES

if TYPE_CHECKING:
    from plainmcp.served import Served

__all__ = ["SECRET_FILE", "CachedStore", "cached_secret", "use_user_cache"]

log = logging.getLogger("plainmcp")

SECRET_FILE = "state-secret"
BLOBS = "blobs"


def use_user_cache(server: Served) -> None:
    """Keep the server's payloads and state secret in its cache folder, for what the user left
    to the defaults (called by the stdio transport before it serves)."""
    core = server.core
    if not server.stdio_cache or core.stdio_cached:
        return
    core.stdio_cached = True
    folder = server_dir(server.name)
    if core.blob_store is core.default_store:  # not one given, nor one set since
        server.blob_store = CachedStore(os.path.join(folder, BLOBS), server.blob_store)
    signer = server.state_signer
    if signer.ephemeral:
        signer.defer(lambda: _secret_or_random(folder), f"{os.path.join(folder, SECRET_FILE)}")


class CachedStore:
    """A FileStore in the cache folder while the folder can be used, else `fallback` (memory),
    for the rest of the process, after one warning that names the folder and why."""

    def __init__(self, folder: str, fallback: BlobStore) -> None:
        self.files: FileStore | None = FileStore(folder)
        self.fallback = fallback
        self._swept = False

    def __repr__(self) -> str:
        return f"CachedStore({self.files!r}, fallback={self.fallback!r})"

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        files = self.files
        if files is not None:
            try:
                key = await files.put(data, mime_type, ttl)
            except OSError as exc:
                self._give_up(files, exc)
            else:
                if not self._swept:  # once a process: what other servers left expired
                    self._swept = True
                    import anyio.to_thread

                    await anyio.to_thread.run_sync(sweep_others, files.folder)
                return key
        return await self.fallback.put(data, mime_type, ttl)

    async def get(self, key: str) -> StoredBlob | None:
        files = self.files
        if files is not None:
            try:
                found = await files.get(key)
            except OSError as exc:
                self._give_up(files, exc)
            else:
                if found is not None:
                    return found
        return await self.fallback.get(key)

    def _give_up(self, files: FileStore, exc: OSError) -> None:
        self.files = None
        log.warning(
            "cannot keep cut results in %s (%s): keeping them in this process's memory, so a"
            " read_more ref works only until it exits; make the folder writable by this user"
            " alone, or point PLAINMCP_CACHE_DIR at one that is",
            files.folder,
            exc.strerror or exc,
        )


def sweep_others(blobs: str) -> None:
    """Remove the expired payloads of the other servers next to this one (`<base>/stdio/*/`):
    a server that is not started again would otherwise leave them for good."""
    import time

    mine = os.path.dirname(blobs)
    root = os.path.dirname(mine)
    try:
        servers = [e.path for e in os.scandir(root) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    now = time.time()
    for server in servers:
        if server != mine:
            drop_expired(os.path.join(server, BLOBS), now)


def cached_secret(folder: str) -> bytes:
    """The state secret kept in `folder`, made (random, 0600, atomically) by the first process
    that needs it; ValueError, naming the file and the fix, when what is there is too short."""
    private_folder(folder)
    path = os.path.join(folder, SECRET_FILE)
    raw = read_private(path)
    if raw is None:
        with locked(folder):  # two processes starting at once: one makes it, both use it
            raw = read_private(path)
            if raw is None:
                import secrets

                raw = secrets.token_urlsafe(MIN_SECRET_BYTES).encode("ascii")
                write_atomically(folder, SECRET_FILE, raw)
    secret = raw.strip()
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(
            f"the state secret in {path} is {len(secret)} bytes; at least {MIN_SECRET_BYTES}"
            f" are required: delete the file for a new one to be made, or set {ENV_SECRET}"
        )
    return secret


def _secret_or_random(folder: str) -> tuple[bytes, str]:
    try:
        return cached_secret(folder), os.path.join(folder, SECRET_FILE)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        log.warning(
            "cannot keep the state secret in %s (%s): signing read_more refs with a secret of"
            " this process alone, so they work only until it exits",
            folder,
            reason,
        )
        return os.urandom(MIN_SECRET_BYTES), "random"
