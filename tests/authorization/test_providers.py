"""The upstream providers as data, and any OpenID provider read from its discovery document
(its issuer checked exactly)."""

from __future__ import annotations

import inspect

import httpx2
import pytest

from plainmcp.authorization import providers

pytestmark = pytest.mark.anyio


def test_each_provider_cites_its_docs_and_uses_https() -> None:
    made = [
        providers.github("id", "s"),
        providers.google("id", "s"),
        providers.entra("contoso", "id", "s"),
        providers.auth0("t.auth0.com", "id", "s"),
        providers.okta("t.okta.com", "id", "s"),
        providers.keycloak("https://kc.example", "main", "id", "s"),
    ]
    for upstream in made:
        source = inspect.getsource(getattr(providers, upstream.name))
        assert "# https://" in source, upstream.name
        for url in (upstream.authorization_endpoint, upstream.token_endpoint):
            assert url.startswith("https://"), url
    assert made[0].subject_claim == "id"
    assert made[2].token_endpoint == ("https://login.microsoftonline.com/contoso/oauth2/v2.0/token")
    assert made[5].issuer == "https://kc.example/realms/main"
    assert "client_secret=" not in repr(made[0])  # the secret is never printed


async def test_an_openid_provider_is_read_from_its_discovery_document() -> None:
    document = {
        "issuer": "https://idp.example",
        "authorization_endpoint": "https://idp.example/auth",
        "token_endpoint": "https://idp.example/token",
        "userinfo_endpoint": "https://idp.example/me",
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
    }
    http = httpx2.AsyncClient(
        transport=httpx2.MockTransport(lambda r: httpx2.Response(200, json=document))
    )
    upstream = await providers.oidc("https://idp.example", "id", "s", http=http)
    assert (upstream.userinfo_endpoint, upstream.token_auth, upstream.issuer) == (
        "https://idp.example/me",
        "client_secret_basic",
        "https://idp.example",
    )
    with pytest.raises(ValueError, match="names another issuer"):
        await providers.oidc("https://other.example", "id", "s", http=http)
