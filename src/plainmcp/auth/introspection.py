"""`IntrospectionVerifier`: an opaque access token checked by asking the authorization server
(RFC 7662 token introspection), the answer kept until the token expires, within a bound.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

try:
    import httpx2
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("plainmcp.auth needs the auth extra: pip install 'plainmcp[auth]'") from exc

from plainmcp.auth.claims import audience_has, number, principal_of, refuse
from plainmcp.transports.http.security import Principal

log = logging.getLogger("plainmcp.auth")


class IntrospectionVerifier:
    """Verify opaque tokens at `endpoint`, authenticating as this resource server with
    `client_id`/`client_secret` (HTTP Basic, as RFC 7662 §2.1 suggests).

    An active token must be meant for `audience` (this server's canonical resource URI; pass
    None only for an authorization server whose answers carry no `aud`), issued by `issuer`
    when given, and unexpired. An active answer is kept for `cache_ttl` seconds at most and
    never past the token's `exp`; at most `max_cached` are kept (the oldest go first). Refusals
    are not kept: random tokens cannot push the valid ones out. `clock` gives Unix time.

    `http` is the client to ask with (yours to close); without it the verifier makes its own on
    first use, one per event loop, so every token is asked on the same kept-alive connections,
    and `aclose()` closes it (the HTTP app does at shutdown, for the verifier of its `auth=`).
    """

    def __init__(
        self,
        endpoint: str,
        client_id: str,
        client_secret: str,
        *,
        audience: str | None,
        issuer: str | None = None,
        cache_ttl: float = 60.0,
        max_cached: int = 10_000,
        http: httpx2.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_cached < 0 or cache_ttl < 0:
            raise ValueError("cache_ttl and max_cached must be >= 0")
        self.endpoint = endpoint
        self.auth = httpx2.BasicAuth(client_id, client_secret)
        self.audience = audience
        self.issuer = issuer
        self.cache_ttl = cache_ttl
        self.max_cached = max_cached
        self.http = http
        self.clock = clock
        self.requests = 0
        """Introspection requests made so far (the cache answers the others)."""
        self._cache: OrderedDict[str, tuple[Principal, float]] = OrderedDict()
        """sha256 of the token -> (its principal, when the entry stops being used)."""
        self._own: tuple[weakref.ref[asyncio.AbstractEventLoop], httpx2.AsyncClient] | None = None
        """Our own client and the loop it belongs to (its connections are that loop's)."""

    def _client(self) -> httpx2.AsyncClient:
        if self.http is not None:
            return self.http
        loop = asyncio.get_running_loop()
        if self._own is None or self._own[0]() is not loop:
            self._own = (weakref.ref(loop), httpx2.AsyncClient())
        return self._own[1]

    async def aclose(self) -> None:
        """Close the verifier's own client (never `http`); a later token opens a new one."""
        own, self._own = self._own, None
        if own is not None and own[0]() is asyncio.get_running_loop():
            await own[1].aclose()

    async def __call__(self, token: str) -> Principal | None:
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = self.clock()
        cached = self._cache.get(digest)
        if cached is not None:
            if now < cached[1]:
                return cached[0]
            del self._cache[digest]
        answer = await self._introspect(token)
        if answer is None:
            return None
        principal = self._principal(answer, now)
        if principal is not None and self.max_cached:
            until = now + self.cache_ttl
            if principal.expires_at is not None:
                until = min(until, principal.expires_at)
            self._cache[digest] = (principal, until)
            while len(self._cache) > self.max_cached:
                self._cache.popitem(last=False)
        return principal

    async def _introspect(self, token: str) -> dict[str, Any] | None:
        self.requests += 1
        form = {"token": token, "token_type_hint": "access_token"}
        try:
            response = await self._client().post(self.endpoint, data=form, auth=self.auth)
            response.raise_for_status()
            answer = response.json()
        except (httpx2.HTTPError, ValueError) as exc:
            log.warning("token introspection at %s failed: %s", self.endpoint, exc)
            return None
        if not isinstance(answer, dict):
            log.warning("token introspection at %s answered no JSON object", self.endpoint)
            return None
        return answer

    def _principal(self, answer: dict[str, Any], now: float) -> Principal | None:
        if answer.get("active") is not True:
            return refuse("the authorization server says the token is not active")
        if self.audience is not None and not audience_has(answer, self.audience):
            return refuse(f"the token is not meant for {self.audience}")
        if self.issuer is not None and answer.get("iss") != self.issuer:
            return refuse(f"the token was not issued by {self.issuer}")
        exp = number(answer.get("exp"))
        if exp is not None and now >= exp:
            return refuse("the token has expired")
        claims = {k: v for k, v in answer.items() if k != "active"}
        return principal_of(claims, exp)
