"""Which scopes a login asks for (the MCP specification's scope selection strategy)."""

from __future__ import annotations

from collections.abc import Iterable

OFFLINE_ACCESS = "offline_access"


def select(
    challenged: tuple[str, ...] | None,
    resource_scopes: tuple[str, ...] | None,
    server_scopes: tuple[str, ...] | None = None,
) -> tuple[str, ...]:
    """The challenge's `scope` first, else the resource's `scopes_supported`, else none (the
    scope parameter is omitted); `offline_access` is added, for a refresh token, when the
    authorization server lists it (SEP-2207) and some scope is asked for at all."""
    chosen = challenged or resource_scopes or ()
    if chosen and server_scopes and OFFLINE_ACCESS in server_scopes:
        chosen = union(chosen, (OFFLINE_ACCESS,))
    return chosen


def union(*groups: Iterable[str]) -> tuple[str, ...]:
    """The scopes of every group, each once, in the order first seen (SEP-2350: a step-up asks
    for what was granted before and what the 403 challenged)."""
    return tuple(dict.fromkeys(scope for group in groups for scope in group))


def covers(granted: Iterable[str], wanted: Iterable[str]) -> bool:
    """Whether every wanted scope is among the granted ones."""
    return set(wanted) <= set(granted)
