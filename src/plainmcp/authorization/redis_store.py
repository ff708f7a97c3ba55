"""The authorization server's state on Redis (extra `plainmcp[redis]`): a login started on one
process completes on another. Each record is one string with Redis's own expiry; `take` is
GETDEL, atomic, so a code is redeemed once across every process."""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from plainmcp.redis_link import shared

if TYPE_CHECKING:
    from redis.asyncio import Redis


class RedisAuthStore:
    """`AuthorizationServer(store=RedisAuthStore("redis://host:6379/0"))`."""

    def __init__(self, url: str, *, prefix: str = "plainmcp:oauth:") -> None:
        self.url = url
        self.prefix = prefix

    def _redis(self) -> Redis:
        return shared(self.url)

    def _key(self, kind: str, key: str) -> str:
        return f"{self.prefix}{kind}:{key}"

    async def put(self, kind: str, key: str, record: dict[str, Any], ttl: float) -> None:
        await self._redis().set(
            self._key(kind, key), json.dumps(record), px=max(1, math.ceil(ttl * 1000))
        )

    async def get(self, kind: str, key: str) -> dict[str, Any] | None:
        return _decoded(await self._redis().get(self._key(kind, key)))

    async def take(self, kind: str, key: str) -> dict[str, Any] | None:
        return _decoded(await self._redis().getdel(self._key(kind, key)))

    async def delete(self, kind: str, key: str) -> None:
        await self._redis().delete(self._key(kind, key))

    async def count(self, kind: str, key: str, ttl: float) -> int:
        # One transaction: the counter made with its expiry if absent, then counted; never a
        # counter without an expiry, whichever process counts first.
        name = self._key(kind, key)
        pipe = self._redis().pipeline(transaction=True)
        pipe.set(name, 0, px=max(1, math.ceil(ttl * 1000)), nx=True)
        pipe.incr(name)
        _, value = await pipe.execute()
        return int(value)


def _decoded(raw: bytes | str | None) -> dict[str, Any] | None:
    return None if raw is None else dict(json.loads(raw))
