"""The clients the authorization server knows: registered ones (pre-registered by the
application, or by RFC 7591 dynamic registration) and what they may do. Pure: records in,
verdicts out."""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from authlib.oauth2.rfc7591 import ClientMetadataClaims
from joserfc.errors import JoseError  # what Authlib's claims raise (joserfc: its dependency)

from plainmcp.authorization.assertions import jwks_problem

AUTH_METHODS = ("none", "client_secret_post", "client_secret_basic", "private_key_jwt")
GRANT_TYPES = ("authorization_code", "refresh_token")
UNSAFE_SCHEMES = frozenset({"javascript", "data", "file", "vbscript", "about", "blob", "ftp"})


@dataclass(frozen=True)
class Client:
    """A client allowed to ask for tokens: `Client("my-app", ["http://127.0.0.1:3000/cb"])`.
    `client_secret` makes it confidential (client_secret_basic or _post); kept only hashed."""

    client_id: str
    redirect_uris: Sequence[str]
    client_secret: str | None = field(default=None, repr=False)
    client_name: str | None = None
    scope: str | None = None
    """The scopes it may be granted (space-separated); None: any the server offers."""

    def registered(self) -> Registered:
        return Registered(
            self.client_id,
            tuple(self.redirect_uris),
            "client_secret_basic" if self.client_secret else "none",
            secret_hash(self.client_secret) if self.client_secret else None,
            self.client_name,
            self.scope,
        )


@dataclass(frozen=True)
class Registered:
    """A client as stored (its secret hashed)."""

    client_id: str
    redirect_uris: tuple[str, ...]
    token_endpoint_auth_method: str = "none"
    secret_hash: str | None = None
    client_name: str | None = None
    scope: str | None = None
    """The scopes it may be granted, as the operator configured it (Client(scope=...))."""
    metadata_document: bool = False
    """Known from its Client ID Metadata Document (cimd.py), not registered here."""
    declared_scope: str | None = None
    """The `scope` a client registering itself declared (DCR, CIMD): granted when it asks
    for none, never a limit: it could register again with any, and a limit would refuse the
    step-up of a client that registered with its first login's scope."""
    jwks: dict[str, Any] | None = None
    """The public keys a private_key_jwt client signs its assertions with."""

    def record(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "redirect_uris": list(self.redirect_uris),
            "token_endpoint_auth_method": self.token_endpoint_auth_method,
            "secret_hash": self.secret_hash,
            "client_name": self.client_name,
            "scope": self.scope,
            "metadata_document": self.metadata_document,
            "declared_scope": self.declared_scope,
            "jwks": self.jwks,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Registered:
        return cls(
            str(record["client_id"]),
            tuple(record["redirect_uris"]),
            str(record["token_endpoint_auth_method"]),
            record.get("secret_hash"),
            record.get("client_name"),
            record.get("scope"),
            bool(record.get("metadata_document")),
            record.get("declared_scope"),
            record.get("jwks"),
        )


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class RegistrationError(ValueError):
    """RFC 7591 §3.2.2: `error` is invalid_redirect_uri or invalid_client_metadata."""

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error


def redirect_uri_problem(uri: object) -> str | None:
    """Why `uri` cannot be registered as a redirect URI, or None. https anywhere, http only to
    a loopback host (RFC 8252 §7.3), a native app's private-use scheme (§7.1); never a
    fragment (RFC 6749 §3.1.2), credentials, or a scheme that runs code in a browser."""
    if not isinstance(uri, str) or not uri:
        return "a redirect URI must be a non-empty string"
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not scheme:
        return f"{uri} is not an absolute URI"
    if parts.fragment or "#" in uri:
        return f"{uri} has a fragment"
    if scheme in UNSAFE_SCHEMES:
        return f"{uri} uses the {scheme} scheme"
    if scheme in ("http", "https"):
        if not parts.hostname:
            return f"{uri} has no host"
        if parts.username is not None or parts.password is not None:
            return f"{uri} carries credentials"
        if scheme == "http" and not is_loopback(parts.hostname):
            return f"{uri} is http to a host other than loopback"
    return None


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def redirect_uri_matches(registered: Sequence[str], asked: str) -> bool:
    """Exact string comparison (OAuth 2.1 §4.1.1.3), but for the port of an http redirect to a
    loopback IP literal, which a native app picks at run time (RFC 8252 §7.3; "localhost" is
    not one: RFC 8252 §8.3)."""
    if asked in registered:
        return True
    parts = urlsplit(asked)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "::1"):
        return False
    for uri in registered:
        known = urlsplit(uri)
        if (
            known.scheme == "http"
            and known.hostname == parts.hostname
            and (known.path, known.query, known.fragment) == (parts.path, parts.query, "")
            and parts.username is None
        ):
            return True
    return False


def validated_metadata(document: object) -> dict[str, Any]:
    """An RFC 7591 registration request (or a CIMD document) checked: URIs well formed
    (Authlib's ClientMetadataClaims), redirect URIs as `redirect_uri_problem` allows, only the
    grants and authentication methods this server implements. Raises RegistrationError."""
    if not isinstance(document, dict):
        raise RegistrationError("invalid_client_metadata", "the metadata must be a JSON object")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not uris:
        raise RegistrationError("invalid_redirect_uri", "redirect_uris must list at least one URI")
    for uri in uris:
        problem = redirect_uri_problem(uri)
        if problem:
            raise RegistrationError("invalid_redirect_uri", problem)
    claims = ClientMetadataClaims(dict(document), {})
    try:
        claims.validate()
    except JoseError as exc:
        raise RegistrationError("invalid_client_metadata", exc.description or str(exc)) from None
    method = claims.get("token_endpoint_auth_method")
    if method not in AUTH_METHODS:
        raise RegistrationError(
            "invalid_client_metadata", f"token_endpoint_auth_method {method!r} is not supported"
        )
    if method == "private_key_jwt":
        problem = jwks_problem(claims.get("jwks"))
        if problem:
            raise RegistrationError("invalid_client_metadata", problem)
    grants = claims.get("grant_types", ["authorization_code"])
    if not isinstance(grants, list) or not set(grants) <= set(GRANT_TYPES):
        raise RegistrationError("invalid_client_metadata", f"grant_types {grants!r} not supported")
    responses = claims.get("response_types", ["code"])
    if responses != ["code"]:
        raise RegistrationError(
            "invalid_client_metadata", f"response_types {responses!r} not supported"
        )
    for name in ("client_name", "scope"):
        if name in claims and not isinstance(claims[name], str):
            raise RegistrationError("invalid_client_metadata", f"{name} must be a string")
    return dict(claims)


def presented_credentials(
    headers: Mapping[str, str], form: Mapping[str, str | None]
) -> tuple[str | None, str | None, str]:
    """(client_id, client_secret, method) a token or revocation request carries: HTTP Basic
    (RFC 6749 §2.3.1: each part form-urlencoded), else the form's client_id and
    client_secret. Raises ValueError when both are used or the header is malformed."""
    authorization = headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "basic":
        if form.get("client_secret") is not None:
            raise ValueError("the client authenticated in two ways")
        try:
            pair = base64.b64decode(value.strip(), validate=True).decode()
        except ValueError:
            raise ValueError("the Basic credentials are not base64") from None
        user, sep, password = pair.partition(":")
        if not sep:
            raise ValueError("the Basic credentials have no password")
        client_id = unquote(user.replace("+", " "))
        if form.get("client_id") not in (None, client_id):
            raise ValueError("two client ids")
        return client_id, unquote(password.replace("+", " ")), "client_secret_basic"
    secret = form.get("client_secret")
    return form.get("client_id"), secret, "client_secret_post" if secret is not None else "none"


def authenticates(client: Registered, secret: str | None, method: str) -> bool:
    """Whether the presented secret is the client's (compared in constant time). A
    private_key_jwt client is authenticated by its assertion only (assertions.py)."""
    if client.token_endpoint_auth_method == "private_key_jwt":
        return False
    if client.secret_hash is None:
        return secret is None and method == "none"
    if secret is None or method == "none":
        return False
    return hmac.compare_digest(secret_hash(secret), client.secret_hash)
