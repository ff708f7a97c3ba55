"""The issuer's signing keys: found through its metadata, cached, refetched when a token names
a key the cache lacks (a rotation), at most once per `refetch_interval`.

The metadata is RFC 8414's `/.well-known/oauth-authorization-server` (inserted before the
issuer's path), else OpenID Connect Discovery's `/.well-known/openid-configuration` (appended);
its `issuer` must be the configured one exactly, and its `jwks_uri` is where the keys are.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2

log = logging.getLogger("plainmcp.auth")

SIGNING_KEY_TYPES = frozenset({"RSA", "EC", "OKP"})
"""Asymmetric key types: a JWKS never publishes a shared secret, and none is accepted."""


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be, in the order they are tried."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    rfc8414 = urlunsplit(
        (parts.scheme, parts.netloc, "/.well-known/oauth-authorization-server" + path, "", "")
    )
    oidc = issuer.rstrip("/") + "/.well-known/openid-configuration"
    return [rfc8414, oidc]


def signing_keys(document: Any) -> dict[str | None, dict[str, Any]]:
    """The asymmetric signing keys of a JWKS document, by `kid` (None: a key without one)."""
    keys: dict[str | None, dict[str, Any]] = {}
    entries = document.get("keys") if isinstance(document, dict) else None
    for jwk in entries if isinstance(entries, list) else ():
        if not isinstance(jwk, dict) or jwk.get("kty") not in SIGNING_KEY_TYPES:
            continue
        if jwk.get("use", "sig") != "sig":
            continue
        kid = jwk.get("kid")
        keys[kid if isinstance(kid, str) else None] = jwk
    return keys


class KeySet:
    """The signing keys of one issuer, fetched on first use and kept.

    A verification asks `key(kid)`. The keys are fetched again when they are older than
    `max_age` (a key the issuer withdrew stops being accepted), and when a token names a `kid`
    they lack, at most once per `refetch_interval` seconds: forged `kid`s cannot make the
    server hammer the issuer. After a failed fetch the next try waits as long. `clock` gives
    seconds (tests pass their own); `http` is the client to fetch with (a new one per fetch
    when None).
    """

    def __init__(
        self,
        issuer: str,
        *,
        jwks_uri: str | None = None,
        refetch_interval: float = 60.0,
        max_age: float = 3600.0,
        http: httpx2.AsyncClient | None = None,
        clock: Callable[[], float],
    ) -> None:
        self.issuer = issuer
        self.jwks_uri = jwks_uri
        self.refetch_interval = refetch_interval
        self.max_age = max_age
        self.http = http
        self.clock = clock
        self.fetches = 0
        """Successful JWKS downloads so far."""
        self._keys: dict[str | None, dict[str, Any]] | None = None
        self._fetched_at = -math.inf
        self._next_refetch = -math.inf
        """When an unknown `kid` may next cause a fetch."""
        self._next_try = -math.inf
        """When a fetch may next be tried after one failed."""
        self._lock: anyio.Lock | None = None

    async def key(self, kid: str | None) -> dict[str, Any] | None:
        """The JWK a token's `kid` names (the only key, for a token without one), or None."""
        now = self.clock()
        fetched = False
        if self._keys is None or now - self._fetched_at >= self.max_age:
            fetched = await self._fetch(now)
        found = self._find(kid)
        if found is None and not fetched and now >= self._next_refetch:
            self._next_refetch = now + self.refetch_interval
            await self._fetch(now)
            found = self._find(kid)
        return found

    def _find(self, kid: str | None) -> dict[str, Any] | None:
        keys = self._keys or {}
        if kid is None:
            return next(iter(keys.values())) if len(keys) == 1 else None
        return keys.get(kid)

    async def _fetch(self, now: float) -> bool:
        """Download the keys (one download at a time); whether this call downloaded them."""
        if self._lock is None:
            self._lock = anyio.Lock()
        seen = self.fetches
        async with self._lock:
            if self.fetches != seen or now < self._next_try:
                return False  # another request just fetched, or the last try failed
            try:
                keys = signing_keys(await self._download())
            except (httpx2.HTTPError, ValueError) as exc:
                self._next_try = now + self.refetch_interval
                log.warning("cannot fetch the signing keys of %s: %s", self.issuer, exc)
                return False
            self._keys = keys
            self._fetched_at = now
            self.fetches += 1
            return True

    async def _download(self) -> Any:
        if self.http is not None:
            return await self._get_keys(self.http)
        async with httpx2.AsyncClient() as http:
            return await self._get_keys(http)

    async def _get_keys(self, http: httpx2.AsyncClient) -> Any:
        if self.jwks_uri is None:
            self.jwks_uri = await self._discover(http)
        response = await http.get(self.jwks_uri)
        response.raise_for_status()
        return response.json()

    async def _discover(self, http: httpx2.AsyncClient) -> str:
        """The issuer's `jwks_uri`, read from its metadata (ValueError if none says it)."""
        problems = []
        for url in metadata_urls(self.issuer):
            response = await http.get(url)
            if response.status_code != 200:
                problems.append(f"{url}: HTTP {response.status_code}")
                continue
            document = response.json()
            if not isinstance(document, Mapping) or document.get("issuer") != self.issuer:
                problems.append(f"{url}: its issuer is not {self.issuer!r}")
                continue
            jwks_uri = document.get("jwks_uri")
            if isinstance(jwks_uri, str) and jwks_uri:
                return jwks_uri
            problems.append(f"{url}: no jwks_uri")
        raise ValueError("no usable authorization server metadata (" + "; ".join(problems) + ")")
