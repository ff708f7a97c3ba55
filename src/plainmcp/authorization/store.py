"""Where the authorization server keeps its state: pending logins, authorization codes,
refresh tokens, registered clients, revoked token and grant ids, rate-limit counters. Each
record is a JSON object under a
kind and a key, with a lifetime; `take` reads and deletes at once, so a code or a refresh
token is redeemed by one request only, on whichever process it reaches (redis_store.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Protocol


class AuthStore(Protocol):
    async def put(self, kind: str, key: str, record: dict[str, Any], ttl: float) -> None:
        """Store `record` for `ttl` seconds (replacing what was there)."""

    async def get(self, kind: str, key: str) -> dict[str, Any] | None: ...

    async def take(self, kind: str, key: str) -> dict[str, Any] | None:
        """The record, deleted in the same step: a second `take` finds nothing."""

    async def delete(self, kind: str, key: str) -> None: ...

    async def count(self, kind: str, key: str, ttl: float) -> int:
        """Add one to the counter and return it; a new counter lives `ttl` seconds from its
        first count (a later count does not extend it). Every process counts the same one."""


class MemoryAuthStore:
    """This process's memory: for one process (a login started here must end here).
    `clock`: seconds, what lifetimes are measured with (tests pass their own)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._records: dict[tuple[str, str], tuple[float, str]] = {}

    def _sweep(self) -> None:
        now = self._clock()
        for name in [k for k, (until, _) in self._records.items() if until <= now]:
            del self._records[name]

    async def put(self, kind: str, key: str, record: dict[str, Any], ttl: float) -> None:
        self._sweep()
        # Stored as JSON, as on Redis: what comes back is a copy, never the caller's object.
        self._records[(kind, key)] = (self._clock() + ttl, json.dumps(record))

    async def get(self, kind: str, key: str) -> dict[str, Any] | None:
        self._sweep()
        found = self._records.get((kind, key))
        return None if found is None else dict(json.loads(found[1]))

    async def take(self, kind: str, key: str) -> dict[str, Any] | None:
        self._sweep()
        found = self._records.pop((kind, key), None)
        return None if found is None else dict(json.loads(found[1]))

    async def delete(self, kind: str, key: str) -> None:
        self._records.pop((kind, key), None)

    async def count(self, kind: str, key: str, ttl: float) -> int:
        self._sweep()
        until, raw = self._records.get((kind, key), (self._clock() + ttl, "0"))
        value = int(raw) + 1
        self._records[(kind, key)] = (until, str(value))
        return value
