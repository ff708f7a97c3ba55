"""How a login gets its token, one small interface: a Grant adds what it needs to the client's
registration and obtains a Token through the Login (its server, client, resource, scopes and
token endpoint). The authorization code grant with PKCE is the built-in; extensions add
client credentials and the like."""

from __future__ import annotations

from typing import Protocol

from plainmcp.client.oauth.authorize import authorization_code, authorization_request
from plainmcp.client.oauth.identity import ClientMetadata
from plainmcp.client.oauth.login import Login
from plainmcp.client.oauth.redirect import LoopbackRedirect, RedirectHandler
from plainmcp.client.oauth.tokens import Token


class Grant(Protocol):
    """Obtains a token for a login; `metadata` is the client's registration, completed."""

    def metadata(self, base: ClientMetadata) -> ClientMetadata: ...

    async def obtain(self, login: Login) -> Token: ...


class AuthorizationCode:
    """The user signs in through `redirect` (a LoopbackRedirect unless given); PKCE S256,
    state and RFC 9207 `iss` checked (authorize.py) before the code is exchanged."""

    def __init__(self, redirect: RedirectHandler | None = None) -> None:
        self._redirect = redirect

    @property
    def redirect(self) -> RedirectHandler:
        if self._redirect is None:  # bound only when a login needs it
            self._redirect = LoopbackRedirect()
        return self._redirect

    def metadata(self, base: ClientMetadata) -> ClientMetadata:
        from dataclasses import replace

        return replace(base, redirect_uris=(self.redirect.redirect_uri,))

    async def obtain(self, login: Login) -> Token:
        request = authorization_request(
            login.server,
            login.client.client_id,
            self.redirect.redirect_uri,
            login.scopes,
            login.resource,
        )
        params = await self.redirect(request.url)
        code = authorization_code(params, request)
        return await login.token_request(
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": request.redirect_uri,
                "code_verifier": request.code_verifier,
            }
        )
