"""The client credentials grant (RFC 6749 §4.4, OAuth 2.1 §4.2; the MCP extension
io.modelcontextprotocol/oauth-client-credentials): a machine client, no user, gets its token
by authenticating itself at the token endpoint (a secret, or private_key_jwt)."""

from __future__ import annotations

from dataclasses import replace

from plainmcp.client.oauth.identity import ClientMetadata
from plainmcp.client.oauth.login import Login
from plainmcp.client.oauth.tokens import Token


class ClientCredentials:
    """grant_type=client_credentials with the login's scopes (none named: the server's
    default) and resource."""

    def metadata(self, base: ClientMetadata) -> ClientMetadata:
        return replace(base, grant_types=("client_credentials",), redirect_uris=())

    async def obtain(self, login: Login) -> Token:
        form = {"grant_type": "client_credentials"}
        if login.scopes:
            form["scope"] = " ".join(login.scopes)
        return await login.token_request(form)
