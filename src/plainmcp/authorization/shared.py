"""What every part of the authorization server is handed (directory.py, login.py,
token_endpoint.py): who it is, what it issues tokens for, where its state lives, how long
things last and what time it is. Built once by AuthorizationServer; no part sees the server."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx2

from plainmcp.authorization.store import AuthStore
from plainmcp.authorization.tokens import SigningKey


@dataclass(frozen=True)
class Lifetimes:
    """Seconds each thing lives."""

    access: float
    refresh: float
    code: float
    login: float
    client: float


@dataclass(frozen=True)
class Shared:
    issuer: str
    """No trailing slash."""
    base: str
    """The issuer's path, under which every endpoint is ("" at the root)."""
    resource: str
    scopes: tuple[str, ...]
    store: AuthStore
    key: SigningKey
    """The key new tokens are signed with."""
    accepted: tuple[SigningKey, ...]
    """The keys whose tokens are taken: `key`, then the ones it replaced."""
    ttl: Lifetimes
    clock: Callable[[], float]
    """Unix seconds."""
    http: Callable[[], httpx2.AsyncClient]
    """The client for the upstream provider and metadata documents, made when first needed."""
