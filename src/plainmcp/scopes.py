"""Required scopes of tools, resources and prompts: who may call what.

A function registered with `scopes=[...]` may be called only by a principal holding every one
of them. The principal is who the transport authenticated (HTTP bearer auth). Where nobody was
authenticated (stdio, HTTP without `auth=`) there is no principal and scopes are not enforced:
stdio serves the user who started the process, and an unauthenticated endpoint has no tokens
to carry scopes.

Over HTTP the endpoint asks `needed` before it serves a request, so a refusal is a 403 with the
step-up challenge whatever the reply would have become (JSON or a stream); the handlers check
again with `require`, which is what the other transports see (a JSON-RPC error).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from plainmcp.wire.jsonrpc import INVALID_REQUEST, RpcError

__all__ = ["InsufficientScope", "allowed", "missing", "require", "scope_set"]

_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")
"""RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\\`."""

NONE: frozenset[str] = frozenset()


def scope_set(value: Iterable[str] | None, what: str) -> frozenset[str]:
    """The scopes given at registration, checked (ValueError/TypeError names `what`)."""
    if value is None:
        return NONE
    if isinstance(value, str):
        raise TypeError(f"{what}: scopes= takes a list of scopes, not a string ({value!r})")
    scopes = frozenset(value)
    for scope in scopes:
        if not isinstance(scope, str) or not _SCOPE_TOKEN.fullmatch(scope):
            raise ValueError(f"{what}: {scope!r} is not an OAuth scope (RFC 6749 scope-token)")
    return scopes


class InsufficientScope(RpcError):
    """A call whose principal lacks scopes the function requires.

    `scopes` are the function's required scopes; `missing` those the principal lacks.
    """

    def __init__(self, what: str, scopes: frozenset[str], missing: list[str]) -> None:
        super().__init__(
            INVALID_REQUEST,
            f"Forbidden: {what} requires scope {' '.join(missing)}",
            {"requiredScopes": sorted(scopes)},
        )
        self.what = what
        self.scopes = scopes
        self.missing = missing


def missing(scopes: frozenset[str], principal: Any) -> list[str]:
    """The required scopes the principal lacks, sorted; none when there is no principal."""
    if not scopes or principal is None:
        return []
    held = getattr(principal, "scopes", NONE)
    return sorted(s for s in scopes if s not in held)


def allowed(scopes: frozenset[str], principal: Any) -> bool:
    """Whether the principal may call a function requiring `scopes`."""
    return not missing(scopes, principal)


def require(what: str, scopes: frozenset[str], principal: Any) -> None:
    """Raise InsufficientScope unless the principal may call `what`."""
    lacking = missing(scopes, principal)
    if lacking:
        raise InsufficientScope(what, scopes, lacking)
