"""The I/O of a login, thin over the sans-I/O modules: the metadata documents fetched in the
specification's order, the client identified (pre-registered, CIMD, DCR), and the token
endpoint called with the client's authentication."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2

from plainmcp.client.oauth import discovery, endpoint_auth
from plainmcp.client.oauth.challenge import Challenge
from plainmcp.client.oauth.dpop import NONCE_ERROR, DPoPKey
from plainmcp.client.oauth.errors import DiscoveryError, RegistrationError
from plainmcp.client.oauth.identity import ClientMetadata, RegisteredClient, registered
from plainmcp.client.oauth.metadata import ProtectedResource, ServerMetadata
from plainmcp.client.oauth.tokens import Token, token_error, token_response

log = logging.getLogger("plainmcp.client.oauth")

MAX_DOCUMENT = 1 << 20
"""Bytes a metadata document or token answer may have."""


async def read_json(answer: httpx2.Response) -> Any:
    body = await answer.aread()
    if len(body) > MAX_DOCUMENT:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


async def fetch_json(http: httpx2.AsyncClient, url: str) -> Any | None:
    """A metadata document, or None when the URL has none (any non-200, or not JSON)."""
    try:
        answer = await http.get(url, headers={"accept": "application/json"})
    except httpx2.HTTPError as exc:
        log.debug("no metadata at %s: %s", url, exc)
        return None
    if answer.status_code != 200:
        log.debug("no metadata at %s: HTTP %s", url, answer.status_code)
        return None
    return await read_json(answer)


@dataclass(frozen=True)
class Discovered:
    """What discovery found for one server: its resource metadata (None for a server without,
    2025-03-26) and its authorization server's metadata."""

    resource: ProtectedResource | None
    server: ServerMetadata

    def resource_indicator(self, server_url: str) -> str:
        """RFC 8707's `resource`: exactly as the resource metadata publishes it, else the
        server's URL."""
        return self.resource.resource if self.resource is not None else server_url


async def server_metadata(
    http: httpx2.AsyncClient, issuer: str, *, legacy: bool = False
) -> ServerMetadata | None:
    """The first metadata document at `issuer`'s well-known URLs (an issuer mismatch raises;
    `legacy`: see ServerMetadata.parse)."""
    for url in discovery.server_metadata_urls(issuer):
        doc = await fetch_json(http, url)
        if doc is not None:
            return ServerMetadata.parse(doc, issuer, legacy=legacy)
    return None


async def discover(
    http: httpx2.AsyncClient, server_url: str, challenge: Challenge | None
) -> Discovered:
    """Resource metadata, then its first authorization server's metadata; a server without
    resource metadata is its own authorization server (2025-03-26), with the fallback
    endpoints when it has no metadata either."""
    from_challenge = challenge.resource_metadata if challenge is not None else None
    resource: ProtectedResource | None = None
    for url in discovery.resource_metadata_urls(server_url, from_challenge):
        doc = await fetch_json(http, url)
        if doc is not None:
            resource = ProtectedResource.parse(doc, server_url)
            break
    if resource is not None:
        issuer = resource.authorization_servers[0]
        found = await server_metadata(http, issuer)
        if found is None:
            raise DiscoveryError(f"no authorization server metadata for {issuer}")
        return Discovered(resource, found)
    origin = discovery.origin(server_url)
    found = await server_metadata(http, origin, legacy=True)
    return Discovered(None, found if found is not None else ServerMetadata.fallback(server_url))


async def register(
    http: httpx2.AsyncClient, server: ServerMetadata, metadata: ClientMetadata
) -> RegisteredClient:
    """RFC 7591 dynamic client registration at the server's registration endpoint."""
    if server.registration_endpoint is None:
        raise RegistrationError(
            f"{server.issuer} offers neither client ID metadata documents nor dynamic"
            " registration: give the client_id (and client_secret) registered there"
        )
    method = endpoint_auth.choose(server.token_endpoint_auth_methods_supported, has_secret=True)
    try:
        answer = await http.post(server.registration_endpoint, json=metadata.registration(method))
    except httpx2.HTTPError as exc:
        raise RegistrationError(
            f"registration at {server.registration_endpoint} failed: {exc}"
        ) from None
    if answer.status_code not in (200, 201):
        raise RegistrationError(
            f"registration at {server.registration_endpoint} answered HTTP {answer.status_code}"
        )
    return registered(await read_json(answer), server.issuer, method)


@dataclass
class Login:
    """One login's context, handed to a Grant: the server's metadata, who the client is there,
    the resource and scopes, and the token endpoint call (with the client's authentication)."""

    http: httpx2.AsyncClient
    server: ServerMetadata
    client: RegisteredClient
    resource: str | None
    scopes: tuple[str, ...]
    clock: Callable[[], float]
    auth: endpoint_auth.TokenEndpointAuth | None = None
    """The client's authentication at the token endpoint when not its registration's secret
    (private_key_jwt, for one)."""
    dpop: DPoPKey | None = None
    """Asks for a DPoP-bound token: a proof on each token request, one retry on the server's
    nonce (RFC 9449 §5, §8)."""

    @property
    def endpoint_auth(self) -> endpoint_auth.TokenEndpointAuth:
        if self.auth is not None:
            return self.auth
        return endpoint_auth.for_client(
            self.client.client_id, self.client.client_secret, self.client.auth_method
        )

    async def token_request(
        self, form: dict[str, str], *, previous_refresh: str | None = None
    ) -> Token:
        """POST `form` (with `resource`) to the token endpoint; its answer as a Token."""
        form = dict(form)
        if self.resource:
            form["resource"] = self.resource
        headers = {"accept": "application/json"}
        self.endpoint_auth.apply(headers, form)
        endpoint = self.server.token_endpoint
        for _ in range(2):
            if self.dpop is not None:
                headers["dpop"] = self.dpop.proof("POST", endpoint)
            try:
                answer = await self.http.post(endpoint, data=form, headers=headers)
            except httpx2.HTTPError as exc:
                raise token_error(
                    0, {"error": "unreachable", "error_description": str(exc)}
                ) from None
            doc = await read_json(answer)
            if self.dpop is None or not self.dpop.learn(endpoint, answer.headers.get("dpop-nonce")):
                break
            if answer.status_code != 400 or not (
                isinstance(doc, dict) and doc.get("error") == NONCE_ERROR
            ):
                break
        if answer.status_code != 200:
            raise token_error(answer.status_code, doc)
        asked = tuple(form["scope"].split()) if form.get("scope") else self.scopes
        return token_response(doc, self.clock(), asked, previous_refresh)
