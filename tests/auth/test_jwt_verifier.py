"""JwtVerifier against a real authorization server (oidc-provider on 127.0.0.1): real access
tokens issued with the resource indicator, verified by the endpoint in process; each case with
its exact status and WWW-Authenticate header."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import jwt
import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from plainmcp import Context, Server
from plainmcp.auth import JwtVerifier
from plainmcp.auth.claims import principal_of
from plainmcp.model.identity import identity
from plainmcp.transports.http import BearerAuth, HttpApp
from tests.auth.provider import Provider
from tests.transports.http.asgi import request

pytestmark = pytest.mark.anyio

RESOURCE = "http://127.0.0.1:8000/mcp"
"""The endpoint's canonical URI as the in-process driver reaches it (Host 127.0.0.1:8000)."""
METADATA = "http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"
INVALID = (
    f'Bearer resource_metadata="{METADATA}", error="invalid_token",'
    ' error_description="the token is invalid or expired"'
)


class Clock:
    """Unix time the test moves."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class Counting(httpx2.AsyncBaseTransport):
    """Real HTTP, with the paths requested written down."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.paths.append(request.url.path)
        return await self.inner.handle_async_request(request)


@pytest.fixture
async def fetched() -> AsyncIterator[Counting]:
    yield Counting()


def make_app(verifier: Any, issuer: str) -> HttpApp:
    app = Server("jwt-protected")

    @app.tool
    def whoami(ctx: Context) -> str:
        principal = ctx.principal
        return f"{principal.subject} {' '.join(sorted(principal.scopes))} {principal.claims['aud']}"

    @app.tool(scopes=["mcp:admin"])
    def purge() -> str:
        return "purged"

    @app.tool
    def key(ctx: Context) -> str:
        return str(identity(ctx.principal))

    return app.http_app(auth=BearerAuth(verifier, [issuer], resource=RESOURCE))


def verifier_for(provider: Provider, transport: Counting | None = None, **options: Any) -> Any:
    http = httpx2.AsyncClient(transport=transport) if transport is not None else None
    return JwtVerifier(issuer=provider.issuer, audience=RESOURCE, http=http, **options)


def call(name: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": STATELESS_META},
    }


STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def call_with(http: HttpApp, token: str, tool: str = "whoami") -> Any:
    headers = {
        "authorization": f"Bearer {token}",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": tool,
    }
    return await request(http, body=call(tool), headers=headers, revision="2026-07-28")


def claims_of(token: str) -> dict[str, Any]:
    claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return claims


def text_of(answer: Any) -> str:
    text: str = answer.json()["result"]["content"][0]["text"]
    return text


async def test_a_valid_token_for_this_resource_is_accepted(provider: Provider) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    token = provider.token(RESOURCE)
    assert claims_of(token)["aud"] == RESOURCE
    answer = await call_with(http, token)
    assert answer.status == 200
    assert text_of(answer) == f"jwt-client mcp:read {RESOURCE}"


async def test_a_client_id_without_sub_never_passes_for_a_sub_of_the_same_text(
    provider: Provider,
) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    token = provider.token(RESOURCE)
    # oidc-provider names the client in `sub`, as RFC 9068 asks: the server's own name for it.
    assert claims_of(token)["sub"] == claims_of(token)["client_id"] == "jwt-client"
    answer = await call_with(http, token, "key")
    assert (answer.status, text_of(answer)) == (200, "sub:jwt-client")
    # Without `sub`, the client_id is the subject, never equal to a `sub` of the same text.
    user = principal_of({"sub": "jwt-client", "scope": "mcp"}, None)
    client = principal_of({"client_id": "jwt-client", "scope": "mcp"}, None)
    assert user is not None and client is not None
    assert (user.subject, user.client, user.key) == ("jwt-client", False, "sub:jwt-client")
    assert (client.subject, client.client) == ("jwt-client", True)
    assert client.key == "client_id:jwt-client"


async def test_a_token_for_another_resource_is_refused(provider: Provider) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    token = provider.token("http://127.0.0.1:8000/other-mcp")
    answer = await call_with(http, token)
    assert answer.status == 401
    assert answer.headers["www-authenticate"] == INVALID
    assert orjson.loads(answer.body) == {
        "error": "invalid_token",
        "error_description": "the token is invalid or expired",
    }


async def test_expiry_is_checked_with_the_leeway_on_the_injected_clock(
    provider: Provider,
) -> None:
    clock = Clock()
    http = make_app(verifier_for(provider, leeway=30, clock=clock), provider.issuer)
    token = provider.token(RESOURCE)
    exp = claims_of(token)["exp"]
    clock.now = exp + 29
    assert (await call_with(http, token)).status == 200
    clock.now = exp + 31
    expired = await call_with(http, token)
    assert expired.status == 401
    assert expired.headers["www-authenticate"] == INVALID


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def test_a_forged_signature_is_refused(provider: Provider) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    real = provider.token(RESOURCE, "mcp:read")
    claims = {**claims_of(real), "scope": "mcp:read mcp:admin"}
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = jwt.encode(
        claims, other_key, algorithm="RS256", headers={"kid": provider.kid, "typ": "at+jwt"}
    )
    # The same claims signed by another key under the issuer's kid, and unsigned ("none").
    head = b64(json.dumps({"alg": "none", "kid": provider.kid}).encode())
    unsigned = f"{head}.{real.split('.')[1]}."
    tampered = real.split(".")
    tampered[1] = b64(json.dumps(claims).encode())
    for token in (forged, unsigned, ".".join(tampered)):
        answer = await call_with(http, token, "purge")
        assert answer.status == 401
        assert answer.headers["www-authenticate"] == INVALID
    assert (await call_with(http, real)).status == 200


async def test_a_rotated_key_is_fetched_once_and_unknown_kids_are_rate_limited(
    provider: Provider, fetched: Counting
) -> None:
    clock = Clock()
    verifier = verifier_for(provider, fetched, clock=clock, refetch_interval=60)
    http = make_app(verifier, provider.issuer)
    assert (await call_with(http, provider.token(RESOURCE))).status == 200
    discovery = ["/.well-known/oauth-authorization-server", "/jwks"]
    assert fetched.paths == discovery
    old_kid = provider.kid
    provider.restart()  # a new signing key, a new kid
    assert provider.kid != old_kid
    rotated = provider.token(RESOURCE)
    assert jwt.get_unverified_header(rotated)["kid"] == provider.kid
    assert (await call_with(http, rotated)).status == 200
    assert fetched.paths == [*discovery, "/jwks"]
    # A kid the issuer never published: no second fetch within the interval.
    unknown = jwt.encode(
        claims_of(rotated),
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
        algorithm="RS256",
        headers={"kid": "never-published"},
    )
    for _ in range(3):
        refused = await call_with(http, unknown)
        assert refused.status == 401
        assert refused.headers["www-authenticate"] == INVALID
    assert fetched.paths == [*discovery, "/jwks"]
    clock.now += 60
    assert (await call_with(http, unknown)).status == 401
    assert fetched.paths == [*discovery, "/jwks", "/jwks"]
    assert (await call_with(http, rotated)).status == 200  # the cache still serves


async def test_a_missing_scope_on_a_scoped_tool_is_403_naming_the_scope(
    provider: Provider,
) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    weak = await call_with(http, provider.token(RESOURCE, "mcp:read"), "purge")
    assert weak.status == 403
    assert weak.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="{METADATA}",'
        ' error_description="the token lacks scope mcp:admin"'
    )
    strong = await call_with(http, provider.token(RESOURCE, "mcp:read mcp:admin"), "purge")
    assert (strong.status, text_of(strong)) == (200, "purged")


async def test_an_issuer_whose_metadata_names_another_issuer_is_refused(
    provider: Provider,
) -> None:
    wrong = JwtVerifier(issuer=provider.issuer + "/tenant", audience=RESOURCE)
    http = make_app(wrong, provider.issuer)
    answer = await call_with(http, provider.token(RESOURCE))
    assert answer.status == 401
    assert answer.headers["www-authenticate"] == INVALID


def test_only_asymmetric_algorithms_can_be_configured() -> None:
    with pytest.raises(ValueError, match=r"only asymmetric algorithms .* not \['HS256'\]"):
        JwtVerifier(issuer="https://as.example.com", audience=RESOURCE, algorithms=["HS256"])
    with pytest.raises(ValueError, match="canonical resource URI"):
        JwtVerifier(issuer="https://as.example.com", audience="")
