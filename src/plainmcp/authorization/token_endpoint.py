"""The token endpoint and revocation, machine to machine: a client authenticated, its code
or refresh token redeemed once (a refresh token rotated on every use, a reused one ending its
family: RFC 9700 §4.14.2), the proxy's access token and a new refresh token issued; /revoke
(RFC 7009) ending a client's own token. Ending a grant (a refresh token revoked, or reused)
ends its access tokens too: they name it (tokens.py), and its id is kept revoked as long as
they could live."""

from __future__ import annotations

import logging
from typing import Any

import jwt

from plainmcp.authorization import assertions, grants, tokens
from plainmcp.authorization import clients as rules
from plainmcp.authorization.clients import Registered
from plainmcp.authorization.directory import Directory
from plainmcp.authorization.messages import (
    NO_STORE,
    Request,
    Response,
    json_response,
    oauth_error,
    single,
)
from plainmcp.authorization.shared import Shared
from plainmcp.authorization.tokens import Grant

log = logging.getLogger("plainmcp.authorization")


class TokenEndpoint:
    def __init__(self, shared: Shared, directory: Directory) -> None:
        self.shared = shared
        self.directory = directory

    async def token(self, request: Request) -> Response:
        client = await self._authenticated(request)
        if isinstance(client, Response):
            return client
        grant_type = single(request.form, "grant_type")
        resources = request.form.get("resource", [])
        resource = self.shared.resource
        if len(resources) > 1 or (resources and resources[0] != resource):
            return oauth_error(400, "invalid_target", f"tokens are for {resource} only")
        if grant_type == "authorization_code":
            return await self._redeem_code(request, client)
        if grant_type == "refresh_token":
            return await self._refresh(request, client)
        return oauth_error(400, "unsupported_grant_type", f"grant_type {grant_type!r}")

    async def revoke(self, request: Request) -> Response:
        """RFC 7009: the client's own token ends; any other token, or an unknown one, is
        answered 200 all the same (§2.2: nothing learned about tokens)."""
        client = await self._authenticated(request)
        if isinstance(client, Response):
            return client
        token = single(request.form, "token")
        if not token:
            return oauth_error(400, "invalid_request", "token is missing")
        # token_type_hint is not needed: both kinds are looked for (§2.1 lets a server ignore it).
        store = self.shared.store
        key = tokens.digest(token)
        # A live refresh token, or one rotated out (still its grant's: a revocation racing a
        # refresh finds it spent, and the grant ends all the same).
        record = await store.get("refresh", key) or await store.get("spent", key)
        if record is not None:
            if record.get("client_id") == client.client_id:
                await self._end_grant(str(record["family"]))
                await store.delete("refresh", key)
            return Response(200, NO_STORE)
        try:
            claims = tokens.decoded(self.shared.accepted, self.shared.issuer, None, token)
        except jwt.PyJWTError:  # not one of our JWTs: nothing to revoke
            return Response(200, NO_STORE)
        if claims.get("client_id") == client.client_id:
            left = float(claims["exp"]) - self.shared.clock()
            if left > 0:
                await tokens.revoke_token(store, str(claims["jti"]), left)
        return Response(200, NO_STORE)

    async def _authenticated(self, request: Request) -> Registered | Response:
        names = ("client_id", "client_secret", "client_assertion", "client_assertion_type")
        form = {name: single(request.form, name) for name in names}
        try:
            assertion = assertions.presented_assertion(form)
            if assertion is not None:
                return await self._asserted(request, form, assertion)
            client_id, secret, method = rules.presented_credentials(request.headers, form)
        except ValueError as exc:
            return oauth_error(400, "invalid_request", str(exc))
        if not client_id:
            return oauth_error(401, "invalid_client", "no client authentication")
        client = await self.directory.client(client_id)
        if client is None or not rules.authenticates(client, secret, method):
            return oauth_error(
                401,
                "invalid_client",
                "the client is unknown or its authentication failed",
                (("www-authenticate", 'Basic realm="token"'),) if method != "none" else (),
            )
        return client

    async def _asserted(
        self, request: Request, form: dict[str, str | None], assertion: str
    ) -> Registered | Response:
        """The client a private_key_jwt assertion proves (and nothing else may be presented)."""
        if form["client_secret"] is not None or "authorization" in request.headers:
            raise ValueError("the client authenticated in two ways")
        client_id = form["client_id"] or assertions.claimed_client(assertion)
        client = await self.directory.client(client_id) if client_id else None
        if client is not None and client.jwks is not None:
            issuer = self.shared.issuer
            try:
                await assertions.verify(
                    assertion,
                    client.client_id,
                    client.jwks,
                    (issuer, f"{issuer}/token", f"{issuer}/revoke"),
                    self.shared.store,
                    self.shared.clock(),
                )
                return client
            except assertions.AssertionRefused as exc:
                log.warning("client assertion refused for %s: %s", client.client_id, exc)
        return oauth_error(
            401, "invalid_client", "the client is unknown or its authentication failed"
        )

    async def _redeem_code(self, request: Request, client: Registered) -> Response:
        code = single(request.form, "code")
        # Taken at once, whatever follows: a code is tried once, by whoever presents it.
        record = await self.shared.store.take("code", tokens.digest(code)) if code else None
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
        family = tokens.opaque()
        grant = Grant(
            record["subject"], client.client_id, record["scope"], record["resource"], family
        )
        return await self._issue(grant)

    async def _refresh(self, request: Request, client: Registered) -> Response:
        presented = single(request.form, "refresh_token")
        if not presented:
            return oauth_error(400, "invalid_request", "refresh_token is missing")
        store = self.shared.store
        key = tokens.digest(presented)
        record = await store.take("refresh", key)
        if record is None:
            spent = await store.get("spent", key)
            if spent is not None:
                # A rotated-out token used again: it leaked. The whole grant ends: its live
                # refresh token and its access tokens.
                await self._end_grant(str(spent["family"]))
                log.warning("a used refresh token was presented again: its grant is revoked")
            return oauth_error(400, "invalid_grant", "the refresh token is unknown or used")
        family = str(record["family"])
        spent = {"family": family, "client_id": record["client_id"]}
        await store.put("spent", key, spent, self.shared.ttl.refresh)
        if record["client_id"] != client.client_id:
            return oauth_error(400, "invalid_grant", "the refresh token is another client's")
        scope = grants.narrowed_scope(record["scope"], single(request.form, "scope"))
        if scope is None:
            return oauth_error(400, "invalid_scope", "a refresh cannot add scopes")
        grant = Grant(record["subject"], client.client_id, scope, record["resource"], family)
        return await self._issue(grant, base_scope=record["scope"])

    async def _issue(self, grant: Grant, *, base_scope: str | None = None) -> Response:
        shared = self.shared
        ttl = shared.ttl
        access, _, _ = tokens.access_token(
            shared.key, shared.issuer, grant, shared.clock(), ttl.access
        )
        refresh = tokens.opaque()
        record = {
            "client_id": grant.client_id,
            "subject": grant.subject,
            "scope": base_scope or grant.scope,
            "resource": grant.resource,
            "family": grant.grant_id,
        }
        await shared.store.put("refresh", tokens.digest(refresh), record, ttl.refresh)
        live = {"live": tokens.digest(refresh)}
        await shared.store.put("family", grant.grant_id, live, ttl.refresh)
        if await tokens.grant_revoked(shared.store, grant.grant_id):
            # Revoked while this refresh ran: what was just stored ends with it (the
            # revocation marks the grant before it ends the family, so one of them sees the
            # other).
            await self._end_family(grant.grant_id)
            return oauth_error(400, "invalid_grant", "the grant was revoked")
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": int(ttl.access),
            "refresh_token": refresh,
            "scope": grant.scope,
        }
        return json_response(200, body, NO_STORE)

    async def _end_grant(self, family: str) -> None:
        """The grant's access tokens end (marked first), then its live refresh token."""
        await tokens.revoke_grant(self.shared.store, family, self.shared.ttl.access)
        await self._end_family(family)

    async def _end_family(self, family: str) -> None:
        live = await self.shared.store.take("family", family)
        if live is not None:
            await self.shared.store.delete("refresh", str(live["live"]))
