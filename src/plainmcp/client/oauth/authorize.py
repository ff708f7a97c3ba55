"""The authorization code request with PKCE S256 (RFC 7636) and the checks its response passes:
state, RFC 9207 `iss`, an error answer. Sans-I/O: a URL out, the callback's parameters in."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass

from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from plainmcp.client.oauth.errors import AuthorizationError
from plainmcp.client.oauth.metadata import ServerMetadata


@dataclass(frozen=True)
class AuthorizationRequest:
    """One authorization attempt: the URL the user opens and what its answer is checked by."""

    url: str
    state: str
    code_verifier: str
    redirect_uri: str
    issuer: str
    iss_required: bool


def authorization_request(
    metadata: ServerMetadata,
    client_id: str,
    redirect_uri: str,
    scopes: tuple[str, ...],
    resource: str | None,
    *,
    state: str | None = None,
    code_verifier: str | None = None,
) -> AuthorizationRequest:
    """The authorization URL (state and verifier random unless given, for tests). Refused when
    the server does not advertise S256: MCP clients must not log in without PKCE."""
    if metadata.authorization_endpoint is None:
        raise AuthorizationError(f"{metadata.issuer} has no authorization endpoint")
    if "S256" not in (metadata.code_challenge_methods_supported or ()):
        raise AuthorizationError(f"{metadata.issuer} does not advertise PKCE with S256")
    state = state or generate_token(32)
    code_verifier = code_verifier or generate_token(64)
    extra: dict[str, str] = {
        "code_challenge": create_s256_code_challenge(code_verifier),
        "code_challenge_method": "S256",
    }
    if resource:
        extra["resource"] = resource
    url = prepare_grant_uri(
        metadata.authorization_endpoint,
        client_id,
        "code",
        redirect_uri=redirect_uri,
        scope=" ".join(scopes) if scopes else None,
        state=state,
        **extra,
    )
    return AuthorizationRequest(
        url=url,
        state=state,
        code_verifier=code_verifier,
        redirect_uri=redirect_uri,
        issuer=metadata.issuer,
        iss_required=metadata.iss_parameter_supported,
    )


def authorization_code(params: Mapping[str, str], request: AuthorizationRequest) -> str:
    """The code of a redirect's query parameters, once they pass: the same state; `iss` equal to
    the issuer by simple string comparison, required when the server advertises it (RFC 9207
    §2.4, a mix-up defence), compared whenever present; no `error`."""
    state = params.get("state")
    if state is None or not hmac.compare_digest(state, request.state):
        raise AuthorizationError("the authorization response's state does not match the request")
    iss = params.get("iss")
    if iss is None and request.iss_required:
        raise AuthorizationError(
            f"{request.issuer} advertises the iss parameter but its response has none"
        )
    if iss is not None and iss != request.issuer:
        raise AuthorizationError(
            f"the authorization response comes from issuer {iss!r}, not {request.issuer!r}"
        )
    if "error" in params:
        description = params.get("error_description")
        error = params["error"]
        raise AuthorizationError(f"{error}: {description}" if description else error)
    code = params.get("code")
    if not code:
        raise AuthorizationError("the authorization response has no code")
    return code
