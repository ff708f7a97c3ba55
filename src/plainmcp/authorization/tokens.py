"""The proxy's own access tokens: short-lived JWTs (RFC 9068) signed with its own key, for the
MCP server's resource (`aud`) and the granted scopes, and the verifier the MCP endpoint checks
them with (no network: the key is here). Refresh tokens and codes are opaque random strings,
stored only as hashes.

An access token names its grant (`grant_id`: the login its refresh tokens rotate from), so
revoking the grant ends the access tokens already issued from it, not only its refresh token:
the store keeps a revoked grant's id, and a revoked token's `jti`, as long as an access token
issued before could live."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from plainmcp.auth.claims import principal_of, refuse
from plainmcp.authorization.store import AuthStore
from plainmcp.transports.http.security import Principal

ALGORITHM = "ES256"


def opaque() -> str:
    """A code or refresh token: 256 random bits."""
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    """What a code or refresh token is stored under: a leaked store holds no usable token."""
    return hashlib.sha256(token.encode()).hexdigest()


class SigningKey:
    """An EC P-256 key (ES256). `SigningKey()` makes a new one, good for one process; processes
    that share a store must share the key too: `SigningKey.from_pem(pem)`. Its `kid` is its
    RFC 7638 thumbprint, so the same key has the same id on every process."""

    def __init__(self, key: ec.EllipticCurvePrivateKey | None = None) -> None:
        self.key = key or ec.generate_private_key(ec.SECP256R1())
        public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.key.public_key()))
        thumb = {k: public[k] for k in ("crv", "kty", "x", "y")}  # RFC 7638 members, sorted
        canonical = json.dumps(thumb, separators=(",", ":"), sort_keys=True).encode()
        self.kid = jwt.utils.base64url_encode(hashlib.sha256(canonical).digest()).decode()
        self.jwk = {**public, "kid": self.kid, "alg": ALGORITHM, "use": "sig"}

    @classmethod
    def from_pem(cls, pem: str | bytes) -> SigningKey:
        key = serialization.load_pem_private_key(
            pem.encode() if isinstance(pem, str) else pem, None
        )
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError("the signing key must be an EC P-256 private key")
        return cls(key)

    def pem(self) -> bytes:
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def sign(self, claims: dict[str, Any]) -> str:
        return jwt.encode(claims, self.key, ALGORITHM, headers={"kid": self.kid, "typ": "at+jwt"})


@dataclass(frozen=True)
class Grant:
    """What a token stands for."""

    subject: str
    client_id: str
    scope: str
    resource: str
    grant_id: str
    """The login this token comes from (its refresh tokens' family)."""


def access_token(
    key: SigningKey, issuer: str, grant: Grant, now: float, ttl: float
) -> tuple[str, str, int]:
    """(token, jti, exp)."""
    jti = secrets.token_urlsafe(16)
    exp = int(now + ttl)
    claims = {
        "iss": issuer,
        "sub": grant.subject,
        "aud": grant.resource,
        "client_id": grant.client_id,
        "scope": grant.scope,
        "iat": int(now),
        "exp": exp,
        "jti": jti,
        "grant_id": grant.grant_id,
    }
    return key.sign(claims), jti, exp


def decoded(
    keys: Sequence[SigningKey], issuer: str, audience: str | None, token: str
) -> dict[str, Any]:
    """The claims of a token signed by one of `keys` (the signing key, then those it replaced
    whose tokens may still be alive), picked by the token's `kid`; raises jwt.PyJWTError
    otherwise. Lifetime is checked by the caller against its clock."""
    kid = jwt.get_unverified_header(token).get("kid")
    key = next((k for k in keys if k.kid == kid), None)
    if key is None:
        raise jwt.InvalidKeyError(f"no key {kid!r} signs this server's tokens")
    return jwt.decode(
        token,
        key.key.public_key(),
        algorithms=[ALGORITHM],
        issuer=issuer,
        audience=audience,
        options={
            "require": ["iss", "aud", "exp", "jti", "sub", "grant_id"],
            "verify_aud": audience is not None,
            "verify_exp": False,
            "verify_iat": False,
            "verify_nbf": False,
        },
    )


async def revoke_token(store: AuthStore, jti: str, ttl: float) -> None:
    """One access token ends (`ttl`: what is left of its life)."""
    await store.put("revoked", jti, {}, ttl)


async def revoke_grant(store: AuthStore, grant_id: str, ttl: float) -> None:
    """Every access token of the grant ends (`ttl`: the access tokens' lifetime)."""
    await store.put("revoked-grant", grant_id, {}, ttl)


async def grant_revoked(store: AuthStore, grant_id: str) -> bool:
    return await store.get("revoked-grant", grant_id) is not None


class LocalVerifier:
    """`BearerAuth(verify=...)` for the proxy's own tokens: signature, issuer, audience (the
        MCP server's resource), lifetime, and neither it nor its grant revoked (the store, shared
    by every process)."""

    def __init__(
        self,
        keys: Sequence[SigningKey],
        issuer: str,
        audience: str,
        store: AuthStore,
        clock: Callable[[], float],
        close: Callable[[], Any] | None = None,
    ) -> None:
        self.keys = tuple(keys)
        self.issuer = issuer
        self.audience = audience
        self.store = store
        self.clock = clock
        self._close = close

    async def __call__(self, token: str) -> Principal | None:
        try:
            claims = decoded(self.keys, self.issuer, self.audience, token)
        except jwt.PyJWTError as exc:
            return refuse(f"{type(exc).__name__}: {exc}")
        if self.clock() >= float(claims["exp"]):
            return refuse("the token has expired")
        if await self.store.get("revoked", str(claims["jti"])) is not None:
            return refuse("the token was revoked")
        if await grant_revoked(self.store, str(claims["grant_id"])):
            return refuse("the token's grant was revoked")
        return principal_of(claims, float(claims["exp"]))

    async def aclose(self) -> None:
        if self._close is not None:
            await self._close()
