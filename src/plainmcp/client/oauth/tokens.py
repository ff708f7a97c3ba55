"""Tokens as plain data: a token endpoint's answer read with the clock injected, stored and
loaded as JSON, and whether one is still good."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.client.oauth.errors import TokenError

EXPIRY_LEEWAY = 30.0
"""Seconds before its expiry that a token counts as expired (it may expire on the way)."""


@dataclass(frozen=True)
class Token:
    access_token: str
    token_type: str = "Bearer"
    refresh_token: str | None = None
    expires_at: float | None = None
    scopes: tuple[str, ...] = ()
    """The scopes granted (the token response's `scope`, else the ones asked for)."""

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at - EXPIRY_LEEWAY

    def to_json(self) -> dict[str, Any]:
        return {
            "access_token": self.access_token,
            "token_type": self.token_type,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "scopes": list(self.scopes),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Token:
        expires_at = doc.get("expires_at")
        return cls(
            access_token=str(doc["access_token"]),
            token_type=str(doc.get("token_type") or "Bearer"),
            refresh_token=doc.get("refresh_token"),
            expires_at=float(expires_at) if expires_at is not None else None,
            scopes=tuple(doc.get("scopes") or ()),
        )


def token_response(
    doc: Any,
    now: float,
    asked: tuple[str, ...] = (),
    previous_refresh: str | None = None,
) -> Token:
    """A successful token response (RFC 6749 §5.1); a refresh answer without a new refresh
    token keeps the previous one (§6)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("access_token"), str):
        raise TokenError("invalid_response", "the token response has no access_token", 200)
    expires_in = doc.get("expires_in")
    expires_at = (
        now + float(expires_in)
        if isinstance(expires_in, (int, float)) and not isinstance(expires_in, bool)
        else None
    )
    scope = doc.get("scope")
    refresh = doc.get("refresh_token")
    return Token(
        access_token=doc["access_token"],
        token_type=str(doc.get("token_type") or "Bearer"),
        refresh_token=refresh if isinstance(refresh, str) else previous_refresh,
        expires_at=expires_at,
        scopes=tuple(scope.split()) if isinstance(scope, str) else asked,
    )


def token_error(status: int, doc: Any) -> TokenError:
    """A refused token request (RFC 6749 §5.2) as a TokenError."""
    if isinstance(doc, dict) and isinstance(doc.get("error"), str):
        description = doc.get("error_description")
        text = description if isinstance(description, str) else None
        return TokenError(doc["error"], text, status)
    return TokenError("invalid_response", "the answer is not an OAuth error", status)
