"""An OAuth 2.1 authorization server in front of an upstream identity provider (an OAuth
proxy): `app.http_app(authorization=AuthorizationServer(issuer=..., upstream=...))`.

Needs the `oauth` extra (`pip install plainmcp[oauth]`): Authlib for the protocol pieces,
PyJWT for the tokens, httpx2 for the upstream provider and metadata documents.
"""

from __future__ import annotations

try:
    import authlib  # noqa: F401
    import httpx2  # noqa: F401
    import jwt  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "plainmcp.authorization needs the oauth extra: pip install 'plainmcp[oauth]'"
    ) from exc

from plainmcp.authorization import providers
from plainmcp.authorization.cimd import FetchPolicy
from plainmcp.authorization.clients import Client
from plainmcp.authorization.limits import RateLimit
from plainmcp.authorization.providers import Upstream
from plainmcp.authorization.redis_store import RedisAuthStore
from plainmcp.authorization.server import AuthorizationServer
from plainmcp.authorization.store import AuthStore, MemoryAuthStore
from plainmcp.authorization.tokens import SigningKey

__all__ = [
    "AuthStore",
    "AuthorizationServer",
    "Client",
    "FetchPolicy",
    "MemoryAuthStore",
    "RateLimit",
    "RedisAuthStore",
    "SigningKey",
    "Upstream",
    "providers",
]
