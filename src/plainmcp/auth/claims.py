"""What a verified token's claims say, the same for a JWT and an introspection answer."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from plainmcp.transports.http.security import Principal

log = logging.getLogger("plainmcp.auth")


def refuse(why: str) -> Principal | None:
    """Log why a token is refused (never the token) and refuse it (None: 401 invalid_token)."""
    log.info("bearer token refused: %s", why)
    return None


def scopes_of(claims: Mapping[str, Any]) -> frozenset[str]:
    """RFC 8693/9068 `scope` (space-separated), else the `scp` list many servers issue."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return frozenset(scope.split())
    scp = claims.get("scp")
    if isinstance(scp, str):
        return frozenset(scp.split())
    if isinstance(scp, list):
        return frozenset(s for s in scp if isinstance(s, str))
    return frozenset()


def audience_has(claims: Mapping[str, Any], audience: str) -> bool:
    """`aud` (a string or a list) names `audience`, compared exactly."""
    aud = claims.get("aud")
    if isinstance(aud, str):
        return aud == audience
    return isinstance(aud, list) and audience in aud


def principal_of(claims: Mapping[str, Any], expires_at: float | None) -> Principal | None:
    """The Principal a token stands for: its `sub`, else its `client_id` (a client_credentials
    token acts for the client itself, marked `client` so that it never passes for a user of
    the same name); None when it names nobody."""
    subject = claims.get("sub")
    client = False
    if not isinstance(subject, str) or not subject:
        subject, client = claims.get("client_id"), True
    if not isinstance(subject, str) or not subject:
        refuse("the token names no subject (sub or client_id)")
        return None
    return Principal(subject, scopes_of(claims), dict(claims), expires_at, client=client)


def number(value: Any) -> float | None:
    """A NumericDate claim, or None when it is absent or not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
