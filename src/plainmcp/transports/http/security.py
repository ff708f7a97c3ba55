"""Who may talk to the HTTP endpoint: Host and Origin checks, and bearer-token auth.

Sans-I/O: the ASGI app asks these functions and turns their answers into status codes.
Host and Origin checks stop DNS rebinding, where a web page on an attacker's domain resolves
that domain to 127.0.0.1 and drives a local server from the victim's browser.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
"""Names allowed by default, with any port: a local server is reached only through these."""


def _split_host(value: str) -> tuple[str, str | None]:
    """`host[:port]` (IPv6 in brackets) -> (lower-case host without brackets, port or None)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        host, rest = value[1:end], value[end + 1 :]
        return host, rest[1:] if rest.startswith(":") else None
    host, sep, port = value.partition(":")
    return host, port if sep else None


class OriginPolicy:
    """The Host values and browser Origins the endpoint answers.

    By default only local names are allowed (any port). `allowed_hosts` adds `host` or
    `host:port` entries; `allowed_origins` adds full origins (`https://app.example.com`).
    "*" in either turns that check off.
    """

    def __init__(
        self, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()
    ) -> None:
        self.hosts = {h.strip().lower() for h in allowed_hosts}
        self.origins = {o.strip().lower().rstrip("/") for o in allowed_origins}

    def host_allowed(self, host: str | None) -> bool:
        if "*" in self.hosts:
            return True
        if not host:
            return False
        name, _ = _split_host(host)
        return name in LOCAL_HOSTS or name in self.hosts or host.strip().lower() in self.hosts

    def origin_allowed(self, origin: str | None) -> bool:
        """An absent Origin is a non-browser client and is allowed; "null" is not."""
        if origin is None or "*" in self.origins:
            return True
        origin = origin.strip().lower().rstrip("/")
        if origin in self.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False
        name, _ = _split_host(parts.netloc)
        return name in LOCAL_HOSTS


@dataclass(frozen=True)
class Principal:
    """Who a bearer token stands for, as the verifier vouches."""

    subject: str
    scopes: frozenset[str] = frozenset()
    claims: Mapping[str, Any] = field(default_factory=dict)
    expires_at: float | None = None
    """Unix time after which the token is refused, if the verifier knows it."""
    client: bool = False
    """The token acts for an OAuth client itself (client_credentials, no `sub`): `subject` is
    then its `client_id`."""

    @property
    def key(self) -> str:
        """Who this is wherever something is bound to a principal (sessions, requestState,
        stored results): the claim the name came from and the name, so that a client known by
        its `client_id` and a `sub` of the same text stay apart."""
        return f"{'client_id' if self.client else 'sub'}:{self.subject}"


Verifier = Callable[[str], "Awaitable[Principal | None] | Principal | None"]


@dataclass(frozen=True)
class BearerAuth:
    """OAuth 2.1 resource-server duties: every request needs a valid bearer token.

    `verify` checks a token (signature, expiry, audience = this server) and returns the
    Principal, or None to refuse it; it may be sync or async. `authorization_servers` go into
    the RFC 9728 metadata that 401 answers point clients to. `resource` is this server's
    canonical URI (default: derived from the request). A verifier with an `aclose()` coroutine
    method (IntrospectionVerifier: its HTTP client) is closed when the app shuts down.
    """

    verify: Verifier
    authorization_servers: Sequence[str]
    resource: str | None = None
    required_scopes: Sequence[str] = ()
    scopes_supported: Sequence[str] | None = None

    async def aclose(self) -> None:
        close = getattr(self.verify, "aclose", None)
        if close is not None:
            await close()


@dataclass(frozen=True)
class AuthFailure:
    status: int
    challenge: str
    error: str
    description: str


async def authenticate(
    auth: BearerAuth, authorization: str | None, metadata_url: str
) -> Principal | AuthFailure:
    """The principal of a request's Authorization header, or why it is refused (401/403)."""
    scope = " ".join(auth.required_scopes)
    base = f'Bearer resource_metadata="{metadata_url}"'
    if scope:
        base += f', scope="{scope}"'
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return AuthFailure(401, base, "invalid_request", "a bearer token is required")
    result = auth.verify(token)
    principal = await result if inspect.isawaitable(result) else result
    if not isinstance(principal, Principal) or (
        principal.expires_at is not None and principal.expires_at < time.time()
    ):
        why = "the token is invalid or expired"
        return AuthFailure(
            401, f'{base}, error="invalid_token", error_description="{why}"', "invalid_token", why
        )
    missing = [s for s in auth.required_scopes if s not in principal.scopes]
    if missing:
        return insufficient_scope(auth, (), missing, metadata_url)
    return principal


def insufficient_scope(
    auth: BearerAuth, needed: Iterable[str], missing: Sequence[str], metadata_url: str
) -> AuthFailure:
    """The 403 step-up answer (RFC 6750 §3.1, MCP authorization "Scope Challenge Handling"):
    `scope` lists every scope the refused call needs, the endpoint's own `required_scopes` and
    the function's `needed`, so a token obtained for it serves this call and the others."""
    scopes = list(auth.required_scopes)
    scopes += sorted(set(needed) - set(scopes))
    why = f"the token lacks scope {' '.join(missing)}"
    return AuthFailure(
        403,
        f'Bearer error="insufficient_scope", scope="{" ".join(scopes)}",'
        f' resource_metadata="{metadata_url}", error_description="{why}"',
        "insufficient_scope",
        why,
    )


def resource_metadata(auth: BearerAuth, resource: str) -> dict[str, Any]:
    """The RFC 9728 Protected Resource Metadata document."""
    document: dict[str, Any] = {
        "resource": auth.resource or resource,
        "authorization_servers": list(auth.authorization_servers),
        "bearer_methods_supported": ["header"],
    }
    scopes = auth.scopes_supported if auth.scopes_supported is not None else auth.required_scopes
    if scopes:
        document["scopes_supported"] = list(scopes)
    return document
