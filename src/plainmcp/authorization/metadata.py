"""The RFC 8414 authorization server metadata document, checked with Authlib's validator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

from plainmcp.authorization.assertions import ALGORITHMS
from plainmcp.authorization.clients import AUTH_METHODS, GRANT_TYPES, is_loopback


def document(issuer: str, scopes: Sequence[str], registration: bool) -> dict[str, Any]:
    base = issuer.rstrip("/")
    doc: dict[str, Any] = {
        "issuer": issuer,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "jwks_uri": f"{base}/jwks",
        "revocation_endpoint": f"{base}/revoke",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": list(GRANT_TYPES),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "token_endpoint_auth_signing_alg_values_supported": list(ALGORITHMS),
        "revocation_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "revocation_endpoint_auth_signing_alg_values_supported": list(ALGORITHMS),
        "authorization_response_iss_parameter_supported": True,
        "client_id_metadata_document_supported": True,
    }
    if registration:
        doc["registration_endpoint"] = f"{base}/register"
    if scopes:
        doc["scopes_supported"] = list(scopes)
    validate(doc)
    return doc


def validate(doc: dict[str, Any]) -> None:
    """Authlib's RFC 8414 checks; its https rule for the issuer is relaxed for a loopback
    issuer only (a server under test or development on this machine)."""
    metadata = AuthorizationServerMetadata(doc)
    issuer = urlsplit(doc["issuer"])
    if issuer.scheme == "http" and is_loopback(issuer.hostname or ""):
        https = dict(doc, issuer=urlunsplit(("https", *issuer[1:])))
        AuthorizationServerMetadata(https).validate_issuer()
        for name in dir(metadata):
            if name.startswith("validate_") and name != "validate_issuer":
                getattr(metadata, name)()
        return
    metadata.validate()
