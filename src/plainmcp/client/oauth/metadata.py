"""The two metadata documents as checked data: protected resource metadata (RFC 9728) and
authorization server metadata (RFC 8414 / OpenID Connect Discovery), and the 2025-03-26
fallback endpoints at the server's origin when a server publishes neither."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from plainmcp.client.oauth.errors import DiscoveryError, IssuerMismatch, ResourceMismatch


def _strings(doc: Mapping[str, Any], name: str) -> tuple[str, ...] | None:
    value = doc.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DiscoveryError(f"metadata field {name!r} is not a list of strings")
    return tuple(value)


def _string(doc: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    value = doc.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise DiscoveryError(f"metadata field {name!r} is missing or not a string")
    return value


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def resource_matches(published: str, server_url: str) -> bool:
    """Whether a PRM's `resource` covers the server's URL: same scheme and authority, and its
    path the server's path or a parent of it at a segment boundary (a root PRM names the
    origin, RFC 9728 §3.3 allows it; a PRM for another server is refused)."""
    if _origin(server_url) != _origin(published):
        return False
    mine, theirs = urlsplit(server_url), urlsplit(published)
    prefix = theirs.path.rstrip("/")
    path = mine.path.rstrip("/")
    return path == prefix or path.startswith(prefix + "/")


@dataclass(frozen=True)
class ProtectedResource:
    """RFC 9728 protected resource metadata, checked against the server it was fetched for."""

    resource: str
    authorization_servers: tuple[str, ...]
    scopes_supported: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, doc: Any, server_url: str) -> ProtectedResource:
        if not isinstance(doc, dict):
            raise DiscoveryError("protected resource metadata is not a JSON object")
        resource = _string(doc, "resource", required=True)
        assert resource is not None
        if not resource_matches(resource, server_url):
            raise ResourceMismatch(
                f"the protected resource metadata is for {resource!r}, not {server_url!r}"
            )
        servers = _strings(doc, "authorization_servers")
        if not servers:
            raise DiscoveryError("the protected resource metadata names no authorization server")
        return cls(resource, servers, _strings(doc, "scopes_supported"))


@dataclass(frozen=True)
class ServerMetadata:
    """RFC 8414 authorization server metadata, its issuer checked; `raw` keeps every field
    (extensions read theirs, e.g. `dpop_signing_alg_values_supported`)."""

    issuer: str
    token_endpoint: str
    authorization_endpoint: str | None = None
    registration_endpoint: str | None = None
    scopes_supported: tuple[str, ...] | None = None
    grant_types_supported: tuple[str, ...] | None = None
    code_challenge_methods_supported: tuple[str, ...] | None = None
    token_endpoint_auth_methods_supported: tuple[str, ...] | None = None
    client_id_metadata_document_supported: bool = False
    iss_parameter_supported: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, doc: Any, issuer: str, *, legacy: bool = False) -> ServerMetadata:
        """The document fetched for `issuer`; its `issuer` must equal it exactly (RFC 8414
        §3.3: a document naming another issuer is refused, its endpoints never used). `legacy`:
        fetched at a server's origin for want of resource metadata (2025-03-26), where no issuer
        was known beforehand: an issuer at that origin is taken as named."""
        if not isinstance(doc, dict):
            raise DiscoveryError("authorization server metadata is not a JSON object")
        named = doc.get("issuer")
        if legacy and isinstance(named, str) and _origin(named) == _origin(issuer):
            issuer = named
        if named != issuer:
            raise IssuerMismatch(
                f"authorization server metadata fetched for {issuer!r} names issuer {named!r}"
            )
        token_endpoint = _string(doc, "token_endpoint", required=True)
        assert token_endpoint is not None
        return cls(
            issuer=issuer,
            token_endpoint=token_endpoint,
            authorization_endpoint=_string(doc, "authorization_endpoint"),
            registration_endpoint=_string(doc, "registration_endpoint"),
            scopes_supported=_strings(doc, "scopes_supported"),
            grant_types_supported=_strings(doc, "grant_types_supported"),
            code_challenge_methods_supported=_strings(doc, "code_challenge_methods_supported"),
            token_endpoint_auth_methods_supported=_strings(
                doc, "token_endpoint_auth_methods_supported"
            ),
            client_id_metadata_document_supported=doc.get("client_id_metadata_document_supported")
            is True,
            iss_parameter_supported=doc.get("authorization_response_iss_parameter_supported")
            is True,
            raw=dict(doc),
        )

    @classmethod
    def fallback(cls, server_url: str) -> ServerMetadata:
        """2025-03-26's default endpoints at the server's origin, for a server publishing no
        metadata: /authorize, /token, /register (PKCE S256 assumed, as that revision required)."""
        parts = urlsplit(server_url)
        origin = f"{parts.scheme}://{parts.netloc}"
        return cls(
            issuer=origin,
            token_endpoint=f"{origin}/token",
            authorization_endpoint=f"{origin}/authorize",
            registration_endpoint=f"{origin}/register",
            code_challenge_methods_supported=("S256",),
        )
