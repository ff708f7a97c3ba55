"""private_key_jwt (RFC 7523 §2.2, OIDC Core §9): the client authenticates at the token
endpoint with a short-lived JWT it signs with its private key, instead of a secret."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import jwt

from plainmcp.client.oauth.identity import RegisteredClient
from plainmcp.client.oauth.metadata import ServerMetadata

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
LIFETIME = 300
"""Seconds a client assertion is good for: long enough for the request, no longer."""


@dataclass(frozen=True)
class PrivateKeyJwt:
    """Signs `{iss, sub: client_id, aud: the issuer, jti, iat, exp}` with `private_key` (PEM)
    for each token request; `clock` in seconds, `new_id` the jti (both injected in tests)."""

    client_id: str
    private_key: str
    audience: str
    algorithm: str = "ES256"
    clock: Callable[[], float] = field(default=time.time)
    new_id: Callable[[], str] = field(default=lambda: uuid.uuid4().hex)
    method: str = "private_key_jwt"

    def assertion(self) -> str:
        now = int(self.clock())
        claims = {
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": self.audience,
            "jti": self.new_id(),
            "iat": now,
            "exp": now + LIFETIME,
        }
        return jwt.encode(claims, self.private_key, algorithm=self.algorithm)

    def apply(self, headers: dict[str, str], form: dict[str, str]) -> None:
        form["client_id"] = self.client_id
        form["client_assertion_type"] = ASSERTION_TYPE
        form["client_assertion"] = self.assertion()

    @staticmethod
    def factory(
        private_key: str, algorithm: str = "ES256"
    ) -> Callable[[RegisteredClient, ServerMetadata], PrivateKeyJwt]:
        """OAuth's `client_auth`: assertions for the client found, aimed at the server's
        issuer (its identifier, RFC 7523 §3's `aud`)."""

        def build(client: RegisteredClient, server: ServerMetadata) -> PrivateKeyJwt:
            return PrivateKeyJwt(client.client_id, private_key, server.issuer, algorithm)

        return build
