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
