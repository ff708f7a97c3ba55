"""The clients the authorization server knows at run time: who a client_id names
(pre-registered, registered here, or described by its metadata document), and /register
(RFC 7591) that adds one, so many times a minute per client address (limits.py)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from typing import Any

from plainmcp.authorization import clients as rules
from plainmcp.authorization import limits
from plainmcp.authorization.cimd import (
    FetchPolicy,
    MetadataDocuments,
    MetadataError,
    is_document_id,
)
from plainmcp.authorization.clients import Registered, RegistrationError
from plainmcp.authorization.messages import NO_STORE, Request, Response, json_response, oauth_error
from plainmcp.authorization.shared import Shared

log = logging.getLogger("plainmcp.authorization")


class Directory:
    def __init__(
        self,
        shared: Shared,
        preregistered: Mapping[str, Registered],
        policy: FetchPolicy,
        limit: limits.RateLimit | None,
    ) -> None:
        self.shared = shared
        self.preregistered = dict(preregistered)
        self.policy = policy
        self.limit = limit

    async def client(self, client_id: str) -> Registered | None:
        """The client `client_id` names. None when unknown (or its document is unusable,
        logged)."""
        known = self.preregistered.get(client_id)
        if known is not None:
            return known
        store = self.shared.store
        if is_document_id(client_id, self.policy):
            try:
                return await MetadataDocuments(store, self.policy, self.shared.http()).client(
                    client_id
                )
            except MetadataError as exc:
                log.info("client metadata document refused: %s", exc)
                return None
        record = await store.get("client", client_id)
        return None if record is None else Registered.from_record(record)

    async def register(self, request: Request) -> Response:
        if self.limit is not None:
            # Every attempt counts, a refused one too. No address (not over a socket): one
            # count for all such requests.
            address = request.client_host or "unknown"
            now = self.shared.clock()
            wait = await limits.retry_after(self.limit, self.shared.store, "register", address, now)
            if wait is not None:
                log.info("registration refused: over %s a window", self.limit.count)
                return oauth_error(
                    429,
                    "temporarily_unavailable",
                    f"too many registrations from this address: try again in {wait} s",
                    (("retry-after", str(wait)),),
                )
        try:
            document = request.json()
        except ValueError:
            return oauth_error(400, "invalid_client_metadata", "the body is not JSON")
        try:
            claims = rules.validated_metadata(document)
        except RegistrationError as exc:
            return oauth_error(400, exc.error, str(exc))
        method = str(claims["token_endpoint_auth_method"])
        secret = secrets.token_urlsafe(32) if method not in ("none", "private_key_jwt") else None
        client = Registered(
            f"mcp-{secrets.token_urlsafe(16)}",
            tuple(claims["redirect_uris"]),
            method,
            rules.secret_hash(secret) if secret else None,
            claims.get("client_name"),
            declared_scope=claims.get("scope"),
            jwks=claims.get("jwks") if method == "private_key_jwt" else None,
        )
        await self.shared.store.put(
            "client", client.client_id, client.record(), self.shared.ttl.client
        )
        answer: dict[str, Any] = {
            **{k: v for k, v in claims.items() if k not in ("client_secret",)},
            "client_id": client.client_id,
            "client_id_issued_at": int(self.shared.clock()),
            "redirect_uris": list(client.redirect_uris),
            "token_endpoint_auth_method": method,
            "grant_types": claims.get("grant_types", list(rules.GRANT_TYPES)),
            "response_types": ["code"],
        }
        if secret:
            answer["client_secret"] = secret
            answer["client_secret_expires_at"] = 0
        return json_response(201, answer, NO_STORE)
