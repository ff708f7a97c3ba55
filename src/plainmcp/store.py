"""Where payloads too large to inline go: a small store interface and its in-memory default.

The payload guards (guards.py) put oversized text and binaries here and hand the model a
`plainmcp://blob/<key>` link (`blob_uri`); `resources/read` serves it back (`read_blob`). The
interface is two async calls so that a store shared by many processes (Redis) can follow without
changing the guards.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
"""What MemoryStore holds at most before it evicts the oldest entries (256 MiB)."""


@dataclass(frozen=True, slots=True)
class StoredBlob:
    """One stored payload; `expires_at` is on the store's clock."""

    data: bytes
    mime_type: str
    expires_at: float


class StoreFull(Exception):
    """The payload is larger than the whole store; nothing was stored."""


class BlobEvicted(Exception):
    """The payload was dropped before its TTL ran out (a shared store under memory pressure);
    `resources/read` answers with this message instead of "not found"."""


@runtime_checkable
class BlobStore(Protocol):
    """Offloaded payloads, readable by key until their TTL runs out.

    Keys go into URIs handed to the model, and anyone holding one can read the payload, so they
    must be unguessable, and made of URI-unreserved characters (A-Z a-z 0-9 - . _ ~).
    """

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        """Store `data` for `ttl` seconds; returns an opaque key."""
        ...

    async def get(self, key: str) -> StoredBlob | None:
        """The payload, or None when the key is unknown or has expired."""
        ...


BLOB_PREFIX = "plainmcp://blob/"
"""URIs of offloaded payloads; `resources/read` serves them through `read_blob`."""

_KEY = re.compile(r"[A-Za-z0-9._~-]+")


def blob_uri(key: str) -> str:
    return BLOB_PREFIX + key


def blob_key(uri: str) -> str | None:
    """The store key in a `plainmcp://blob/<key>` URI, or None for any other URI."""
    if not uri.startswith(BLOB_PREFIX):
        return None
    key = uri[len(BLOB_PREFIX) :]
    return key if _KEY.fullmatch(key) else None


async def read_blob(uri: str, store: BlobStore) -> tuple[bytes, str] | None:
    """The bytes and MIME type behind an offload URI; None when unknown, expired or not ours."""
    key = blob_key(uri)
    if key is None:
        return None
    blob = await store.get(key)
    return None if blob is None else (blob.data, blob.mime_type)


def admitted(data: bytes, ttl: float, max_bytes: int) -> bytes:
    """`data` as bytes, once `ttl` and the store's ceiling allow it (what every store checks)."""
    if ttl <= 0:
        raise ValueError("ttl must be positive")
    data = bytes(data)
    if len(data) > max_bytes:
        raise StoreFull(
            f"a payload of {len(data):,} bytes is over the store's ceiling of {max_bytes:,} bytes"
        )
    return data


def new_key() -> str:
    """32 random bytes: the key is the only thing protecting the payload."""
    import secrets  # when the first blob is stored: not at import

    return secrets.token_urlsafe(32)


class MemoryStore:
    """The default store: in this process, with a TTL and a bound on the bytes it holds.

    When a new payload would pass `max_bytes`, the oldest entries are evicted first. Expired
    entries are dropped lazily (on `get`, and from the oldest end on `put`), so no background task
    is needed. A lock makes it safe to share with tools running in worker threads.
    """

    def __init__(
        self,
        max_bytes: int = DEFAULT_MAX_BYTES,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be at least 1")
        self.max_bytes = max_bytes
        self._clock = clock
        self._items: OrderedDict[str, StoredBlob] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def total_bytes(self) -> int:
        """Bytes held now (expired entries not yet dropped included)."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        data = admitted(data, ttl, self.max_bytes)
        key = new_key()
        with self._lock:
            now = self._clock()
            self._drop_expired(now)
            while self._items and self._bytes + len(data) > self.max_bytes:
                self._pop_oldest()
            self._items[key] = StoredBlob(data, mime_type, now + ttl)
            self._bytes += len(data)
        return key

    async def get(self, key: str) -> StoredBlob | None:
        with self._lock:
            blob = self._items.get(key)
            if blob is None:
                return None
            if blob.expires_at <= self._clock():
                del self._items[key]
                self._bytes -= len(blob.data)
                return None
            return blob

    def _drop_expired(self, now: float) -> None:
        # Entries are in insertion order; with one TTL (the guards use one) that is expiry order.
        while self._items:
            blob = next(iter(self._items.values()))
            if blob.expires_at > now:
                return
            self._pop_oldest()

    def _pop_oldest(self) -> None:
        _, blob = self._items.popitem(last=False)
        self._bytes -= len(blob.data)
