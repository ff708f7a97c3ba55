"""The ext-auth machine grants against an in-process token endpoint (httpx2's MockTransport):
client credentials with client_secret_basic and with a private_key_jwt assertion (decoded and
verified here, time injected), and the RFC 7523 JWT bearer grant, whose refusal surfaces."""

from __future__ import annotations

import base64
from urllib.parse import parse_qsl

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from plainmcp.client.oauth import Login, RegisteredClient, TokenError
from plainmcp.client.oauth.client_assertion import ASSERTION_TYPE, PrivateKeyJwt
from plainmcp.client.oauth.client_credentials import ClientCredentials
from plainmcp.client.oauth.identity import ClientMetadata
from plainmcp.client.oauth.jwt_bearer import GRANT_TYPE, JwtBearer
from plainmcp.client.oauth.metadata import ServerMetadata

pytestmark = pytest.mark.anyio

ISSUER = "https://as.test"
SERVER = ServerMetadata(issuer=ISSUER, token_endpoint=f"{ISSUER}/token")


def pem_pair() -> tuple[str, ec.EllipticCurvePublicKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return pem, key.public_key()


class TokenEndpoint:
    def __init__(self, answer: httpx2.Response | None = None) -> None:
        self.forms: list[dict[str, str]] = []
        self.headers: list[httpx2.Headers] = []
        self.answer = answer

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.forms.append(dict(parse_qsl(request.content.decode())))
        self.headers.append(request.headers)
        if self.answer is not None:
            return self.answer
        return httpx2.Response(200, json={"access_token": "at", "expires_in": 60})


def login(
    http: httpx2.AsyncClient,
    client: RegisteredClient,
    scopes: tuple[str, ...] = (),
    auth: PrivateKeyJwt | None = None,
) -> Login:
    return Login(http, SERVER, client, "https://mcp.test/mcp", scopes, lambda: 1000.0, auth)


async def test_client_credentials_with_client_secret_basic() -> None:
    endpoint = TokenEndpoint()
    client = RegisteredClient("cid", "s3cret", "client_secret_basic", None)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)) as http:
        token = await ClientCredentials().obtain(login(http, client, ("read", "write")))
    assert (token.access_token, token.expires_at, token.scopes) == ("at", 1060.0, ("read", "write"))
    assert endpoint.forms == [
        {
            "grant_type": "client_credentials",
            "scope": "read write",
            "resource": "https://mcp.test/mcp",
        }
    ]
    assert (
        endpoint.headers[0]["authorization"] == "Basic " + base64.b64encode(b"cid:s3cret").decode()
    )


async def test_client_credentials_with_a_private_key_jwt_assertion() -> None:
    pem, public = pem_pair()
    endpoint = TokenEndpoint()
    client = RegisteredClient("cid", None, "private_key_jwt", None)
    auth = PrivateKeyJwt("cid", pem, ISSUER, clock=lambda: 1000.5, new_id=lambda: "jti-1")
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)) as http:
        await ClientCredentials().obtain(login(http, client, auth=auth))
    form = endpoint.forms[0]
    assertion = form.pop("client_assertion")
    assert form == {
        "grant_type": "client_credentials",
        "resource": "https://mcp.test/mcp",
        "client_id": "cid",
        "client_assertion_type": ASSERTION_TYPE,
    }
    assert "authorization" not in endpoint.headers[0]
    assert jwt.get_unverified_header(assertion) == {"alg": "ES256", "typ": "JWT"}
    claims = jwt.decode(
        assertion, public, algorithms=["ES256"], audience=ISSUER, options={"verify_exp": False}
    )
    assert claims == {
        "iss": "cid",
        "sub": "cid",
        "aud": ISSUER,
        "jti": "jti-1",
        "iat": 1000,
        "exp": 1300,
    }


def test_the_private_key_jwt_factory_aims_at_the_issuer() -> None:
    pem, _ = pem_pair()
    built = PrivateKeyJwt.factory(pem)(RegisteredClient("cid", None, "none", None), SERVER)
    assert (built.client_id, built.audience, built.algorithm, built.method) == (
        "cid",
        ISSUER,
        "ES256",
        "private_key_jwt",
    )


async def test_jwt_bearer_sends_the_assertion_as_a_public_client() -> None:
    endpoint = TokenEndpoint()
    client = RegisteredClient("workload", None, "none", None)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)) as http:
        token = await JwtBearer("the.workload.jwt").obtain(login(http, client, ("read",)))
    assert token.access_token == "at"
    assert endpoint.forms == [
        {
            "grant_type": GRANT_TYPE,
            "assertion": "the.workload.jwt",
            "scope": "read",
            "resource": "https://mcp.test/mcp",
            "client_id": "workload",
        }
    ]


async def test_jwt_bearer_takes_its_assertion_from_a_source_per_login() -> None:
    endpoint = TokenEndpoint()
    seen: list[str] = []

    async def source(current: Login) -> str:
        seen.append(current.server.issuer)
        return "fresh.jwt"

    client = RegisteredClient("workload", None, "none", None)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)) as http:
        await JwtBearer(source=source).obtain(login(http, client))
    assert (seen, endpoint.forms[0]["assertion"]) == ([ISSUER], "fresh.jwt")


async def test_a_refused_jwt_bearer_assertion_surfaces_once() -> None:
    refused = httpx2.Response(400, json={"error": "invalid_grant", "error_description": "expired"})
    endpoint = TokenEndpoint(refused)
    client = RegisteredClient("workload", None, "none", None)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)) as http:
        with pytest.raises(TokenError) as caught:
            await JwtBearer("old.jwt").obtain(login(http, client))
    assert (caught.value.error, len(endpoint.forms)) == ("invalid_grant", 1)


def test_jwt_bearer_needs_exactly_one_assertion_source() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        JwtBearer()


def test_the_machine_grants_register_without_redirects() -> None:
    base = ClientMetadata(redirect_uris=("http://127.0.0.1/cb",))
    assert ClientCredentials().metadata(base).registration("client_secret_basic")[
        "grant_types"
    ] == ["client_credentials"]
    assert JwtBearer("x").metadata(base).redirect_uris == ()
