"""Enterprise-managed authorization: the RFC 8693 exchange of the IdP's ID token for an
ID-JAG (the form exactly, the answer checked), then the JWT bearer grant with it."""

from __future__ import annotations

from urllib.parse import parse_qsl

import httpx2
import pytest

from plainmcp.client.oauth import Login, RegisteredClient, TokenError
from plainmcp.client.oauth.jwt_bearer import GRANT_TYPE as JWT_BEARER
from plainmcp.client.oauth.jwt_bearer import JwtBearer
from plainmcp.client.oauth.metadata import ServerMetadata
from plainmcp.client.oauth.token_exchange import (
    GRANT_TYPE,
    ID_JAG,
    ID_TOKEN,
    IdJagExchange,
    id_jag_request,
    issued_id_jag,
)

pytestmark = pytest.mark.anyio


def test_the_exchange_form_names_the_audience_and_resource() -> None:
    assert id_jag_request(
        "idt", "idp-client", "https://as.test", "https://mcp.test/mcp", ("a", "b")
    ) == {
        "grant_type": GRANT_TYPE,
        "requested_token_type": ID_JAG,
        "subject_token": "idt",
        "subject_token_type": ID_TOKEN,
        "audience": "https://as.test",
        "client_id": "idp-client",
        "resource": "https://mcp.test/mcp",
        "scope": "a b",
    }
    assert "scope" not in id_jag_request("idt", "c", "https://as.test", None, ())
    assert "resource" not in id_jag_request("idt", "c", "https://as.test", None, ())


def test_only_an_id_jag_is_taken() -> None:
    assert issued_id_jag(200, {"access_token": "jag", "issued_token_type": ID_JAG}) == "jag"
    with pytest.raises(TokenError) as other:
        issued_id_jag(200, {"access_token": "at", "issued_token_type": "urn:x:access_token"})
    assert other.value.error == "invalid_response"
    with pytest.raises(TokenError) as refused:
        issued_id_jag(400, {"error": "invalid_grant"})
    assert (refused.value.error, refused.value.status) == ("invalid_grant", 400)


async def test_the_id_jag_is_traded_with_the_jwt_bearer_grant() -> None:
    forms: dict[str, dict[str, str]] = {}

    def handle(request: httpx2.Request) -> httpx2.Response:
        forms[request.url.host] = dict(parse_qsl(request.content.decode()))
        if request.url.host == "idp.test":
            return httpx2.Response(200, json={"access_token": "jag", "issued_token_type": ID_JAG})
        return httpx2.Response(200, json={"access_token": "at"})

    server = ServerMetadata(issuer="https://as.test", token_endpoint="https://as.test/token")
    client = RegisteredClient("cid", "sec", "client_secret_basic", None)
    grant = JwtBearer(source=IdJagExchange("https://idp.test/token", "idt", "idp-client"))
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(handle)) as http:
        login = Login(http, server, client, "https://mcp.test/mcp", (), lambda: 0.0)
        token = await grant.obtain(login)
    assert token.access_token == "at"
    assert forms["idp.test"]["audience"] == "https://as.test"
    assert forms["as.test"] == {
        "grant_type": JWT_BEARER,
        "assertion": "jag",
        "resource": "https://mcp.test/mcp",
    }
