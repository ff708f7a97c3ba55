"""DPoP (RFC 9449): the proof JWT exactly (decoded and verified with its own jwk, time and
jti injected), ath and htu, the nonces, the token request's one retry on use_dpop_nonce, and
OAuth presenting a DPoP-bound token with a fresh proof and retrying once on the resource's
nonce."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
from urllib.parse import parse_qsl

import httpx2
import jwt
import pytest
from jwt.algorithms import ECAlgorithm

from plainmcp.client.oauth import (
    Credentials,
    Login,
    MemoryTokenStore,
    OAuth,
    RegisteredClient,
    Token,
    TokenError,
)
from plainmcp.client.oauth.dpop import DPoPKey, ath, htu
from plainmcp.client.oauth.metadata import ServerMetadata

pytestmark = pytest.mark.anyio


def counting_key() -> DPoPKey:
    ids = itertools.count(1)
    return DPoPKey(clock=lambda: 1000.7, new_id=lambda: f"jti-{next(ids)}")


def decoded(proof: str) -> tuple[dict[str, object], dict[str, object]]:
    header = jwt.get_unverified_header(proof)
    public = ECAlgorithm.from_jwk(json.dumps(header["jwk"]))
    return header, jwt.decode(proof, public, algorithms=["ES256"])  # type: ignore[arg-type]


def test_ath_and_htu() -> None:
    digest = base64.urlsafe_b64encode(hashlib.sha256(b"tok").digest()).rstrip(b"=").decode()
    assert ath("tok") == digest
    assert htu("https://mcp.test/mcp?x=1#f") == "https://mcp.test/mcp"


def test_a_proof_carries_the_public_key_method_url_time_and_token_hash() -> None:
    key = counting_key()
    header, claims = decoded(key.proof("post", "https://mcp.test/mcp?q=1", "tok"))
    assert header == {"alg": "ES256", "typ": "dpop+jwt", "jwk": key.jwk}
    assert set(key.jwk) == {"kty", "crv", "x", "y"}  # the public half only
    assert claims == {
        "jti": "jti-1",
        "htm": "POST",
        "htu": "https://mcp.test/mcp",
        "iat": 1000,
        "ath": ath("tok"),
    }
    assert decoded(key.proof("GET", "https://mcp.test/mcp"))[1]["jti"] == "jti-2"


def test_a_servers_nonce_is_learned_once_and_sent_to_it_only() -> None:
    key = counting_key()
    assert key.learn("https://as.test/token", "n1") is True
    assert key.learn("https://as.test/other", "n1") is False
    assert key.learn("https://as.test/token", None) is False
    assert decoded(key.proof("POST", "https://as.test/token"))[1]["nonce"] == "n1"
    assert "nonce" not in decoded(key.proof("POST", "https://mcp.test/mcp"))[1]


async def test_the_token_request_retries_once_with_the_servers_nonce() -> None:
    proofs: list[dict[str, object]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        claims = decoded(request.headers["dpop"])[1]
        proofs.append(claims)
        if claims.get("nonce") != "n1":
            return httpx2.Response(
                400, headers={"dpop-nonce": "n1"}, json={"error": "use_dpop_nonce"}
            )
        assert dict(parse_qsl(request.content.decode()))["grant_type"] == "client_credentials"
        return httpx2.Response(200, json={"access_token": "at", "token_type": "DPoP"})

    server = ServerMetadata(issuer="https://as.test", token_endpoint="https://as.test/token")
    client = RegisteredClient("cid", None, "none", None)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handle)) as http:
        login = Login(http, server, client, None, (), lambda: 0.0, None, counting_key())
        token = await login.token_request({"grant_type": "client_credentials"})
    assert (token.access_token, token.token_type) == ("at", "DPoP")
    assert [(p["jti"], p["htu"], p.get("nonce")) for p in proofs] == [
        ("jti-1", "https://as.test/token", None),
        ("jti-2", "https://as.test/token", "n1"),
    ]


async def test_a_nonce_refused_twice_is_not_retried_again() -> None:
    calls: list[str] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        calls.append(request.headers["dpop"])
        return httpx2.Response(
            400, headers={"dpop-nonce": f"n{len(calls)}"}, json={"error": "use_dpop_nonce"}
        )

    server = ServerMetadata(issuer="https://as.test", token_endpoint="https://as.test/token")
    client = RegisteredClient("cid", None, "none", None)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handle)) as http:
        login = Login(http, server, client, None, (), lambda: 0.0, None, counting_key())
        with pytest.raises(TokenError, match="use_dpop_nonce"):
            await login.token_request({"grant_type": "client_credentials"})
    assert len(calls) == 2


async def test_oauth_presents_a_dpop_token_and_retries_once_on_the_resources_nonce() -> None:
    seen: list[tuple[str, dict[str, object]]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        claims = decoded(request.headers["dpop"])[1]
        seen.append((request.headers["authorization"], claims))
        if claims.get("nonce") != "rs1":
            return httpx2.Response(
                401,
                headers={
                    "www-authenticate": 'DPoP error="use_dpop_nonce"',
                    "dpop-nonce": "rs1",
                },
            )
        return httpx2.Response(200, json={"ok": True})

    oauth = OAuth(dpop=counting_key(), store=await stored(Token("tok", "DPoP")))
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handle), auth=oauth) as http:
        answer = await http.post("https://mcp.test/mcp?x=1", json={})
    assert answer.status_code == 200
    assert [(a, c["htm"], c["htu"], c["ath"], c.get("nonce")) for a, c in seen] == [
        ("DPoP tok", "POST", "https://mcp.test/mcp", ath("tok"), None),
        ("DPoP tok", "POST", "https://mcp.test/mcp", ath("tok"), "rs1"),
    ]
    assert seen[0][1]["jti"] != seen[1][1]["jti"]


async def stored(token: Token) -> MemoryTokenStore:
    store = MemoryTokenStore()
    client = RegisteredClient("cid", None, "none", "https://as.test")
    credentials = Credentials(token, client, "https://as.test", "https://as.test/token", None, ())
    await store.save("https://mcp.test/mcp", credentials.to_json())
    return store


async def test_an_unbound_bearer_token_is_still_presented_as_bearer() -> None:
    headers: list[httpx2.Headers] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        headers.append(request.headers)
        return httpx2.Response(200, json={})

    oauth = OAuth(dpop=counting_key(), store=await stored(Token("tok")))
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handle), auth=oauth) as http:
        await http.get("https://mcp.test/mcp")
    assert (headers[0]["authorization"], "dpop" in headers[0]) == ("Bearer tok", False)
