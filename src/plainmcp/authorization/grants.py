"""The token endpoint's checks, pure: a stored code or refresh token against the request that
presents it. A code is bound to the client, the redirect URI and the PKCE challenge it was
issued for, so a stolen or injected code is useless to anyone else (RFC 9700 §4.5)."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from authlib.oauth2.rfc7636 import create_s256_code_challenge

VERIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def code_problem(
    record: Mapping[str, Any],
    client_id: str,
    redirect_uri: str | None,
    verifier: str | None,
    resource: str | None,
) -> str | None:
    """Why the code cannot be redeemed by this request (invalid_grant), or None."""
    if record["client_id"] != client_id:
        return "the code was issued to another client"
    if redirect_uri != record["redirect_uri"]:
        return "redirect_uri is not the one the code was issued for"
    if not verifier or not 43 <= len(verifier) <= 128 or not set(verifier) <= VERIFIER_CHARS:
        return "code_verifier is missing or malformed"
    challenge = create_s256_code_challenge(verifier)
    if not hmac.compare_digest(challenge, str(record["code_challenge"])):
        return "code_verifier does not match the code_challenge"
    if resource is not None and resource != record["resource"]:
        return "resource is not the one the code was issued for"
    return None


def narrowed_scope(granted: str, asked: str | None) -> str | None:
    """A refresh may ask for fewer scopes, never more (RFC 6749 §6); None: it asked for more."""
    if asked is None:
        return granted
    have = granted.split()
    wanted = asked.split()
    if any(s not in have for s in wanted):
        return None
    return " ".join(dict.fromkeys(wanted))
