"""private_key_jwt at the token and revocation endpoints (RFC 7523 §2.2 and §3, OIDC Core §9):
a client proves itself with a short-lived JWT signed by a key of its registered `jwks`, instead
of a secret; so a client known only by its public metadata document (CIMD) can be confidential.
Each assertion is taken once (its `jti` is kept until it expires)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jwt

from plainmcp.authorization.store import AuthStore

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ALGORITHMS = ("ES256", "RS256", "PS256", "EdDSA")
MAX_LIFETIME = 600.0
"""Seconds an assertion may claim to live: longer and a stolen one is worth keeping."""
LEEWAY = 30.0


class AssertionRefused(ValueError):
    """Why an assertion was refused (said to the log, never to the client)."""


def jwks_problem(jwks: object) -> str | None:
    """Why `jwks` cannot authenticate a client, or None. Authlib's RFC 7591 check has already
    refused a malformed set or private keys in it; this one needs the set to be there (a
    `jwks_uri` is not fetched) and usable by PyJWT."""
    if not isinstance(jwks, Mapping) or not isinstance(jwks.get("keys"), list) or not jwks["keys"]:
        return "private_key_jwt needs `jwks`: a JWK Set with at least one key"
    try:
        jwt.PyJWKSet.from_dict(dict(jwks))
    except jwt.PyJWTError as exc:
        return f"jwks is not a usable JWK Set ({exc})"
    return None


def presented_assertion(form: Mapping[str, str | None]) -> str | None:
    """The assertion a request authenticates with, or None (it uses another method). Raises
    ValueError for an assertion of another type."""
    assertion = form.get("client_assertion")
    kind = form.get("client_assertion_type")
    if assertion is None and kind is None:
        return None
    if kind != ASSERTION_TYPE or not assertion:
        raise ValueError(f"client_assertion_type must be {ASSERTION_TYPE}")
    return assertion


def claimed_client(assertion: str) -> str | None:
    """The client an assertion says it comes from (its `sub`), read before it is checked."""
    try:
        sub = jwt.decode(assertion, options={"verify_signature": False}).get("sub")
    except jwt.PyJWTError:
        return None
    return sub if isinstance(sub, str) else None


async def verify(
    assertion: str,
    client_id: str,
    jwks: Mapping[str, Any],
    audiences: Sequence[str],
    store: AuthStore,
    now: float,
) -> None:
    """Raises AssertionRefused unless `assertion` is `client_id`'s, signed by one of its keys,
    for this server (`aud`: its issuer or the endpoint), alive, short-lived and new."""
    try:
        header = jwt.get_unverified_header(assertion)
        keys = jwt.PyJWKSet.from_dict(dict(jwks)).keys
    except jwt.PyJWTError as exc:
        raise AssertionRefused(f"unreadable assertion ({exc})") from None
    kid = header.get("kid")
    candidates = [k for k in keys if kid is None or k.key_id == kid]
    if header.get("alg") not in ALGORITHMS or not candidates:
        raise AssertionRefused(f"no key of the client for kid {kid!r}, alg {header.get('alg')!r}")
    claims: dict[str, Any] | None = None
    for key in candidates:
        try:
            claims = jwt.decode(
                assertion,
                key.key,
                algorithms=[str(header["alg"])],
                audience=list(audiences),
                issuer=client_id,
                options={"require": ["iss", "sub", "aud", "exp", "jti"], "verify_exp": False},
            )
            break
        except jwt.InvalidSignatureError:
            continue
        except jwt.PyJWTError as exc:
            raise AssertionRefused(str(exc)) from None
    if claims is None:
        raise AssertionRefused("the signature is not by a key of the client")
    if claims["sub"] != client_id:
        raise AssertionRefused("sub is not the client")
    exp = float(claims["exp"])
    if exp + LEEWAY <= now:
        raise AssertionRefused("the assertion has expired")
    if exp - now > MAX_LIFETIME:
        raise AssertionRefused(f"the assertion lives over {MAX_LIFETIME:.0f} s")
    if await store.count("assertion", f"{client_id} {claims['jti']}", exp + LEEWAY - now) > 1:
        raise AssertionRefused("the assertion was used before")
