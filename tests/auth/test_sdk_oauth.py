"""The official Python SDK's OAuth client (client_credentials) against plainmcp and a real
authorization server: it discovers the protected resource metadata from the 401, the
authorization server from that, gets a token for this resource and calls; a tool needing
another scope answers 403 and the SDK steps up."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from tests.auth.provider import Provider
from tests.http_server import HttpServer, http_server

pytestmark = pytest.mark.anyio

SERVED = __file__.replace("test_sdk_oauth.py", "served_app.py")


class Memory(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@pytest.fixture
def served(provider: Provider) -> Iterator[HttpServer]:
    with http_server(SERVED, script=True, env={"PLAINMCP_TEST_ISSUER": provider.issuer}) as s:
        yield s


async def test_the_sdk_client_credentials_flow_completes_end_to_end(
    provider: Provider, served: HttpServer
) -> None:
    storage = Memory()
    oauth = ClientCredentialsOAuthProvider(
        server_url=served.url,
        storage=storage,
        client_id="jwt-client",
        client_secret="jwt-client-secret",
        scope="mcp:read",
        issuer=provider.issuer,
    )
    async with (
        httpx2.AsyncClient(auth=oauth, timeout=30) as http,
        Client(streamable_http_client(served.url, http_client=http), mode="legacy") as client,
    ):
        result = await client.call_tool("whoami", {})
        assert result.content[0].text == "jwt-client mcp:read"  # type: ignore[union-attr]
        assert storage.tokens is not None and storage.tokens.scope == "mcp:read"
        stepped = await client.call_tool("purge", {})
        assert stepped.content[0].text == "purged with mcp:admin mcp:read"  # type: ignore[union-attr]
        assert storage.tokens.scope == "mcp:read mcp:admin"
