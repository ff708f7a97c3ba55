"""OAuth: the httpx2 Auth that logs `Client.http` in. A request goes out with the stored token
(refreshed first when it has expired); a 401 starts a login (discovery, the client's identity,
the grant), a 403 `insufficient_scope` a step-up for the union of the scopes, each retried
once per login and at most `max_logins` times per request. One login at a time per client:
concurrent requests that were refused wait for it and retry with its token."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2

from plainmcp.client.oauth import endpoint_auth, scopes
from plainmcp.client.oauth.challenge import Challenge, bearer
from plainmcp.client.oauth.dpop import NONCE_ERROR, DPoPKey
from plainmcp.client.oauth.endpoint_auth import TokenEndpointAuth
from plainmcp.client.oauth.errors import TokenError
from plainmcp.client.oauth.grants import AuthorizationCode, Grant
from plainmcp.client.oauth.identity import ClientMetadata, RegisteredClient
from plainmcp.client.oauth.login import Login, discover, register
from plainmcp.client.oauth.metadata import ServerMetadata
from plainmcp.client.oauth.redirect import RedirectHandler
from plainmcp.client.oauth.store import MemoryTokenStore, TokenStore
from plainmcp.client.oauth.tokens import Token

ClientAuth = Callable[[RegisteredClient, ServerMetadata], TokenEndpointAuth]
"""Builds the client's token endpoint authentication for the server a login found."""


def server_key(url: httpx2.URL | str) -> str:
    """The server a request is for, as the store keys it: its URL without query or fragment."""
    parts = urlsplit(str(url))
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


@dataclass(frozen=True)
class Credentials:
    """What one server's login left: the token, the client it was issued to, and where to
    refresh it (the issuer's token endpoint, the resource, the scopes asked for)."""

    token: Token | None
    client: RegisteredClient
    issuer: str
    token_endpoint: str
    resource: str | None
    scopes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "token": self.token.to_json() if self.token is not None else None,
            "client": self.client.to_json(),
            "issuer": self.issuer,
            "token_endpoint": self.token_endpoint,
            "resource": self.resource,
            "scopes": list(self.scopes),
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Credentials:
        token = doc.get("token")
        return cls(
            token=Token.from_json(token) if token else None,
            client=RegisteredClient.from_json(doc["client"]),
            issuer=str(doc["issuer"]),
            token_endpoint=str(doc["token_endpoint"]),
            resource=doc.get("resource"),
            scopes=tuple(doc.get("scopes") or ()),
        )


class OAuth(httpx2.Auth):
    """Logs in to MCP servers on their 401: `Client.http(url, auth=OAuth())`.

    `redirect`: where the user signs in (default: a loopback redirect on 127.0.0.1 that opens
    the browser); `grant`: how a token is obtained (default: the authorization code grant
    through `redirect`). The client's identity: `client_id` (and `client_secret`,
    `client_auth_method`) registered beforehand; else `client_metadata_url`, this client's
    metadata document URL, used as its id where the server supports CIMD; else dynamic
    registration with `client_metadata`. `scopes`: asked for instead of the server's choice.
    `store`: credentials by server URL (default: in memory). `transport`: the HTTP transport
    of the OAuth requests (tests). `clock`: seconds, for token expiry. `client_auth`: the
    client's authentication at a server's token endpoint instead of its secret (e.g.
    `PrivateKeyJwt.factory(...)`). `dpop`: a DPoPKey to ask for sender-constrained tokens
    with and present them by (RFC 9449), retrying once on a server's new nonce.
    """

    def __init__(
        self,
        *,
        redirect: RedirectHandler | None = None,
        grant: Grant | None = None,
        store: TokenStore | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_auth_method: str | None = None,
        client_metadata_url: str | None = None,
        client_metadata: ClientMetadata | None = None,
        scopes: tuple[str, ...] | None = None,
        max_logins: int = 3,
        transport: httpx2.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
        client_auth: ClientAuth | None = None,
        dpop: DPoPKey | None = None,
    ) -> None:
        self.grant: Grant = grant if grant is not None else AuthorizationCode(redirect)
        self.store: TokenStore = store if store is not None else MemoryTokenStore()
        self.client_id = client_id
        self.client_secret = client_secret
        self.client_auth_method = client_auth_method
        self.client_metadata_url = client_metadata_url
        self.client_metadata = client_metadata or ClientMetadata()
        self.scopes = scopes
        self.max_logins = max_logins
        self.transport = transport
        self.timeout = timeout
        self.clock = clock
        self.client_auth = client_auth
        self.dpop = dpop
        self._credentials: dict[str, Credentials | None] = {}
        self._lock = anyio.Lock()

    # --- the flow ------------------------------------------------------------------------------

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        key = server_key(request.url)
        async with self._lock:
            current = await self._current(key)
        sent = self._present(request, current)
        response = yield request
        if self._nonce_retry(request, response, current):
            response = yield request
        logins = 0
        fresh = False  # the token just sent comes from a login of this request
        while logins < self.max_logins:
            challenge = self._challenge(response)
            step_up = (
                response.status_code == 403
                and challenge is not None
                and challenge.error == "insufficient_scope"
            )
            if response.status_code != 401 and not step_up:
                return
            async with self._lock:
                current = self._credentials.get(key)
                token = current.token if current is not None else None
                if token is not None and token.access_token != sent and not step_up:
                    pass  # another request logged in meanwhile: retry with its token
                elif step_up:
                    assert challenge is not None
                    asked = current.scopes if current is not None else ()
                    wanted = challenge.scope or ()
                    if token is None or token.access_token == sent:
                        if scopes.covers(asked, wanted):
                            return  # these scopes were asked for already: again won't help
                        current = await self._login(key, challenge, scopes.union(asked, wanted))
                        logins += 1
                        fresh = True
                elif fresh:
                    return  # refused a token just obtained: a new login would be refused too
                else:
                    refreshed = await self._refresh(key, current) if token is not None else None
                    if refreshed is not None:
                        current = refreshed
                    else:
                        current = await self._login(key, challenge, None)
                        logins += 1
                    fresh = True
            sent = self._present(request, current)
            response = yield request
            if self._nonce_retry(request, response, current):
                response = yield request

    def _challenge(self, response: httpx2.Response) -> Challenge | None:
        values = response.headers.get_list("www-authenticate")
        found = bearer(values, "dpop") if self.dpop is not None else None
        return found if found is not None else bearer(values)

    def _nonce_retry(
        self, request: httpx2.Request, response: httpx2.Response, current: Credentials | None
    ) -> bool:
        """A DPoP server's 401 use_dpop_nonce with a new nonce: the request re-proved with
        it, to send once more (RFC 9449 §9)."""
        if self.dpop is None or response.status_code != 401:
            return False
        challenge = bearer(response.headers.get_list("www-authenticate"), "dpop")
        if challenge is None or challenge.error != NONCE_ERROR:
            return False
        if not self.dpop.learn(str(request.url), response.headers.get("dpop-nonce")):
            return False
        self._present(request, current)
        return True

    def present(self, request: httpx2.Request, token: Token) -> None:
        """Put the token on a request (RFC 6750 §2.1); extensions bind theirs (DPoP)."""
        if self.dpop is not None and token.token_type.lower() == "dpop":
            request.headers["authorization"] = f"DPoP {token.access_token}"
            request.headers["dpop"] = self.dpop.proof(
                request.method, str(request.url), token.access_token
            )
            return
        request.headers["authorization"] = f"Bearer {token.access_token}"

    def _present(self, request: httpx2.Request, current: Credentials | None) -> str | None:
        if current is None or current.token is None:
            request.headers.pop("authorization", None)
            return None
        self.present(request, current.token)
        return current.token.access_token

    # --- credentials ---------------------------------------------------------------------------

    async def _current(self, key: str) -> Credentials | None:
        """This server's credentials (loaded from the store once), an expired token refreshed
        or dropped."""
        if key not in self._credentials:
            stored = await self.store.load(key)
            try:
                self._credentials[key] = Credentials.from_json(stored) if stored else None
            except (KeyError, TypeError, ValueError):
                self._credentials[key] = None
        current = self._credentials[key]
        token = current.token if current is not None else None
        if current is not None and token is not None and token.expired(self.clock()):
            refreshed = await self._refresh(key, current)
            current = refreshed or replace(current, token=None)
            self._credentials[key] = current
        return current

    async def _save(self, key: str, credentials: Credentials) -> Credentials:
        self._credentials[key] = credentials
        await self.store.save(key, credentials.to_json())
        return credentials

    async def forget(self, key: str) -> None:
        """Drop a server's credentials here and in the store (`plainmcp logout`)."""
        self._credentials.pop(key, None)
        await self.store.delete(key)

    @contextlib.asynccontextmanager
    async def _http(self) -> AsyncIterator[httpx2.AsyncClient]:
        async with httpx2.AsyncClient(
            transport=self.transport, timeout=self.timeout, follow_redirects=False
        ) as http:
            yield http

    async def _refresh(self, key: str, current: Credentials | None) -> Credentials | None:
        """The refresh token exchanged for a new token (RFC 6749 §6); None when there is none
        or the server refuses it (then a login follows)."""
        if current is None or current.token is None or current.token.refresh_token is None:
            return None
        server = ServerMetadata(issuer=current.issuer, token_endpoint=current.token_endpoint)
        async with self._http() as http:
            login = Login(
                http,
                server,
                current.client,
                current.resource,
                current.scopes,
                self.clock,
                self._client_auth(current.client, server),
                self.dpop,
            )
            try:
                token = await login.token_request(
                    {"grant_type": "refresh_token", "refresh_token": current.token.refresh_token},
                    previous_refresh=current.token.refresh_token,
                )
            except TokenError:
                return None
        return await self._save(key, replace(current, token=token))

    async def _login(
        self, key: str, challenge: Challenge | None, step_up: tuple[str, ...] | None
    ) -> Credentials:
        """Discovery, the client's identity at the server found, the grant; saved."""
        previous = self._credentials.get(key)
        async with self._http() as http:
            found = await discover(http, key, challenge)
            server = found.server
            client = await self._identify(http, server, previous)
            if step_up is not None:
                asked = scopes.select(step_up, None, server.scopes_supported)
            elif self.scopes is not None:
                asked = self.scopes
            else:
                asked = scopes.select(
                    challenge.scope if challenge is not None else None,
                    found.resource.scopes_supported if found.resource is not None else None,
                    server.scopes_supported,
                )
            resource = found.resource_indicator(key)
            auth = self._client_auth(client, server)
            login = Login(http, server, client, resource, asked, self.clock, auth, self.dpop)
            token = await self.grant.obtain(login)
        return await self._save(
            key, Credentials(token, client, server.issuer, server.token_endpoint, resource, asked)
        )

    def _client_auth(
        self, client: RegisteredClient, server: ServerMetadata
    ) -> TokenEndpointAuth | None:
        return self.client_auth(client, server) if self.client_auth is not None else None

    async def _identify(
        self, http: httpx2.AsyncClient, server: ServerMetadata, previous: Credentials | None
    ) -> RegisteredClient:
        """Pre-registered, else the registration this issuer made before (never another
        issuer's), else the CIMD URL where supported, else a new registration."""
        if self.client_id is not None:
            method = self.client_auth_method or endpoint_auth.choose(
                server.token_endpoint_auth_methods_supported, self.client_secret is not None
            )
            return RegisteredClient(self.client_id, self.client_secret, method, None)
        if previous is not None and previous.client.issuer == server.issuer:
            return previous.client
        if self.client_metadata_url is not None and server.client_id_metadata_document_supported:
            return RegisteredClient(self.client_metadata_url, None, "none", server.issuer)
        return await register(http, server, self.grant.metadata(self.client_metadata))
