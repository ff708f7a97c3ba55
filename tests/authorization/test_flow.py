"""The authorization server's protocol on plain Request objects: metadata, registration, the
login through the upstream provider, the token endpoint, refresh rotation, revocation."""

from __future__ import annotations

import jwt
import pytest

from plainmcp.authorization import AuthorizationServer, Client, MemoryAuthStore
from plainmcp.authorization.messages import Request
from tests.authorization.harness import (
    ISSUER,
    REDIRECT,
    RESOURCE,
    FakeUpstream,
    authorize_query,
    code_for,
    get,
    make_server,
    post,
    query_of,
    tokens_for,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(upstream: FakeUpstream) -> AuthorizationServer:
    return make_server(upstream)


async def test_the_metadata_document_is_served_at_both_well_known_paths(
    server: AuthorizationServer,
) -> None:
    oauth = await server.handle(get("/.well-known/oauth-authorization-server", {}))
    openid = await server.handle(get("/.well-known/openid-configuration", {}))
    assert oauth.status == openid.status == 200
    assert oauth.header("content-type") == "application/json"
    assert (
        oauth.json()
        == openid.json()
        == {
            "issuer": ISSUER,
            "authorization_endpoint": f"{ISSUER}/authorize",
            "token_endpoint": f"{ISSUER}/token",
            "jwks_uri": f"{ISSUER}/jwks",
            "revocation_endpoint": f"{ISSUER}/revoke",
            "registration_endpoint": f"{ISSUER}/register",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": [
                "none",
                "client_secret_post",
                "client_secret_basic",
                "private_key_jwt",
            ],
            "token_endpoint_auth_signing_alg_values_supported": [
                "ES256",
                "RS256",
                "PS256",
                "EdDSA",
            ],
            "revocation_endpoint_auth_methods_supported": [
                "none",
                "client_secret_post",
                "client_secret_basic",
                "private_key_jwt",
            ],
            "revocation_endpoint_auth_signing_alg_values_supported": [
                "ES256",
                "RS256",
                "PS256",
                "EdDSA",
            ],
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": True,
            "scopes_supported": ["mcp:read", "mcp:write"],
        }
    )


async def test_an_issuer_with_a_path_serves_its_metadata_under_it(upstream: FakeUpstream) -> None:
    server = AuthorizationServer(issuer=f"{ISSUER}/tenant", upstream=upstream.upstream())
    for path in (
        "/.well-known/oauth-authorization-server/tenant",
        "/.well-known/openid-configuration/tenant",
        "/tenant/.well-known/openid-configuration",
    ):
        answer = await server.handle(get(path, {}))
        assert answer.json()["authorization_endpoint"] == f"{ISSUER}/tenant/authorize"
    assert server.resource == f"{ISSUER}/tenant/mcp"


def test_a_plain_http_issuer_is_refused_outside_loopback(upstream: FakeUpstream) -> None:
    with pytest.raises(ValueError, match="issuer must use https"):
        AuthorizationServer(issuer="http://mcp.example.com", upstream=upstream.upstream())


async def test_a_registered_client_logs_in_and_gets_a_token_for_the_resource(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    registered = await server.handle(
        Request(
            "POST",
            "/register",
            headers={"content-type": "application/json"},
            body=b'{"redirect_uris": ["http://127.0.0.1:3000/callback"],'
            b' "token_endpoint_auth_method": "none", "client_name": "Host"}',
        )
    )
    assert registered.status == 201
    client = registered.json()
    assert client["client_id"].startswith("mcp-")
    assert "client_secret" not in client
    assert client["redirect_uris"] == [REDIRECT]
    back = await code_for(server, upstream, authorize_query(client["client_id"], scope="mcp:read"))
    assert set(back) == {"code", "state", "iss"}
    assert (back["state"], back["iss"]) == ("st-1", ISSUER)
    answer = await tokens_for(server, back["code"], client_id=client["client_id"])
    assert answer.status == 200
    assert answer.header("cache-control") == "no-store"
    body = answer.json()
    assert (body["token_type"], body["expires_in"], body["scope"]) == ("Bearer", 900, "mcp:read")
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["aud"] == RESOURCE
    assert claims["iss"] == ISSUER
    assert (claims["sub"], claims["client_id"], claims["scope"]) == (
        "alice",
        client["client_id"],
        "mcp:read",
    )
    assert claims["exp"] - claims["iat"] == 900
    principal = await server.verifier()(body["access_token"])
    assert principal is not None
    assert (principal.subject, principal.scopes) == ("alice", frozenset({"mcp:read"}))


async def test_a_self_registered_clients_scope_is_its_default_never_a_limit(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    """The TypeScript SDK registers with its first login's scope; its step-up asks the same
    registration for more. It could register again with any scope, so the one it declared
    limits nothing: it is what it gets when it asks for none."""
    registered = await server.handle(
        Request(
            "POST",
            "/register",
            headers={"content-type": "application/json"},
            body=b'{"redirect_uris": ["http://127.0.0.1:3000/callback"],'
            b' "token_endpoint_auth_method": "none", "scope": "mcp:read"}',
        )
    )
    assert registered.status == 201
    client_id = registered.json()["client_id"]
    assert registered.json()["scope"] == "mcp:read"
    granted = []
    for asked in ("", "mcp:read mcp:write"):
        back = await code_for(server, upstream, authorize_query(client_id, scope=asked))
        answer = await tokens_for(server, back["code"], client_id=client_id)
        assert answer.status == 200, answer.body
        granted.append(answer.json()["scope"])
    assert granted == ["mcp:read", "mcp:read mcp:write"]
    refused = await server.handle(get("/authorize", authorize_query(client_id, scope="admin")))
    assert refused.status == 302
    assert query_of(refused.header("location") or "")["error"] == "invalid_scope"


async def test_a_pre_registered_clients_scope_limits_what_it_is_granted(
    upstream: FakeUpstream,
) -> None:
    server = make_server(upstream, clients=[Client("app", [REDIRECT], scope="mcp:read")])
    back = await code_for(server, upstream, authorize_query())
    answer = await tokens_for(server, back["code"])
    assert answer.json()["scope"] == "mcp:read"
    refused = await server.handle(get("/authorize", authorize_query(scope="mcp:read mcp:write")))
    assert refused.status == 302
    assert query_of(refused.header("location") or "") == {
        "error": "invalid_scope",
        "error_description": "a requested scope is not offered to this client",
        "state": "st-1",
        "iss": ISSUER,
    }


async def test_a_confidential_client_registers_and_authenticates_with_basic(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    import base64

    registered = await server.handle(
        Request(
            "POST",
            "/register",
            body=b'{"redirect_uris": ["http://127.0.0.1:3000/callback"]}',
        )
    )
    client = registered.json()
    assert client["token_endpoint_auth_method"] == "client_secret_basic"
    assert client["client_secret_expires_at"] == 0
    back = await code_for(server, upstream, authorize_query(client["client_id"]))
    form = {
        "grant_type": "authorization_code",
        "code": back["code"],
        "redirect_uri": REDIRECT,
        "code_verifier": "v" * 43,
    }
    wrong = base64.b64encode(f"{client['client_id']}:nope".encode()).decode()
    refused = await server.handle(post("/token", form, {"authorization": f"Basic {wrong}"}))
    assert (refused.status, refused.json()["error"]) == (401, "invalid_client")
    pair = base64.b64encode(f"{client['client_id']}:{client['client_secret']}".encode()).decode()
    # The refused attempt did not reach the code: it is still good.
    answer = await server.handle(post("/token", form, {"authorization": f"Basic {pair}"}))
    assert answer.status == 200


async def test_registration_refuses_what_it_cannot_serve(server: AuthorizationServer) -> None:
    cases = {
        b'{"redirect_uris": []}': "invalid_redirect_uri",
        b'{"redirect_uris": ["http://evil.example/cb"]}': "invalid_redirect_uri",
        b'{"redirect_uris": ["javascript:alert(1)"]}': "invalid_redirect_uri",
        b'{"redirect_uris": ["https://app.example/cb#x"]}': "invalid_redirect_uri",
        b'{"redirect_uris": ["https://a.example/cb"], "grant_types": ["implicit"]}': (
            "invalid_client_metadata"
        ),
        b'{"redirect_uris": ["https://a.example/cb"], "token_endpoint_auth_method": "x"}': (
            "invalid_client_metadata"
        ),
        b"[1]": "invalid_client_metadata",
        b"not json": "invalid_client_metadata",
    }
    for body, error in cases.items():
        answer = await server.handle(Request("POST", "/register", body=body))
        assert (answer.status, answer.json()["error"]) == (400, error), body


async def test_a_refresh_rotates_the_refresh_token(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    back = await code_for(server, upstream)
    first = (await tokens_for(server, back["code"])).json()
    refresh = {"grant_type": "refresh_token", "client_id": "app"}
    answer = await server.handle(
        post("/token", {**refresh, "refresh_token": first["refresh_token"]})
    )
    assert answer.status == 200
    second = answer.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["scope"] == "mcp:read mcp:write"
    narrower = await server.handle(
        post("/token", {**refresh, "refresh_token": second["refresh_token"], "scope": "mcp:read"})
    )
    assert narrower.json()["scope"] == "mcp:read"
    wider = await server.handle(
        post(
            "/token",
            {**refresh, "refresh_token": narrower.json()["refresh_token"], "scope": "admin"},
        )
    )
    assert wider.json()["error"] == "invalid_scope"


async def test_a_rotated_out_refresh_token_used_again_revokes_its_family(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    back = await code_for(server, upstream)
    first = (await tokens_for(server, back["code"])).json()
    refresh = {"grant_type": "refresh_token", "client_id": "app"}
    second = (
        await server.handle(post("/token", {**refresh, "refresh_token": first["refresh_token"]}))
    ).json()
    replay = await server.handle(
        post("/token", {**refresh, "refresh_token": first["refresh_token"]})
    )
    assert (replay.status, replay.json()["error"]) == (400, "invalid_grant")
    live = await server.handle(
        post("/token", {**refresh, "refresh_token": second["refresh_token"]})
    )
    assert (live.status, live.json()["error"]) == (400, "invalid_grant")


async def test_revoked_tokens_are_refused(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    back = await code_for(server, upstream)
    body = (await tokens_for(server, back["code"])).json()
    verify = server.verifier()
    assert await verify(body["access_token"]) is not None
    answer = await server.handle(
        post("/revoke", {"token": body["access_token"], "client_id": "app"})
    )
    assert answer.status == 200
    assert await verify(body["access_token"]) is None
    await server.handle(post("/revoke", {"token": body["refresh_token"], "client_id": "app"}))
    refreshed = await server.handle(
        post(
            "/token",
            {
                "grant_type": "refresh_token",
                "client_id": "app",
                "refresh_token": body["refresh_token"],
            },
        )
    )
    assert refreshed.json()["error"] == "invalid_grant"
    unknown = await server.handle(post("/revoke", {"token": "whatever", "client_id": "app"}))
    assert unknown.status == 200


async def test_an_expired_access_token_is_refused(upstream: FakeUpstream) -> None:
    import time

    now = [time.time()]
    server = make_server(upstream, clock=lambda: now[0], store=MemoryAuthStore(lambda: now[0]))
    back = await code_for(server, upstream)
    token = (await tokens_for(server, back["code"])).json()["access_token"]
    verify = server.verifier()
    now[0] += 899
    assert await verify(token) is not None
    now[0] += 1
    assert await verify(token) is None


async def test_a_denied_consent_goes_back_to_the_client_as_access_denied(
    server: AuthorizationServer,
) -> None:
    from tests.authorization.harness import consent_form

    page = await server.handle(get("/authorize", authorize_query()))
    fields, cookie = consent_form(page)
    answer = await server.handle(
        post("/authorize/consent", {**fields, "decision": "deny"}, {"cookie": cookie})
    )
    back = query_of(answer.header("location") or "")
    assert back == {
        "error": "access_denied",
        "error_description": "denied",
        "state": "st-1",
        "iss": ISSUER,
    }


async def test_the_consent_page_names_the_client_and_cannot_be_framed(
    server: AuthorizationServer,
) -> None:
    page = await server.handle(get("/authorize", authorize_query(scope="mcp:read")))
    text = page.body.decode()
    assert "<h1>Allow app?</h1>" in text
    assert "<li>mcp:read</li>" in text
    assert "127.0.0.1:3000" in text
    assert page.header("x-frame-options") == "DENY"
    assert "frame-ancestors 'none'" in (page.header("content-security-policy") or "")
    assert (page.header("set-cookie") or "").endswith("; HttpOnly; SameSite=Lax; Max-Age=600")


async def test_wrong_methods_and_unknown_paths(server: AuthorizationServer) -> None:
    assert (await server.handle(post("/authorize", {}))).status == 405
    assert (await server.handle(get("/token", {}))).status == 405
    assert (await server.handle(get("/nowhere", {}))).status == 404
    jwks = (await server.handle(get("/jwks", {}))).json()
    assert jwks["keys"][0]["kid"] == server.key.kid
    assert "d" not in jwks["keys"][0]
