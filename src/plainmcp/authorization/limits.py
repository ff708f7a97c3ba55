"""How often one client address may call an endpoint (/register: a registration is stored for
a year, so an unbounded stream of them fills the store): `RateLimit(20, per=60.0)`, counted in
the store, so every process sharing it counts together. Fixed windows on the server's clock:
a window is `per` seconds from a multiple of `per`, and a refused request is told when it
ends (Retry-After)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from plainmcp.authorization.store import AuthStore


@dataclass(frozen=True)
class RateLimit:
    """`count` requests per `per` seconds from one client address."""

    count: int = 20
    per: float = 60.0

    def __post_init__(self) -> None:
        if self.count < 1 or not self.per > 0:
            raise ValueError("a rate limit needs count >= 1 and per > 0")


REGISTRATIONS = RateLimit(20, per=60.0)
"""The default for /register: a host registers once per server, so 20 a minute is plenty."""


async def retry_after(
    limit: RateLimit, store: AuthStore, endpoint: str, address: str, now: float
) -> int | None:
    """None: this request is within the limit (and counted); else the whole seconds until
    the window ends, at least 1."""
    window = math.floor(now / limit.per)
    used = await store.count(f"rate-{endpoint}", f"{address}|{window}", limit.per)
    if used <= limit.count:
        return None
    return max(1, math.ceil((window + 1) * limit.per - now))
