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
async (Redis), so the grant flow is written here on top of those pieces.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx2
import jwt

from plainmcp.authorization import authorize, consent, grants, metadata, tokens
from plainmcp.authorization import clients as rules
from plainmcp.authorization.cimd import (
    FetchPolicy,
    MetadataDocuments,
    MetadataError,
    is_document_id,
)
from plainmcp.authorization.clients import Client, Registered, RegistrationError
from plainmcp.authorization.messages import (
    NO_STORE,
    Repeated,
    Request,
    Response,
    error_page,
    json_response,
    oauth_error,
    redirect,
    single,
    with_query,
)
from plainmcp.authorization.providers import Upstream
from plainmcp.authorization.store import AuthStore, MemoryAuthStore
from plainmcp.authorization.tokens import Grant, LocalVerifier, SigningKey
from plainmcp.authorization.upstream import UpstreamError, authorization_url, log_in

log = logging.getLogger("plainmcp.authorization")

WELL_KNOWN = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")


class AuthorizationServer:
    """`app.http_app(authorization=AuthorizationServer(issuer=..., upstream=...))`.

    `issuer`: this server's URL (where the MCP app is served, e.g. "https://mcp.example.com");
    its endpoints are under it. `resource`: the MCP endpoint the tokens are for (their `aud`;
    default: issuer + "/mcp"). `scopes`: the scopes it grants (default all of them when a
    client asks for none). `clients`: pre-registered clients. `store`: where its state lives
    (default: this process's memory; RedisAuthStore for many processes, which must then share
    `signing_key` too). `fetch_policy`: how Client ID Metadata Documents are fetched.
    `clock`: Unix seconds (tests pass their own).
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
        registration: bool = True,
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
        self.issuer = issuer.rstrip("/")
        self.base = parts.path.rstrip("/")
        self.resource = resource or f"{self.issuer}/mcp"
        self.upstream = upstream
        self.scopes = tuple(scopes)
        self.store: AuthStore = store if store is not None else MemoryAuthStore(clock)
        self.key = signing_key or SigningKey()
        self.registration = registration
        self.fetch_policy = fetch_policy or FetchPolicy()
        self.ttl = {
            "access": access_token_ttl,
            "refresh": refresh_token_ttl,
            "code": code_ttl,
            "login": login_ttl,
            "client": registration_ttl,
        }
        self.clock = clock
        self._http = http
        self._own_http = http is None
        self.preregistered = {c.client_id: c.registered() for c in clients}
        self.metadata = metadata.document(self.issuer, self.scopes, registration)
        self.callback_uri = f"{self.issuer}/oauth/callback"
        self.secure_cookie = parts.scheme == "https"
        self.routes: dict[str, Callable[[Request], Any]] = {
            f"{self.base}/authorize": self._authorize,
            f"{self.base}/authorize/consent": self._consent,
            f"{self.base}/oauth/callback": self._callback,
            f"{self.base}/token": self._token,
            f"{self.base}/revoke": self._revoke,
            f"{self.base}/jwks": self._jwks,
        }
        if registration:
            self.routes[f"{self.base}/register"] = self._register
        for known in WELL_KNOWN:
            self.routes[f"{known}{self.base}"] = self._metadata
        self.routes[f"{self.base}/.well-known/openid-configuration"] = self._metadata

    # --- what the HTTP app asks ---------------------------------------------------------------

    def serves(self, path: str) -> bool:
        return path in self.routes

    def verifier(self) -> LocalVerifier:
        """The MCP endpoint's `verify`: this server's tokens for its resource."""
        return LocalVerifier(
            self.key, self.issuer, self.resource, self.store, self.clock, self.aclose
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
        allowed = "POST" if route not in (self._metadata, self._jwks) else "GET"
        if route in (self._authorize, self._callback):
            allowed = "GET"
        if request.method != allowed:
            return Response(405, (("allow", allowed),), b"Method Not Allowed")
        try:
            result: Response = await route(request)
        except Repeated as exc:
            return oauth_error(400, "invalid_request", str(exc))
        return result

    # --- metadata -----------------------------------------------------------------------------

    async def _metadata(self, request: Request) -> Response:
        return json_response(200, self.metadata)

    async def _jwks(self, request: Request) -> Response:
        return json_response(200, {"keys": [self.key.jwk]})

    # --- clients ------------------------------------------------------------------------------

    async def client(self, client_id: str) -> Registered | None:
        """The client `client_id` names: pre-registered, registered here, or described by its
        metadata document. None when unknown (or its document is unusable, logged)."""
        known = self.preregistered.get(client_id)
        if known is not None:
            return known
        if is_document_id(client_id, self.fetch_policy):
            try:
                return await MetadataDocuments(self.store, self.fetch_policy, self.http).client(
                    client_id
                )
            except MetadataError as exc:
                log.info("client metadata document refused: %s", exc)
                return None
        record = await self.store.get("client", client_id)
        return None if record is None else Registered.from_record(record)

    async def _register(self, request: Request) -> Response:
        try:
            document = request.json()
        except ValueError:
            return oauth_error(400, "invalid_client_metadata", "the body is not JSON")
        try:
            claims = rules.validated_metadata(document)
        except RegistrationError as exc:
            return oauth_error(400, exc.error, str(exc))
        method = str(claims["token_endpoint_auth_method"])
        secret = secrets.token_urlsafe(32) if method != "none" else None
        client = Registered(
            f"mcp-{secrets.token_urlsafe(16)}",
            tuple(claims["redirect_uris"]),
            method,
            rules.secret_hash(secret) if secret else None,
            claims.get("client_name"),
            declared_scope=claims.get("scope"),
        )
        await self.store.put("client", client.client_id, client.record(), self.ttl["client"])
        answer: dict[str, Any] = {
            **{k: v for k, v in claims.items() if k not in ("client_secret",)},
            "client_id": client.client_id,
            "client_id_issued_at": int(self.clock()),
            "redirect_uris": list(client.redirect_uris),
            "token_endpoint_auth_method": method,
            "grant_types": claims.get("grant_types", list(rules.GRANT_TYPES)),
            "response_types": ["code"],
        }
        if secret:
            answer["client_secret"] = secret
            answer["client_secret_expires_at"] = 0
        return json_response(201, answer, NO_STORE)

    # --- the login ----------------------------------------------------------------------------

    async def _authorize(self, request: Request) -> Response:
        client_id = authorize.client_of(request.query)
        if isinstance(client_id, Response):
            return client_id
        client = await self.client(client_id)
        checked = authorize.validate(
            request.query,
            client,
            issuer=self.issuer,
            resource=self.resource,
            scopes=self.scopes,
        )
        if isinstance(checked, Response):
            return checked
        login, csrf = tokens.opaque(), tokens.opaque()
        record = {**_asdict(checked), "csrf": csrf}
        await self.store.put("login", tokens.digest(login), record, self.ttl["login"])
        page = consent.consent_page(
            checked,
            client.client_name if client else None,
            login,
            csrf,
            f"{self.base}/authorize/consent",
        )
        cookie = consent.cookie(csrf, self.base or "/", self.secure_cookie)
        return Response(page.status, (*page.headers, cookie), page.body)

    async def _consent(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and origin.rstrip("/") != _origin(self.issuer):
            return error_page(403, "the consent came from another site")
        login = single(request.form, "login")
        csrf = single(request.form, "csrf")
        record = await self.store.take("login", tokens.digest(login)) if login else None
        if record is None:
            return error_page(400, "this login is unknown or has expired: start again")
        cookie = consent.cookie_value(request.headers.get("cookie"))
        if (
            not csrf
            or not cookie
            or not (
                secrets.compare_digest(csrf, record["csrf"])
                and secrets.compare_digest(cookie, record["csrf"])
            )
        ):
            return error_page(403, "the consent is not from the browser that was asked")
        if single(request.form, "decision") != "allow":
            return self._back(record, {"error": "access_denied", "error_description": "denied"})
        state, verifier = tokens.opaque(), tokens.opaque()
        await self.store.put(
            "upstream", tokens.digest(state), {**record, "verifier": verifier}, self.ttl["login"]
        )
        return redirect(authorization_url(self.upstream, self.callback_uri, state, verifier))

    async def _callback(self, request: Request) -> Response:
        state = single(request.query, "state")
        record = await self.store.take("upstream", tokens.digest(state)) if state else None
        if record is None:
            return error_page(400, "this login is unknown or has expired: start again")
        cookie = consent.cookie_value(request.headers.get("cookie"))
        if not cookie or not secrets.compare_digest(cookie, record["csrf"]):
            return error_page(403, "the login did not start in this browser")
        issuer = single(request.query, "iss")
        if issuer is not None and issuer != self.upstream.issuer:
            # RFC 9207 §2.4: a response from another provider (a mix-up attack): refused.
            log.warning("upstream callback refused: iss is not %s", self.upstream.issuer)
            return self._back(
                record, {"error": "access_denied", "error_description": "wrong issuer"}
            )
        if single(request.query, "error") is not None:
            return self._back(
                record,
                {"error": "access_denied", "error_description": "the login was refused"},
            )
        code = single(request.query, "code")
        if not code:
            return self._back(record, {"error": "server_error", "error_description": "no code"})
        try:
            identity = await log_in(
                self.http, self.upstream, code, self.callback_uri, record["verifier"]
            )
        except (UpstreamError, httpx2.HTTPError) as exc:
            log.warning("upstream login failed: %s", exc)
            return self._back(
                record, {"error": "server_error", "error_description": "the login failed"}
            )
        ours = tokens.opaque()
        grant = {k: record[k] for k in ("client_id", "redirect_uri", "code_challenge", "scope")}
        grant.update(resource=record["resource"], subject=identity.subject)
        await self.store.put("code", tokens.digest(ours), grant, self.ttl["code"])
        return self._back(record, {"code": ours})

    def _back(self, record: Mapping[str, Any], params: dict[str, str]) -> Response:
        """The redirect to the client's (verified) redirect URI, with its state and our iss."""
        return redirect(
            with_query(
                str(record["redirect_uri"]),
                {**params, "state": str(record["state"]), "iss": self.issuer},
            )
        )

    # --- the token endpoint -------------------------------------------------------------------

    async def _authenticated(self, request: Request) -> Registered | Response:
        form = {name: single(request.form, name) for name in ("client_id", "client_secret")}
        try:
            client_id, secret, method = rules.presented_credentials(request.headers, form)
        except ValueError as exc:
            return oauth_error(400, "invalid_request", str(exc))
        if not client_id:
            return oauth_error(401, "invalid_client", "no client authentication")
        client = await self.client(client_id)
        if client is None or not rules.authenticates(client, secret, method):
            return oauth_error(
                401,
                "invalid_client",
                "the client is unknown or its authentication failed",
                (("www-authenticate", 'Basic realm="token"'),) if method != "none" else (),
            )
        return client

    async def _token(self, request: Request) -> Response:
        client = await self._authenticated(request)
        if isinstance(client, Response):
            return client
        grant_type = single(request.form, "grant_type")
        resources = request.form.get("resource", [])
        if len(resources) > 1 or (resources and resources[0] != self.resource):
            return oauth_error(400, "invalid_target", f"tokens are for {self.resource} only")
        if grant_type == "authorization_code":
            return await self._redeem_code(request, client)
        if grant_type == "refresh_token":
            return await self._refresh(request, client)
        return oauth_error(400, "unsupported_grant_type", f"grant_type {grant_type!r}")

    async def _redeem_code(self, request: Request, client: Registered) -> Response:
        code = single(request.form, "code")
        # Taken at once, whatever follows: a code is tried once, by whoever presents it.
        record = await self.store.take("code", tokens.digest(code)) if code else None
        if record is None:
            return oauth_error(400, "invalid_grant", "the code is unknown, used or expired")
        problem = grants.code_problem(
            record,
            client.client_id,
            single(request.form, "redirect_uri"),
            single(request.form, "code_verifier"),
            single(request.form, "resource"),
        )
        if problem:
            log.warning("authorization code refused for client %s: %s", client.client_id, problem)
            return oauth_error(400, "invalid_grant", problem)
        grant = Grant(record["subject"], client.client_id, record["scope"], record["resource"])
        return await self._issue(grant, family=tokens.opaque())

    async def _refresh(self, request: Request, client: Registered) -> Response:
        presented = single(request.form, "refresh_token")
        if not presented:
            return oauth_error(400, "invalid_request", "refresh_token is missing")
        key = tokens.digest(presented)
        record = await self.store.take("refresh", key)
        if record is None:
            spent = await self.store.get("spent", key)
            if spent is not None:
                # A rotated-out token used again: it leaked. The family's live token dies too
                # (RFC 9700 §4.14.2).
                await self._end_family(str(spent["family"]))
                log.warning("a used refresh token was presented again: its family is revoked")
            return oauth_error(400, "invalid_grant", "the refresh token is unknown or used")
        if record["client_id"] != client.client_id:
            return oauth_error(400, "invalid_grant", "the refresh token is another client's")
        scope = grants.narrowed_scope(record["scope"], single(request.form, "scope"))
        if scope is None:
            return oauth_error(400, "invalid_scope", "a refresh cannot add scopes")
        await self.store.put("spent", key, {"family": record["family"]}, self.ttl["refresh"])
        grant = Grant(record["subject"], client.client_id, scope, record["resource"])
        return await self._issue(grant, family=str(record["family"]), base_scope=record["scope"])

    async def _issue(self, grant: Grant, *, family: str, base_scope: str | None = None) -> Response:
        now = self.clock()
        access, _, _ = tokens.access_token(self.key, self.issuer, grant, now, self.ttl["access"])
        refresh = tokens.opaque()
        record = {
            "client_id": grant.client_id,
            "subject": grant.subject,
            "scope": base_scope or grant.scope,
            "resource": grant.resource,
            "family": family,
        }
        await self.store.put("refresh", tokens.digest(refresh), record, self.ttl["refresh"])
        live = {"live": tokens.digest(refresh)}
        await self.store.put("family", family, live, self.ttl["refresh"])
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": int(self.ttl["access"]),
            "refresh_token": refresh,
            "scope": grant.scope,
        }
        return json_response(200, body, NO_STORE)

    async def _end_family(self, family: str) -> None:
        live = await self.store.take("family", family)
        if live is not None:
            await self.store.delete("refresh", str(live["live"]))

    # --- revocation ---------------------------------------------------------------------------

    async def _revoke(self, request: Request) -> Response:
        """RFC 7009: the client's own token ends; any other token, or an unknown one, is
        answered 200 all the same (§2.2: nothing learned about tokens)."""
        client = await self._authenticated(request)
        if isinstance(client, Response):
            return client
        token = single(request.form, "token")
        if not token:
            return oauth_error(400, "invalid_request", "token is missing")
        hint = single(request.form, "token_type_hint")
        if hint != "access_token":
            record = await self.store.get("refresh", tokens.digest(token))
            if record is not None and record["client_id"] == client.client_id:
                await self._end_family(str(record["family"]))
                await self.store.delete("refresh", tokens.digest(token))
                return Response(200, NO_STORE)
        try:
            claims = tokens.decoded(self.key, self.issuer, None, token)
        except jwt.PyJWTError:  # not one of our JWTs: nothing to revoke
            return Response(200, NO_STORE)
        if claims.get("client_id") == client.client_id:
            left = float(claims["exp"]) - self.clock()
            if left > 0:
                await self.store.put("revoked", str(claims["jti"]), {}, left)
        return Response(200, NO_STORE)


def _asdict(request: authorize.AuthorizeRequest) -> dict[str, str]:
    return {
        "client_id": request.client_id,
        "redirect_uri": request.redirect_uri,
        "state": request.state,
        "code_challenge": request.code_challenge,
        "scope": request.scope,
        "resource": request.resource,
    }


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
