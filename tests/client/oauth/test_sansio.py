"""The sans-I/O parts of the client's OAuth, with exact outputs."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from plainmcp.client.oauth import endpoint_auth, scopes
from plainmcp.client.oauth.authorize import authorization_code, authorization_request
from plainmcp.client.oauth.challenge import Challenge, bearer, parse
from plainmcp.client.oauth.discovery import resource_metadata_urls, server_metadata_urls
from plainmcp.client.oauth.errors import (
    AuthorizationError,
    IssuerMismatch,
    RegistrationError,
    ResourceMismatch,
    TokenError,
)
from plainmcp.client.oauth.identity import ClientMetadata, RegisteredClient, registered
from plainmcp.client.oauth.metadata import ProtectedResource, ServerMetadata, resource_matches
from plainmcp.client.oauth.store import FileTokenStore, MemoryTokenStore
from plainmcp.client.oauth.tokens import Token, token_error, token_response

AS = {
    "issuer": "https://as.test",
    "authorization_endpoint": "https://as.test/authorize",
    "token_endpoint": "https://as.test/token",
    "code_challenge_methods_supported": ["S256"],
}


def test_challenges_parse_quoted_and_plain_params_and_several_schemes() -> None:
    header = (
        'Bearer realm="mcp", error="insufficient_scope", scope="a b",'
        ' resource_metadata="https://x.test/.well-known/oauth-protected-resource/mcp",'
        ' error_description="say \\"no\\"", DPoP algs=ES256'
    )
    assert parse(header) == [
        Challenge(
            "bearer",
            {
                "realm": "mcp",
                "error": "insufficient_scope",
                "scope": "a b",
                "resource_metadata": "https://x.test/.well-known/oauth-protected-resource/mcp",
                "error_description": 'say "no"',
            },
        ),
        Challenge("dpop", {"algs": "ES256"}),
    ]
    found = bearer(["Basic realm=x", header])
    assert found is not None
    assert (found.error, found.scope) == ("insufficient_scope", ("a", "b"))
    assert bearer(["Basic realm=x"]) is None
    assert parse("Bearer") == [Challenge("bearer", {})]
    assert Challenge("bearer", {"scope": " "}).scope is None


def test_resource_metadata_urls_come_in_the_specs_order() -> None:
    assert resource_metadata_urls("https://x.test/api/mcp/", "https://x.test/custom.json") == [
        "https://x.test/custom.json",
        "https://x.test/.well-known/oauth-protected-resource/api/mcp",
        "https://x.test/.well-known/oauth-protected-resource",
    ]
    assert resource_metadata_urls("https://x.test") == [
        "https://x.test/.well-known/oauth-protected-resource"
    ]


def test_server_metadata_urls_come_in_the_specs_order() -> None:
    assert server_metadata_urls("https://as.test/tenant1") == [
        "https://as.test/.well-known/oauth-authorization-server/tenant1",
        "https://as.test/.well-known/openid-configuration/tenant1",
        "https://as.test/tenant1/.well-known/openid-configuration",
    ]
    assert server_metadata_urls("https://as.test/") == [
        "https://as.test/.well-known/oauth-authorization-server",
        "https://as.test/.well-known/openid-configuration",
    ]


def test_a_resource_covers_its_own_url_and_children_only() -> None:
    assert resource_matches("https://x.test/mcp", "https://x.test/mcp")
    assert resource_matches("https://X.test", "https://x.test/mcp")
    assert resource_matches("https://x.test/", "https://x.test/mcp")
    assert not resource_matches("https://x.test/mc", "https://x.test/mcp")
    assert not resource_matches("https://evil.test/mcp", "https://x.test/mcp")
    assert not resource_matches("http://x.test/mcp", "https://x.test/mcp")


def test_protected_resource_metadata_for_another_server_is_refused() -> None:
    doc = {"resource": "https://x.test/mcp", "authorization_servers": ["https://as.test"]}
    assert ProtectedResource.parse(doc, "https://x.test/mcp") == ProtectedResource(
        "https://x.test/mcp", ("https://as.test",), None
    )
    with pytest.raises(ResourceMismatch):
        ProtectedResource.parse({**doc, "resource": "https://evil.test/mcp"}, "https://x.test/mcp")


def test_server_metadata_must_name_the_issuer_it_was_fetched_for() -> None:
    metadata = ServerMetadata.parse(
        {**AS, "authorization_response_iss_parameter_supported": True}, "https://as.test"
    )
    assert (metadata.issuer, metadata.iss_parameter_supported) == ("https://as.test", True)
    with pytest.raises(IssuerMismatch):
        ServerMetadata.parse({**AS, "issuer": "https://attacker.test"}, "https://as.test")
    with pytest.raises(IssuerMismatch):
        ServerMetadata.parse(AS, "https://as.test/")  # simple string comparison
    # 2025-03-26: fetched at the server's origin, an issuer there is taken as named
    legacy = ServerMetadata.parse(
        {**AS, "issuer": "https://as.test/oauth"}, "https://as.test", legacy=True
    )
    assert legacy.issuer == "https://as.test/oauth"
    with pytest.raises(IssuerMismatch):
        ServerMetadata.parse({**AS, "issuer": "https://other.test"}, "https://as.test", legacy=True)


def test_the_fallback_endpoints_sit_at_the_servers_origin() -> None:
    assert ServerMetadata.fallback("http://localhost:9/mcp") == ServerMetadata(
        issuer="http://localhost:9",
        token_endpoint="http://localhost:9/token",
        authorization_endpoint="http://localhost:9/authorize",
        registration_endpoint="http://localhost:9/register",
        code_challenge_methods_supported=("S256",),
    )


def test_scope_selection_prefers_the_challenge_then_the_resource() -> None:
    assert scopes.select(("a",), ("b", "c")) == ("a",)
    assert scopes.select(None, ("b", "c")) == ("b", "c")
    assert scopes.select(None, None, ("offline_access",)) == ()
    assert scopes.select(("a",), None, ("a", "offline_access")) == ("a", "offline_access")
    assert scopes.select(("a",), None, ("a",)) == ("a",)
    assert scopes.union(("a", "b"), ("b", "c")) == ("a", "b", "c")
    assert scopes.covers(("a", "b"), ("b",)) and not scopes.covers(("a",), ("b",))


def test_the_authorization_url_carries_pkce_state_scope_and_resource() -> None:
    metadata = ServerMetadata.parse(AS, "https://as.test")
    request = authorization_request(
        metadata,
        "client-1",
        "http://127.0.0.1:5/callback",
        ("a", "b"),
        "https://x.test/mcp",
        state="st",
        code_verifier="dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    )
    assert request.url == (
        "https://as.test/authorize?response_type=code&client_id=client-1"
        "&redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcallback&scope=a+b&state=st"
        "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        "&code_challenge_method=S256&resource=https%3A%2F%2Fx.test%2Fmcp"
    )
    with pytest.raises(AuthorizationError, match="PKCE"):
        authorization_request(
            ServerMetadata.parse(
                {**AS, "code_challenge_methods_supported": ["plain"]}, "https://as.test"
            ),
            "c",
            "http://127.0.0.1:5/callback",
            (),
            None,
        )


def _request(iss_supported: bool):  # type: ignore[no-untyped-def]
    doc = {**AS, "authorization_response_iss_parameter_supported": iss_supported}
    metadata = ServerMetadata.parse(doc, "https://as.test")
    return authorization_request(metadata, "c", "http://127.0.0.1:5/cb", (), None, state="st")


@pytest.mark.parametrize(
    ("supported", "params", "refusal"),
    [
        (True, {"code": "k", "state": "st", "iss": "https://as.test"}, None),
        (
            True,
            {"code": "k", "state": "st"},
            "advertises the iss parameter but its response has none",
        ),
        (True, {"code": "k", "state": "st", "iss": "https://evil.test"}, "comes from issuer"),
        (True, {"code": "k", "state": "st", "iss": "https://as.test/"}, "comes from issuer"),
        (False, {"code": "k", "state": "st"}, None),
        (False, {"code": "k", "state": "st", "iss": "https://as.test"}, None),
        (False, {"code": "k", "state": "st", "iss": "https://evil.test"}, "comes from issuer"),
        (False, {"code": "k", "state": "other"}, "state does not match"),
        (False, {"code": "k"}, "state does not match"),
        (False, {"state": "st", "error": "access_denied"}, "access_denied"),
        (False, {"state": "st"}, "has no code"),
    ],
)
def test_the_authorization_response_passes_state_and_iss_checks(
    supported: bool, params: dict[str, str], refusal: str | None
) -> None:
    request = _request(supported)
    if refusal is None:
        assert authorization_code(params, request) == "k"
    else:
        with pytest.raises(AuthorizationError, match=refusal):
            authorization_code(params, request)


def test_token_responses_read_with_the_clock_and_keep_the_refresh_token() -> None:
    token = token_response(
        {"access_token": "t", "token_type": "bearer", "expires_in": 60, "refresh_token": "r"},
        1000.0,
        ("a",),
    )
    assert token == Token("t", "bearer", "r", 1060.0, ("a",))
    assert not token.expired(1029.0) and token.expired(1030.0)
    again = token_response({"access_token": "u", "scope": "a b"}, 0.0, (), previous_refresh="r")
    assert again == Token("u", "Bearer", "r", None, ("a", "b"))
    assert not again.expired(1e12)
    assert Token.from_json(token.to_json()) == token
    with pytest.raises(TokenError):
        token_response({"token_type": "Bearer"}, 0.0)
    error = token_error(400, {"error": "invalid_grant", "error_description": "gone"})
    assert (error.error, error.description, error.status) == ("invalid_grant", "gone", 400)


def test_token_endpoint_auth_methods() -> None:
    assert endpoint_auth.choose(["client_secret_post", "client_secret_basic"], True) == (
        "client_secret_basic"
    )
    assert endpoint_auth.choose(["client_secret_post"], True) == "client_secret_post"
    assert endpoint_auth.choose(None, True) == "client_secret_basic"
    assert endpoint_auth.choose(["client_secret_basic"], False) == "none"
    headers: dict[str, str] = {}
    form: dict[str, str] = {}
    endpoint_auth.for_client("id", "s3cret", "client_secret_basic").apply(headers, form)
    assert headers == {"Authorization": "Basic " + base64.b64encode(b"id:s3cret").decode()}
    assert form == {}
    endpoint_auth.for_client("id", "s3cret", "client_secret_post").apply(headers := {}, form)
    assert (headers, form) == ({}, {"client_id": "id", "client_secret": "s3cret"})
    endpoint_auth.for_client("id", None, "client_secret_basic").apply(headers, form := {})
    assert (headers, form) == ({}, {"client_id": "id"})


def test_registration_bodies_and_answers() -> None:
    metadata = ClientMetadata(redirect_uris=("http://127.0.0.1:5/callback",))
    assert metadata.registration("client_secret_basic") == {
        "client_name": "plainmcp",
        "redirect_uris": ["http://127.0.0.1:5/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "client_secret_basic",
        "application_type": "native",
    }
    assert metadata.document("https://c.test/m.json")["client_id"] == "https://c.test/m.json"
    assert registered(
        {"client_id": "a", "client_secret": "s"}, "https://as.test", "client_secret_post"
    ) == (RegisteredClient("a", "s", "client_secret_post", "https://as.test"))
    assert registered({"client_id": "a"}, "https://as.test", "client_secret_basic") == (
        RegisteredClient("a", None, "none", "https://as.test")
    )
    with pytest.raises(RegistrationError):
        registered({"error": "invalid_client_metadata"}, "https://as.test", "none")


@pytest.mark.anyio
async def test_the_memory_store_keeps_copies_by_key() -> None:
    store = MemoryTokenStore()
    value = {"a": [1]}
    await store.save("k", value)
    value["a"].append(2)
    assert await store.load("k") == {"a": [1]}
    assert await store.load("other") is None
    await store.delete("k")
    assert await store.load("k") is None


@pytest.mark.anyio
async def test_the_file_store_is_owner_only_and_keyed_by_url(tmp_path: Path) -> None:
    folder = tmp_path / "oauth"
    store = FileTokenStore(str(folder))
    await store.save("https://x.test/mcp", {"token": "t"})
    assert await FileTokenStore(str(folder)).load("https://x.test/mcp") == {"token": "t"}
    assert await store.load("https://y.test/mcp") is None
    (file,) = folder.iterdir()
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(file).st_mode) == 0o600
    assert file.name == store.path("https://x.test/mcp").rsplit("/", 1)[1]
    file.write_text('{"key": "https://y.test/mcp", "value": {"token": "u"}}')
    assert await store.load("https://x.test/mcp") is None  # a file for another key: ignored
    await store.delete("https://x.test/mcp")
    await store.delete("https://x.test/mcp")
    assert list(folder.iterdir()) == []
