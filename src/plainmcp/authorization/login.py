"""The login, in the browser: /authorize (the request checked, the consent page), the
consent's answer (on to the upstream provider, with the proxy's own PKCE and state) and the
upstream's callback (the user's identity, and a code back to the client with `iss`)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2

from plainmcp.authorization import authorize, consent, tokens
from plainmcp.authorization.directory import Directory
from plainmcp.authorization.messages import (
    Request,
    Response,
    error_page,
    redirect,
    single,
    with_query,
)
from plainmcp.authorization.providers import Upstream
from plainmcp.authorization.shared import Shared
from plainmcp.authorization.upstream import UpstreamError, authorization_url, log_in

log = logging.getLogger("plainmcp.authorization")


class Login:
    def __init__(self, shared: Shared, upstream: Upstream, directory: Directory) -> None:
        self.shared = shared
        self.upstream = upstream
        self.directory = directory
        self.consent_path = f"{shared.base}/authorize/consent"
        self.callback_uri = f"{shared.issuer}/oauth/callback"
        self.secure_cookie = urlsplit(shared.issuer).scheme == "https"

    async def authorize(self, request: Request) -> Response:
        client_id = authorize.client_of(request.query)
        if isinstance(client_id, Response):
            return client_id
        client = await self.directory.client(client_id)
        checked = authorize.validate(
            request.query,
            client,
            issuer=self.shared.issuer,
            resource=self.shared.resource,
            scopes=self.shared.scopes,
        )
        if isinstance(checked, Response):
            return checked
        login, csrf = tokens.opaque(), tokens.opaque()
        record = {**_asdict(checked), "csrf": csrf}
        await self.shared.store.put("login", tokens.digest(login), record, self.shared.ttl.login)
        page = consent.consent_page(
            checked, client.client_name if client else None, login, csrf, self.consent_path
        )
        cookie = consent.cookie(csrf, self.shared.base or "/", self.secure_cookie)
        return Response(page.status, (*page.headers, cookie), page.body)

    async def consent(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and origin.rstrip("/") != _origin(self.shared.issuer):
            return error_page(403, "the consent came from another site")
        login = single(request.form, "login")
        csrf = single(request.form, "csrf")
        store = self.shared.store
        record = await store.take("login", tokens.digest(login)) if login else None
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
        await store.put(
            "upstream",
            tokens.digest(state),
            {**record, "verifier": verifier},
            self.shared.ttl.login,
        )
        return redirect(authorization_url(self.upstream, self.callback_uri, state, verifier))

    async def callback(self, request: Request) -> Response:
        state = single(request.query, "state")
        store = self.shared.store
        record = await store.take("upstream", tokens.digest(state)) if state else None
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
                self.shared.http(), self.upstream, code, self.callback_uri, record["verifier"]
            )
        except (UpstreamError, httpx2.HTTPError) as exc:
            log.warning("upstream login failed: %s", exc)
            return self._back(
                record, {"error": "server_error", "error_description": "the login failed"}
            )
        ours = tokens.opaque()
        grant = {k: record[k] for k in ("client_id", "redirect_uri", "code_challenge", "scope")}
        grant.update(resource=record["resource"], subject=identity.subject)
        await store.put("code", tokens.digest(ours), grant, self.shared.ttl.code)
        return self._back(record, {"code": ours})

    def _back(self, record: Mapping[str, Any], params: dict[str, str]) -> Response:
        """The redirect to the client's (verified) redirect URI, with its state and our iss."""
        return redirect(
            with_query(
                str(record["redirect_uri"]),
                {**params, "state": str(record["state"]), "iss": self.shared.issuer},
            )
        )


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
