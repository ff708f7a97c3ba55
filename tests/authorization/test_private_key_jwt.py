"""private_key_jwt at the proxy's token endpoint: a client registered with a JWK Set (by DCR,
or a Client ID Metadata Document, which can carry no secret) proves itself with an assertion
signed by its key; plainmcp's client's own `PrivateKeyJwt` signs them. Wrong key, audience,
lifetime, a replayed assertion, or no assertion at all are each refused."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from plainmcp.authorization import AuthorizationServer
from plainmcp.authorization.cimd import FetchPolicy
from plainmcp.authorization.messages import Request
from plainmcp.client.oauth import PrivateKeyJwt
from tests.authorization.conftest import Clock
from tests.authorization.harness import (
    ISSUER,
    REDIRECT,
    FakeUpstream,
    authorize_query,
    code_for,
    make_server,
    post,
)

pytestmark = pytest.mark.anyio
NOW = 1_000_000.0
REFUSED = (
    401,
    {
        "error": "invalid_client",
        "error_description": "the client is unknown or its authentication failed",
    },
)


def keypair() -> tuple[str, dict[str, Any]]:
    """(private PEM, public JWK Set)."""
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
    return pem, {"keys": [{**public, "kid": "k1", "use": "sig", "alg": "ES256"}]}


def signer(
    client_id: str, pem: str, audience: str = ISSUER, at: float = NOW, jti: str = "a1"
) -> PrivateKeyJwt:
    return PrivateKeyJwt(client_id, pem, audience, clock=lambda: at, new_id=lambda: jti)


def token_form(code: str, assertion: PrivateKeyJwt | None) -> dict[str, str]:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "code_verifier": "v" * 43,
    }
    if assertion is not None:
        assertion.apply({}, form)
    return form


async def register(server: AuthorizationServer, jwks: dict[str, Any]) -> dict[str, Any]:
    body = {
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "private_key_jwt",
        "jwks": jwks,
    }
    answer = await server.handle(Request("POST", "/register", body=json.dumps(body).encode()))
    assert answer.status == 201, answer.body
    return answer.json()


async def test_a_registered_key_signs_the_clients_assertions_and_each_is_taken_once(
    upstream: FakeUpstream,
) -> None:
    server = make_server(upstream, clock=Clock(NOW))
    pem, jwks = keypair()
    client = await register(server, jwks)
    assert (client["token_endpoint_auth_method"], "client_secret" in client) == (
        "private_key_jwt",
        False,
    )
    client_id = client["client_id"]
    back = await code_for(server, upstream, authorize_query(client_id))
    form = token_form(back["code"], signer(client_id, pem))
    answer = await server.handle(post("/token", form))
    assert answer.status == 200, answer.body
    issued = answer.json()
    assert (
        jwt.decode(issued["access_token"], options={"verify_signature": False})["client_id"]
        == client_id
    )
    # the same assertion again, on the refresh: refused as replayed
    refresh = {"grant_type": "refresh_token", "refresh_token": issued["refresh_token"]}
    replayed = await server.handle(
        post("/token", {**refresh, **{k: form[k] for k in form if k.startswith("client_")}})
    )
    assert (replayed.status, replayed.json()) == REFUSED
    fresh = dict(refresh)
    signer(client_id, pem, jti="a2").apply({}, fresh)
    del fresh["client_id"]  # optional: the assertion's sub names the client
    assert (await server.handle(post("/token", fresh))).status == 200


@pytest.mark.parametrize(
    "problem",
    [
        "another key",
        "another audience",
        "expired",
        "too long-lived",
        "no assertion",
        "a secret too",
    ],
)
async def test_an_assertion_that_does_not_prove_the_client_is_refused(
    upstream: FakeUpstream, problem: str
) -> None:
    server = make_server(upstream, clock=Clock(NOW))
    pem, jwks = keypair()
    client_id = (await register(server, jwks))["client_id"]
    back = await code_for(server, upstream, authorize_query(client_id))
    other_pem, _ = keypair()
    assertion = {
        "another key": signer(client_id, other_pem),
        "another audience": signer(client_id, pem, audience="https://elsewhere.example"),
        "expired": signer(client_id, pem, at=NOW - 400),  # lived 300 s, 100 s ago
        "too long-lived": None,
        "no assertion": None,
        "a secret too": signer(client_id, pem),
    }[problem]
    form = token_form(back["code"], assertion)
    if problem == "too long-lived":
        claims = {
            "iss": client_id,
            "sub": client_id,
            "aud": ISSUER,
            "jti": "x",
            "exp": int(NOW + 3600),
        }
        form["client_assertion_type"] = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        form["client_assertion"] = jwt.encode(claims, pem, "ES256", headers={"kid": "k1"})
    if problem == "no assertion":
        form["client_id"] = client_id
    expected = REFUSED
    if problem == "a secret too":
        form["client_secret"] = "guess"
        expected = (
            400,
            {
                "error": "invalid_request",
                "error_description": "the client authenticated in two ways",
            },
        )
    answer = await server.handle(post("/token", form))
    assert (answer.status, answer.json()) == expected


async def test_registration_with_private_key_jwt_needs_a_public_jwk_set(
    upstream: FakeUpstream,
) -> None:
    server = make_server(upstream)
    secret_key = ec.generate_private_key(ec.SECP256R1())
    private = {"keys": [json.loads(jwt.algorithms.ECAlgorithm.to_jwk(secret_key))]}
    for keys, why in [
        (None, "private_key_jwt needs `jwks`: a JWK Set with at least one key"),
        ({"keys": []}, "Invalid claim: 'jwks'"),  # Authlib's RFC 7591 check, first
        (private, "Invalid claim: 'jwks'"),  # a private key: Authlib refuses it
    ]:
        body = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}
        if keys is not None:
            body["jwks"] = keys
        answer = await server.handle(Request("POST", "/register", body=json.dumps(body).encode()))
        assert (answer.status, answer.json()) == (
            400,
            {"error": "invalid_client_metadata", "error_description": why},
        )


async def test_a_metadata_document_client_with_a_key_is_confidential(
    upstream: FakeUpstream,
) -> None:
    url = "https://app.example/oauth/client.json"
    pem, jwks = keypair()
    document = {
        "client_id": url,
        "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "private_key_jwt",
        "jwks": jwks,
    }

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/oauth/client.json":
            return httpx2.Response(200, json=document)
        return upstream.handler(request)

    async def resolver(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    server = make_server(
        upstream,
        clock=Clock(NOW),
        http=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        fetch_policy=FetchPolicy(resolver=resolver),
    )
    back = await code_for(server, upstream, authorize_query(url))
    public = token_form(back["code"], None) | {"client_id": url}
    assert ((await server.handle(post("/token", public))).status,) == (REFUSED[0],)
    # the refused attempt did not take the code
    answer = await server.handle(
        post("/token", token_form(back["code"], signer(url, pem, audience=f"{ISSUER}/token")))
    )
    assert answer.status == 200, answer.body
