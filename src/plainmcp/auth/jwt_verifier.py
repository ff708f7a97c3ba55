"""`JwtVerifier`: a signed JWT access token (RFC 9068) checked as the MCP authorization spec
asks of a resource server: signed by the issuer's key, issued by the issuer, for this server
(`aud` is its canonical resource URI), within its lifetime.

The algorithm is the key's, never the token's choice: only asymmetric algorithms are accepted
(`none` and shared-secret HMAC never), and the token's `alg` must be the one its key is for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

try:
    import httpx2
    import jwt
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("plainmcp.auth needs the auth extra: pip install 'plainmcp[auth]'") from exc

from plainmcp.auth.claims import number, principal_of, refuse
from plainmcp.auth.jwks import KeySet
from plainmcp.transports.http.security import Principal

ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""The algorithms accepted by default: signatures only the issuer's private key can make."""

_EC_CURVES = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}


def key_allows(jwk: dict[str, Any], alg: str) -> bool:
    """Whether `alg` is what the key is for: its own `alg` when it names one, else one its
    type (and curve) signs with."""
    named = jwk.get("alg")
    if isinstance(named, str):
        return named == alg
    kty = jwk.get("kty")
    if kty == "RSA":
        return alg[:2] in ("RS", "PS")
    if kty == "EC":
        return _EC_CURVES.get(jwk.get("crv", "")) == alg
    return kty == "OKP" and alg == "EdDSA" and jwk.get("crv") in ("Ed25519", "Ed448")


class JwtVerifier:
    """Verify JWT access tokens of `issuer` meant for `audience` (this server's canonical
    resource URI, e.g. "https://mcp.example.com/mcp"): use it as `BearerAuth(verify=...)`.

    The keys come from the issuer's metadata (`jwks_uri=` skips discovery); see `KeySet` for
    when they are fetched again. `leeway` seconds of clock skew are allowed on `exp` and
    `nbf`; `clock` gives Unix time (tests pass their own). Scopes come from the `scope` claim
    (space-separated) or an `scp` list. `http` is the httpx2 client to fetch keys with.
    """

    def __init__(
        self,
        issuer: str,
        audience: str,
        *,
        leeway: float = 30.0,
        jwks_uri: str | None = None,
        algorithms: Iterable[str] = ASYMMETRIC,
        refetch_interval: float = 60.0,
        jwks_max_age: float = 3600.0,
        http: httpx2.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not audience:
            raise ValueError("audience must be this server's canonical resource URI")
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.algorithms = frozenset(algorithms)
        unsafe = self.algorithms - ASYMMETRIC
        if unsafe:
            raise ValueError(f"only asymmetric algorithms are accepted, not {sorted(unsafe)}")
        self.clock = clock
        self.keys = KeySet(
            issuer,
            jwks_uri=jwks_uri,
            refetch_interval=refetch_interval,
            max_age=jwks_max_age,
            http=http,
            clock=clock,
        )
        self._parsed: dict[tuple[str | None, str], jwt.PyJWK] = {}
        """The current keys already turned into key objects, by (kid, alg)."""
        self._parsed_from = 0
        """The `keys.fetches` they come from (a new download clears them)."""

    async def __call__(self, token: str) -> Principal | None:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError as exc:
            return refuse(f"not a JWT ({exc})")
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in self.algorithms:
            return refuse(f"algorithm {alg!r} is not accepted")
        if kid is not None and not isinstance(kid, str):
            return refuse("kid is not a string")
        jwk = await self.keys.key(kid)
        if jwk is None:
            return refuse(f"no signing key {kid!r} at the issuer")
        if not key_allows(jwk, alg):
            return refuse(f"key {kid!r} is not for {alg}")
        try:
            claims = jwt.decode(
                token,
                self._key(kid, jwk, alg),
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                # The lifetime is checked below, against the injected clock.
                options={
                    "require": ["iss", "aud", "exp"],
                    "verify_exp": False,
                    "verify_nbf": False,
                    "verify_iat": False,
                },
            )
        except jwt.PyJWTError as exc:
            return refuse(f"{type(exc).__name__}: {exc}")
        return self._within_lifetime(claims)

    def _key(self, kid: str | None, jwk: dict[str, Any], alg: str) -> jwt.PyJWK:
        """The key object of a JWK, built once per download (building an RSA key costs)."""
        if self._parsed_from != self.keys.fetches:
            self._parsed.clear()
            self._parsed_from = self.keys.fetches
        parsed = self._parsed.get((kid, alg))
        if parsed is None:
            parsed = self._parsed[(kid, alg)] = jwt.PyJWK(jwk, alg)
        return parsed

    def _within_lifetime(self, claims: dict[str, Any]) -> Principal | None:
        now = self.clock()
        exp = number(claims.get("exp"))
        if exp is None:
            return refuse("exp is not a number")
        if now > exp + self.leeway:
            return refuse("the token has expired")
        nbf = claims.get("nbf")
        if nbf is not None:
            start = number(nbf)
            if start is None or now + self.leeway < start:
                return refuse("the token is not valid yet")
        return principal_of(claims, exp + self.leeway)
