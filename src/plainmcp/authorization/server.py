"""AuthorizationServer: an OAuth 2.1 authorization server in front of an upstream identity
provider (an OAuth proxy), for MCP hosts that register themselves (DCR, or a Client ID
Metadata Document) with a provider that lets them do neither (GitHub, Google, Entra...).

A login: the host's /authorize (PKCE S256 and state required, its redirect URI matched
exactly) -> the consent page -> the upstream provider's login, with the proxy's own PKCE and
state -> the upstream's callback here -> a code back to the host with `iss` (RFC 9207) ->
/token: the proxy's own short-lived JWT for the MCP server's resource, and a refresh token
rotated on every use. Every step is `handle(Request) -> Response` on plain objects; its
state is in the store, so any process sharing it serves any step.

Authlib supplies the protocol pieces (PKCE S256, client metadata and server metadata
validation); its AuthorizationServer and grant classes are not used: their hooks (query the
code, save the token, authenticate the client) are synchronous, and this server's store is
async (Redis), so the grant flow is written in this package on top of those pieces: login.py
(the browser steps), token_endpoint.py (the token and revocation endpoints), directory.py (the
clients), each handed shared.py's Shared, never this server.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from urllib.parse import urlsplit

import httpx2

from plainmcp.authorization import clients as rules
from plainmcp.authorization import metadata
from plainmcp.authorization.cimd import FetchPolicy
from plainmcp.authorization.clients import Client
from plainmcp.authorization.directory import Directory
from plainmcp.authorization.limits import REGISTRATIONS, RateLimit
from plainmcp.authorization.login import Login
from plainmcp.authorization.messages import Repeated, Request, Response, json_response, oauth_error
from plainmcp.authorization.providers import Upstream
from plainmcp.authorization.shared import Lifetimes, Shared
from plainmcp.authorization.store import AuthStore, MemoryAuthStore
from plainmcp.authorization.token_endpoint import TokenEndpoint
from plainmcp.authorization.tokens import LocalVerifier, SigningKey

WELL_KNOWN = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")

Handler = Callable[[Request], Awaitable[Response]]


class AuthorizationServer:
    """`app.http_app(authorization=AuthorizationServer(issuer=..., upstream=...))`.

    `issuer`: this server's URL (where the MCP app is served, e.g. "https://mcp.example.com");
    its endpoints are under it. `resource`: the MCP endpoint the tokens are for (their `aud`;
    default: issuer + "/mcp"). `scopes`: the scopes it grants (default all of them when a
    client asks for none). `clients`: pre-registered clients. `store`: where its state lives
    (default: this process's memory; RedisAuthStore for many processes, which must then share
    `signing_key` too). `previous_keys`: keys `signing_key` replaced, still published and
    accepted until the tokens they signed have expired (a rotation: the new key signs, the old
    one verifies for an access token's lifetime, then goes). `fetch_policy`: how Client ID
    Metadata Documents are fetched.
    `registration_limit`: how many registrations one client address may make (None: no
    limit; behind a proxy every client has the proxy's address). `clock`: Unix seconds (tests
    pass their own).
    """

    def __init__(
        self,
        *,
        issuer: str,
        upstream: Upstream,
        resource: str | None = None,
        scopes: Sequence[str] = (),
        clients: Iterable[Client] = (),
        store: AuthStore | None = None,
        signing_key: SigningKey | None = None,
        previous_keys: Sequence[SigningKey] = (),
        registration: bool = True,
        registration_limit: RateLimit | None = REGISTRATIONS,
        fetch_policy: FetchPolicy | None = None,
        access_token_ttl: float = 900.0,
        refresh_token_ttl: float = 30 * 86400.0,
        code_ttl: float = 60.0,
        login_ttl: float = 600.0,
        registration_ttl: float = 365 * 86400.0,
        http: httpx2.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        parts = urlsplit(issuer)
        if parts.query or parts.fragment or not parts.hostname:
            raise ValueError("issuer must be an https URL with no query or fragment")
        if parts.scheme != "https" and not (
            parts.scheme == "http" and rules.is_loopback(parts.hostname)
        ):
            raise ValueError("issuer must use https (http only for a loopback host)")
        self._http = http
        self._own_http = http is None
        key = signing_key or SigningKey()
        self.shared = Shared(
            issuer=issuer.rstrip("/"),
            base=parts.path.rstrip("/"),
            resource=resource or f"{issuer.rstrip('/')}/mcp",
            scopes=tuple(scopes),
            store=store if store is not None else MemoryAuthStore(clock),
            key=key,
            accepted=(key, *(k for k in previous_keys if k.kid != key.kid)),
            ttl=Lifetimes(
                access_token_ttl, refresh_token_ttl, code_ttl, login_ttl, registration_ttl
            ),
            clock=clock,
            http=lambda: self.http,
        )
        self.upstream = upstream
        preregistered = {c.client_id: c.registered() for c in clients}
        self.directory = Directory(
            self.shared, preregistered, fetch_policy or FetchPolicy(), registration_limit
        )
        self.login = Login(self.shared, upstream, self.directory)
        self.tokens = TokenEndpoint(self.shared, self.directory)
        self.metadata = metadata.document(self.issuer, self.scopes, registration)
        base = self.base
        self.routes: dict[str, tuple[str, Handler]] = {
            f"{base}/authorize": ("GET", self.login.authorize),
            f"{base}/authorize/consent": ("POST", self.login.consent),
            f"{base}/oauth/callback": ("GET", self.login.callback),
            f"{base}/token": ("POST", self.tokens.token),
            f"{base}/revoke": ("POST", self.tokens.revoke),
            f"{base}/jwks": ("GET", self._jwks),
        }
        if registration:
            self.routes[f"{base}/register"] = ("POST", self.directory.register)
        for known in WELL_KNOWN:
            self.routes[f"{known}{base}"] = ("GET", self._metadata)
        self.routes[f"{base}/.well-known/openid-configuration"] = ("GET", self._metadata)

    # --- what the HTTP app asks ---------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self.shared.issuer

    @property
    def base(self) -> str:
        return self.shared.base

    @property
    def resource(self) -> str:
        return self.shared.resource

    @property
    def scopes(self) -> tuple[str, ...]:
        return self.shared.scopes

    @property
    def store(self) -> AuthStore:
        return self.shared.store

    @property
    def key(self) -> SigningKey:
        return self.shared.key

    @property
    def clock(self) -> Callable[[], float]:
        return self.shared.clock

    def serves(self, path: str) -> bool:
        return path in self.routes

    def verifier(self) -> LocalVerifier:
        """The MCP endpoint's `verify`: this server's tokens for its resource."""
        return LocalVerifier(
            self.shared.accepted, self.issuer, self.resource, self.store, self.clock, self.aclose
        )

    @property
    def http(self) -> httpx2.AsyncClient:
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=10.0)
        return self._http

    async def aclose(self) -> None:
        if self._own_http and self._http is not None:
            await self._http.aclose()
            self._http = None

    async def handle(self, request: Request) -> Response:
        route = self.routes.get(request.path)
        if route is None:
            return Response(404, (("content-type", "text/plain"),), b"Not Found")
        allowed, handler = route
        if request.method != allowed:
            return Response(405, (("allow", allowed),), b"Method Not Allowed")
        try:
            return await handler(request)
        except Repeated as exc:
            return oauth_error(400, "invalid_request", str(exc))

    async def _metadata(self, request: Request) -> Response:
        return json_response(200, self.metadata)

    async def _jwks(self, request: Request) -> Response:
        return json_response(200, {"keys": [k.jwk for k in self.shared.accepted]})
