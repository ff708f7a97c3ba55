"""The authorization request (RFC 6749 §4.1.1 as OAuth 2.1 tightens it) checked, pure: what
may redirect back to the client, and what must be shown instead.

Until the client and its redirect URI are proven (registered, matched exactly), an error is
a page, never a redirect: a redirect to an unproven URI is an open redirector (RFC 6749
§4.1.2.1). After that, errors go back to the client with its state and our `iss`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from plainmcp.authorization.clients import Registered, redirect_uri_matches
from plainmcp.authorization.messages import (
    Repeated,
    Response,
    error_page,
    redirect,
    single,
    with_query,
)

CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{43}$")
"""An S256 code challenge: base64url of a SHA-256 digest, unpadded (RFC 7636 §4.2)."""


@dataclass(frozen=True)
class AuthorizeRequest:
    """An authorization request that passed every check: what a login carries to the end."""

    client_id: str
    redirect_uri: str
    state: str
    code_challenge: str
    scope: str
    resource: str


def client_of(query: Mapping[str, list[str]]) -> str | Response:
    """The request's client id, or the page saying why there is none."""
    try:
        client_id = single(query, "client_id")
    except Repeated as exc:
        return error_page(400, str(exc))
    if not client_id:
        return error_page(400, "the request names no client_id")
    return client_id


def granted_scope(
    asked: str | None,
    supported: Sequence[str],
    client_scope: str | None,
    declared_scope: str | None = None,
) -> str | None:
    """The scopes to grant (space-separated), or None when one asked for is not allowed.
    `client_scope` limits them (the operator's); `declared_scope`, what a self-registered
    client declared, is only the default when it asks for none."""
    allowed = list(supported)
    if client_scope is not None:
        allowed = [s for s in allowed if s in client_scope.split()]
    if asked is None or not asked.strip():
        if declared_scope is not None:
            return " ".join(s for s in allowed if s in declared_scope.split())
        return " ".join(allowed)
    wanted = asked.split()
    if any(s not in allowed for s in wanted):
        return None
    return " ".join(dict.fromkeys(wanted))


def validate(
    query: Mapping[str, list[str]],
    client: Registered | None,
    *,
    issuer: str,
    resource: str,
    scopes: Sequence[str],
) -> AuthorizeRequest | Response:
    """The request, or the answer refusing it (a page, or a redirect carrying the error)."""
    if client is None:
        return error_page(400, "the client is unknown")
    try:
        redirect_uri = single(query, "redirect_uri")
        state = single(query, "state")
        response_type = single(query, "response_type")
        challenge = single(query, "code_challenge")
        method = single(query, "code_challenge_method")
        scope = single(query, "scope")
        resources = query.get("resource", [])
    except Repeated as exc:
        return error_page(400, str(exc))
    if redirect_uri is None:  # OAuth 2.1 lets one registered URI stand in: not here, exact
        return error_page(400, "the request names no redirect_uri")
    if not redirect_uri_matches(client.redirect_uris, redirect_uri):
        return error_page(400, "the redirect_uri is not one registered for this client")

    def back(error: str, description: str) -> Response:
        params = {"error": error, "error_description": description}
        if state:
            params["state"] = state
        params["iss"] = issuer
        return redirect(with_query(redirect_uri, params))

    if response_type != "code":
        return back("unsupported_response_type", "only response_type=code is supported")
    if not state:
        return back("invalid_request", "state is required")
    if not challenge:
        return back("invalid_request", "PKCE is required: code_challenge is missing")
    if method != "S256":
        return back("invalid_request", "code_challenge_method must be S256")
    if not CHALLENGE.match(challenge):
        return back("invalid_request", "code_challenge is not an S256 challenge")
    if len(resources) > 1 or (resources and resources[0] != resource):
        return back("invalid_target", f"this server issues tokens for {resource} only")
    granted = granted_scope(scope, scopes, client.scope, client.declared_scope)
    if granted is None:
        return back("invalid_scope", "a requested scope is not offered to this client")
    return AuthorizeRequest(client.client_id, redirect_uri, state, challenge, granted, resource)
