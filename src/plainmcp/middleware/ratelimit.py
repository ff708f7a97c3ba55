"""Rate limiting: a token bucket per client (or per principal), refusing in words a model reads."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Hashable
from typing import Any

from plainmcp.middleware.base import Middleware, NextRequest, RequestInfo
from plainmcp.model.results import error_result
from plainmcp.wire.jsonrpc import RpcError

__all__ = ["RATE_LIMITED", "RateLimit"]

RATE_LIMITED = -32029
"""The JSON-RPC error of a request refused by `RateLimit` (a tools/call gets an isError result
instead, which the model reads)."""

_OPEN = ("initialize", "server/discover", "ping")
"""What a client needs to connect at all: never limited unless `methods` names them."""


class _Bucket:
    __slots__ = ("stamp", "tokens")

    def __init__(self, tokens: float, stamp: float) -> None:
        self.tokens = tokens
        self.stamp = stamp


class RateLimit(Middleware):
    """At most `burst` requests at once per client, refilled at `rate` per second.

    The client is `key(request)`, by default `request.client`: the principal's subject when the
    HTTP transport authenticated one, else the session; stateless requests without auth share
    one bucket. `methods` limits only those methods (default: all but initialize,
    server/discover and ping). A refused tools/call is an isError result saying when to retry;
    any other request gets error -32029 with `data.retryAfterSeconds`.
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        methods: Collection[str] | None = None,
        key: Callable[[RequestInfo], Hashable | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 10_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate = float(rate)
        self.burst = burst
        self.methods = frozenset(methods) if methods is not None else None
        self.key = key or (lambda request: request.client)
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: dict[Hashable | None, _Bucket] = {}

    def limited(self, method: str) -> bool:
        return method in self.methods if self.methods is not None else method not in _OPEN

    def take(self, client: Hashable | None) -> float:
        """Take a token for `client`: 0.0 if there was one, else the seconds until there is."""
        now = self.clock()
        bucket = self._buckets.get(client)
        if bucket is None:
            if len(self._buckets) >= self.max_clients:
                self._forget_full(now)
            bucket = self._buckets[client] = _Bucket(self.burst, now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled: a new one would be the same."""
        for client, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.stamp) * self.rate >= self.burst:
                del self._buckets[client]

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        if not self.limited(request.method):
            return await call_next(request)
        wait = self.take(self.key(request))
        if not wait:
            return await call_next(request)
        seconds = math.ceil(wait * 10) / 10
        message = f"Rate limit exceeded: try again in {seconds:g} seconds."
        if request.method == "tools/call":
            return error_result(message)
        raise RpcError(RATE_LIMITED, message, {"retryAfterSeconds": seconds})
