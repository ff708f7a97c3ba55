"""IntrospectionVerifier against a real authorization server (oidc-provider's RFC 7662
endpoint): opaque access tokens issued with the resource indicator."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import Principal
from plainmcp.auth import IntrospectionVerifier
from tests.auth.provider import Provider
from tests.auth.test_jwt_verifier import INVALID, RESOURCE, Clock, call_with, make_app, text_of

pytestmark = pytest.mark.anyio


def verifier_for(provider: Provider, **options: Any) -> IntrospectionVerifier:
    return IntrospectionVerifier(
        f"{provider.issuer}/token/introspection",
        "mcp-server",
        "mcp-server-secret",
        audience=RESOURCE,
        issuer=provider.issuer,
        **options,
    )


def opaque(provider: Provider, resource: str = RESOURCE, scope: str = "mcp:read") -> str:
    token = provider.token(resource, scope, client="opaque-client")
    assert token.count(".") == 0  # not a JWT: only the authorization server can tell
    return token


async def test_an_active_opaque_token_is_accepted_and_its_answer_kept(provider: Provider) -> None:
    verifier = verifier_for(provider)
    http = make_app(verifier, provider.issuer)
    token = opaque(provider)
    for _ in range(3):
        answer = await call_with(http, token)
        assert (answer.status, text_of(answer)) == (200, f"opaque-client mcp:read {RESOURCE}")
    assert verifier.requests == 1


async def test_an_opaque_token_for_another_resource_or_unknown_is_refused(
    provider: Provider,
) -> None:
    verifier = verifier_for(provider)
    http = make_app(verifier, provider.issuer)
    for token in (opaque(provider, "http://127.0.0.1:8000/other-mcp"), "not-a-token-at-all"):
        answer = await call_with(http, token)
        assert answer.status == 401
        assert answer.headers["www-authenticate"] == INVALID
    assert verifier.requests == 2


async def test_the_cache_ends_at_the_tokens_expiry_and_keeps_its_bound(provider: Provider) -> None:
    clock = Clock()
    verifier = verifier_for(provider, clock=clock, cache_ttl=3600, max_cached=1)
    first, second = opaque(provider), opaque(provider, scope="mcp:read mcp:admin")
    one = await verifier(first)
    assert isinstance(one, Principal) and one.scopes == frozenset({"mcp:read"})
    assert await verifier(first) == one and verifier.requests == 1
    two = await verifier(second)
    assert isinstance(two, Principal) and two.scopes == frozenset({"mcp:read", "mcp:admin"})
    assert await verifier(first) == one and verifier.requests == 3  # the bound pushed it out
    assert one.expires_at is not None
    clock.now = one.expires_at  # the server still says active; our clock says it expired
    assert await verifier(first) is None
    assert verifier.requests == 4


async def test_a_scoped_tool_refuses_an_opaque_token_without_the_scope(provider: Provider) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    answer = await call_with(http, opaque(provider), "purge")
    assert answer.status == 403
    assert 'error="insufficient_scope", scope="mcp:admin"' in answer.headers["www-authenticate"]
