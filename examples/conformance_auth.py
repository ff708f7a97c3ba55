"""The conformance suite's client authorization scenarios, each as a host would run it: connect
with `Client.http(url, auth=OAuth(...))`, list the tools and call the one the scenario's server
has. examples/conformance_client.py dispatches the names in SCENARIOS.

The suite's authorization server redirects at once (no user), so the redirect handler follows
the authorization URL headlessly and reads the code from the redirect's Location. The context
(MCP_CONFORMANCE_CONTEXT) carries a pre-registered client's id and secret when a scenario has
one. Where the authorization server supports Client ID Metadata Documents, the client's id is
the suite's metadata document URL.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx2

from plainmcp.client import Client
from plainmcp.client.oauth import AuthorizationError, OAuth

CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
"""The client id the suite expects where CIMD is supported (auth/basic-cimd)."""


class HeadlessRedirect:
    """A redirect handler without a browser: GET the authorization URL, read its redirect."""

    redirect_uri = "http://127.0.0.1:3334/callback"

    async def __call__(self, authorization_url: str) -> Mapping[str, str]:
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            answer = await http.get(authorization_url)
        location = answer.headers.get("location")
        if not answer.is_redirect or not location:
            raise AuthorizationError(f"the authorization endpoint answered {answer.status_code}")
        return dict(parse_qsl(urlsplit(location).query, keep_blank_values=True))


def oauth(context: Mapping[str, Any]) -> OAuth:
    """The host's OAuth: pre-registered when the context says so, else CIMD or DCR."""
    return OAuth(
        redirect=HeadlessRedirect(),
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
    )


async def log_in_and_use(server_url: str, context: dict[str, Any]) -> None:
    """Connect (logging in on the 401), list the tools, call each one the server lists."""
    protocol = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "auto")
    async with Client.http(server_url, auth=oauth(context), protocol=protocol) as client:
        tools = await client.list_tools()
        print(f"tools: {[tool.name for tool in tools]}")
        for tool in tools:
            result = await client.call_tool(tool.name, {})
            print(f"called {tool.name}: {result.text}")


NAMES = (
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
)

SCENARIOS: dict[str, Callable[[str, dict[str, Any]], Awaitable[None]]] = dict.fromkeys(
    NAMES, log_in_and_use
)


# --- the authorization extensions (ext-auth): machine clients, no user ---------------------


async def client_credentials(server_url: str, context: dict[str, Any]) -> None:
    """A machine client (io.modelcontextprotocol/oauth-client-credentials): its secret, or a
    private_key_jwt assertion signed with its key when the context gives one."""
    from plainmcp.client.oauth.client_assertion import PrivateKeyJwt
    from plainmcp.client.oauth.client_credentials import ClientCredentials

    key = context.get("private_key_pem")
    auth = OAuth(
        grant=ClientCredentials(),
        client_id=context["client_id"],
        client_secret=context.get("client_secret"),
        client_auth=(
            PrivateKeyJwt.factory(key, context.get("signing_algorithm", "ES256")) if key else None
        ),
    )
    await use(server_url, auth)


async def workload_identity(server_url: str, context: dict[str, Any]) -> None:
    """Workload identity federation (io.modelcontextprotocol/auth/wif): the workload's JWT,
    as its platform would hand it over, exchanged with the JWT bearer grant."""
    from plainmcp.client.oauth.jwt_bearer import JwtBearer

    auth = OAuth(grant=JwtBearer(context["valid_jwt"]), client_id=context["client_id"])
    await use(server_url, auth)


async def use(server_url: str, auth: OAuth) -> None:
    """Connect with `auth`, list the tools, call each one."""
    protocol = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "auto")
    async with Client.http(server_url, auth=auth, protocol=protocol) as client:
        tools = await client.list_tools()
        print(f"tools: {[tool.name for tool in tools]}")
        for tool in tools:
            result = await client.call_tool(tool.name, {})
            print(f"called {tool.name}: {result.text}")


SCENARIOS["auth/client-credentials-basic"] = client_credentials
SCENARIOS["auth/client-credentials-jwt"] = client_credentials
SCENARIOS["auth/wif-jwt-bearer"] = workload_identity


async def enterprise_managed(server_url: str, context: dict[str, Any]) -> None:
    """Enterprise-managed authorization (io.modelcontextprotocol/enterprise-managed-
    authorization): the user's IdP ID token exchanged at the IdP for an ID-JAG, traded at the
    authorization server with the JWT bearer grant by the pre-registered client."""
    from plainmcp.client.oauth.jwt_bearer import JwtBearer
    from plainmcp.client.oauth.token_exchange import IdJagExchange

    exchange = IdJagExchange(
        context["idp_token_endpoint"], context["idp_id_token"], context["idp_client_id"]
    )
    auth = OAuth(
        grant=JwtBearer(source=exchange),
        client_id=context["client_id"],
        client_secret=context["client_secret"],
    )
    await use(server_url, auth)


SCENARIOS["auth/enterprise-managed-authorization"] = enterprise_managed
SCENARIOS["auth/cross-app-access-complete-flow"] = enterprise_managed  # 0.1.16's name for it


async def dpop(server_url: str, context: dict[str, Any]) -> None:
    """DPoP (io.modelcontextprotocol/auth/dpop): the host's usual login, its token bound to
    a key of the client's and presented with a fresh proof on every request."""
    from plainmcp.client.oauth.dpop import DPoPKey

    auth = OAuth(
        redirect=HeadlessRedirect(),
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
        dpop=DPoPKey(),
    )
    await use(server_url, auth)


SCENARIOS["auth/dpop"] = dpop
SCENARIOS["auth/dpop-nonce"] = dpop
