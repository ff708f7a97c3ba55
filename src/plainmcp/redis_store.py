"""A BlobStore on Redis (extra `plainmcp[redis]`): offloaded payloads and result continuations
readable from every process that shares the Redis.

Each payload is one Redis string with the payload's TTL. Its key carries the expiry time, so a
key that is missing before then was evicted by Redis (maxmemory) rather than expired, and
reading it says so (BlobEvicted) instead of "not found".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from plainmcp.redis_link import shared
from plainmcp.store import DEFAULT_MAX_BYTES, BlobEvicted, StoredBlob, admitted, new_key

if TYPE_CHECKING:
    from redis.asyncio import Redis


class RedisStore:
    """`Server(blob_store=RedisStore("redis://host:6379/0"))`.

    `max_bytes` is the ceiling for one payload (a larger one raises StoreFull); what Redis holds
    in all is bounded by its own `maxmemory`. `clock` is wall-clock seconds (shared by every
    process), injected by tests.
    """

    def __init__(
        self,
        url: str,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        prefix: str = "plainmcp:blob:",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be at least 1")
        self.url = url
        self.max_bytes = max_bytes
        self.prefix = prefix
        self._clock = clock

    def _redis(self) -> Redis:
        return shared(self.url)

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        data = admitted(data, ttl, self.max_bytes)
        expires_at = math.ceil(self._clock() + ttl)
        key = f"{new_key()}.{expires_at}"
        value = mime_type.encode() + b"\n" + data
        await self._redis().set(self.prefix + key, value, px=max(1, round(ttl * 1000)))
        return key

    async def get(self, key: str) -> StoredBlob | None:
        _, _, stamp = key.rpartition(".")
        if not stamp.isdigit():
            return None
        expires_at = int(stamp)
        raw = await self._redis().get(self.prefix + key)
        if raw is None:
            if expires_at - 1 > self._clock():  # a second's grace: the TTL was rounded up
                raise BlobEvicted(
                    "the payload was evicted from Redis before its TTL ran out (maxmemory);"
                    " call the tool again"
                )
            return None
        stored = raw if isinstance(raw, bytes) else str(raw).encode()
        mime_type, _, data = stored.partition(b"\n")
        return StoredBlob(data, mime_type.decode(), float(expires_at))
