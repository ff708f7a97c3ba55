"""Bearer-token verifiers users do not write: signed JWTs checked against the issuer's keys
(`JwtVerifier`), and opaque tokens asked of the authorization server (`IntrospectionVerifier`).

Each is a `verify` for `BearerAuth`. Needs the `auth` extra (`pip install plainmcp[auth]`):
PyJWT with its cryptography backend, and httpx2 for the authorization server's endpoints.
"""

from __future__ import annotations

from plainmcp.auth.introspection import IntrospectionVerifier
from plainmcp.auth.jwks import KeySet
from plainmcp.auth.jwt_verifier import ASYMMETRIC, JwtVerifier

__all__ = ["ASYMMETRIC", "IntrospectionVerifier", "JwtVerifier", "KeySet"]
