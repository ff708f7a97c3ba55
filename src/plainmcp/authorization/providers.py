"""Upstream identity providers as data: where the proxy sends a user to log in, where it
redeems the code, and where it learns who logged in. Each entry cites the provider's docs.

An application registers the proxy once with its provider (one client id and secret, one
redirect URI: the proxy's `/oauth/callback`) and passes the result, e.g.
`providers.github(client_id, client_secret)`; hosts then register with the proxy instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx2


@dataclass(frozen=True)
class Upstream:
    """One identity provider and the proxy's registration with it."""

    name: str
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    client_id: str
    client_secret: str | None = field(default=None, repr=False)
    scopes: tuple[str, ...] = ("openid",)
    subject_claim: str = "sub"
    """The userinfo field naming the user (GitHub's is `id`)."""
    issuer: str | None = None
    """The provider's issuer: an `iss` on its callback must be this one (RFC 9207)."""
    token_auth: str = "client_secret_post"
    """How the proxy authenticates at the token endpoint: client_secret_post or _basic."""
    authorize_params: Mapping[str, str] = field(default_factory=dict)


def github(client_id: str, client_secret: str, scopes: tuple[str, ...] = ()) -> Upstream:
    # https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps
    # (PKCE supported; the user is GET /user, https://docs.github.com/en/rest/users/users)
    return Upstream(
        "github",
        "https://github.com/login/oauth/authorize",
        "https://github.com/login/oauth/access_token",
        "https://api.github.com/user",
        client_id,
        client_secret,
        scopes,
        subject_claim="id",
    )


def google(client_id: str, client_secret: str) -> Upstream:
    # https://developers.google.com/identity/openid-connect/openid-connect
    # (endpoints from https://accounts.google.com/.well-known/openid-configuration)
    return Upstream(
        "google",
        "https://accounts.google.com/o/oauth2/v2/auth",
        "https://oauth2.googleapis.com/token",
        "https://openidconnect.googleapis.com/v1/userinfo",
        client_id,
        client_secret,
        ("openid", "email"),
        issuer="https://accounts.google.com",
    )


def entra(tenant: str, client_id: str, client_secret: str) -> Upstream:
    # https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow
    # (userinfo: https://learn.microsoft.com/en-us/entra/identity-platform/userinfo)
    base = f"https://login.microsoftonline.com/{tenant}"
    return Upstream(
        "entra",
        f"{base}/oauth2/v2.0/authorize",
        f"{base}/oauth2/v2.0/token",
        "https://graph.microsoft.com/oidc/userinfo",
        client_id,
        client_secret,
        ("openid", "profile", "email"),
        issuer=f"{base}/v2.0",
    )


def auth0(domain: str, client_id: str, client_secret: str) -> Upstream:
    # https://auth0.com/docs/api/authentication (Authorize, Get Token, User Profile)
    return Upstream(
        "auth0",
        f"https://{domain}/authorize",
        f"https://{domain}/oauth/token",
        f"https://{domain}/userinfo",
        client_id,
        client_secret,
        ("openid", "profile", "email"),
        issuer=f"https://{domain}/",
    )


def okta(
    domain: str, client_id: str, client_secret: str, authorization_server: str = "default"
) -> Upstream:
    # https://developer.okta.com/docs/reference/api/oidc/ (custom authorization server paths)
    base = f"https://{domain}/oauth2/{authorization_server}"
    return Upstream(
        "okta",
        f"{base}/v1/authorize",
        f"{base}/v1/token",
        f"{base}/v1/userinfo",
        client_id,
        client_secret,
        ("openid", "profile", "email"),
        issuer=base,
    )


def keycloak(base_url: str, realm: str, client_id: str, client_secret: str) -> Upstream:
    # https://www.keycloak.org/securing-apps/oidc-layers (Keycloak's OIDC endpoints)
    base = f"{base_url.rstrip('/')}/realms/{realm}"
    return Upstream(
        "keycloak",
        f"{base}/protocol/openid-connect/auth",
        f"{base}/protocol/openid-connect/token",
        f"{base}/protocol/openid-connect/userinfo",
        client_id,
        client_secret,
        ("openid", "profile", "email"),
        issuer=base,
    )


async def oidc(
    issuer: str,
    client_id: str,
    client_secret: str | None,
    *,
    scopes: tuple[str, ...] = ("openid",),
    http: httpx2.AsyncClient | None = None,
) -> Upstream:
    """Any OpenID provider, its endpoints read from its discovery document.

    https://openid.net/specs/openid-connect-discovery-1_0.html §4: the document's `issuer`
    must be the one asked for (exactly), or the provider is refused.
    """
    url = f"{issuer.rstrip('/')}/.well-known/openid-configuration"
    own = http is None
    client = http or httpx2.AsyncClient(timeout=10.0)
    try:
        answer = await client.get(url, headers={"accept": "application/json"})
        answer.raise_for_status()
        document = answer.json()
    finally:
        if own:
            await client.aclose()
    if not isinstance(document, dict) or document.get("issuer") != issuer:
        raise ValueError(f"{url} names another issuer: {document.get('issuer')!r}")
    methods = document.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    return Upstream(
        "oidc",
        str(document["authorization_endpoint"]),
        str(document["token_endpoint"]),
        str(document["userinfo_endpoint"]),
        client_id,
        client_secret,
        scopes,
        issuer=issuer,
        token_auth=(
            "client_secret_post" if "client_secret_post" in methods else "client_secret_basic"
        ),
    )
