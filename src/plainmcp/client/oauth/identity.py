"""Who the client is at an authorization server: a pre-registered client, a Client ID Metadata
Document's URL (the client's id is that URL), or one registered by RFC 7591 DCR. A registration
belongs to the issuer that made it and is never presented to another (SEP-2352)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.client.oauth.errors import RegistrationError


@dataclass(frozen=True)
class RegisteredClient:
    client_id: str
    client_secret: str | None = None
    auth_method: str = "none"
    issuer: str | None = None
    """The authorization server that registered it (None: pre-registered, usable with any)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "auth_method": self.auth_method,
            "issuer": self.issuer,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> RegisteredClient:
        return cls(
            client_id=str(doc["client_id"]),
            client_secret=doc.get("client_secret"),
            auth_method=str(doc.get("auth_method") or "none"),
            issuer=doc.get("issuer"),
        )


@dataclass(frozen=True)
class ClientMetadata:
    """The client's RFC 7591 metadata: what DCR sends and a CIMD document holds."""

    client_name: str = "plainmcp"
    redirect_uris: tuple[str, ...] = ()
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")
    response_types: tuple[str, ...] = ("code",)
    application_type: str = "native"
    """SEP-837: a loopback-redirect client is a native application."""
    scope: str | None = None
    client_uri: str | None = None

    def registration(self, auth_method: str) -> dict[str, Any]:
        """The DCR request body, asking for `auth_method` at the token endpoint."""
        body: dict[str, Any] = {
            "client_name": self.client_name,
            "redirect_uris": list(self.redirect_uris),
            "grant_types": list(self.grant_types),
            "response_types": list(self.response_types),
            "token_endpoint_auth_method": auth_method,
            "application_type": self.application_type,
        }
        if self.scope:
            body["scope"] = self.scope
        if self.client_uri:
            body["client_uri"] = self.client_uri
        return body

    def document(self, client_id: str) -> dict[str, Any]:
        """This client's metadata document, served at `client_id` (its URL) for CIMD."""
        return {"client_id": client_id, **self.registration("none")}


def registered(doc: Any, issuer: str, asked_method: str) -> RegisteredClient:
    """A DCR answer (RFC 7591 §3.2.1): the method the server chose, else the one asked for."""
    if not isinstance(doc, dict) or not isinstance(doc.get("client_id"), str):
        raise RegistrationError("the registration answer has no client_id")
    secret = doc.get("client_secret")
    method = doc.get("token_endpoint_auth_method")
    if not isinstance(method, str):
        method = asked_method if isinstance(secret, str) else "none"
    return RegisteredClient(
        client_id=doc["client_id"],
        client_secret=secret if isinstance(secret, str) else None,
        auth_method=method,
        issuer=issuer,
    )
