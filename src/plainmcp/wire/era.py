"""Which era a message belongs to: the handshake (its session holds the revision) or the era
without one (2026-07-28 and later: each request names its revision in `params._meta`).

One predicate, so the dispatcher, the batch rules, the HTTP modes and the client cannot tell
the eras apart differently. Sans-I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plainmcp.wire.meta import PROTOCOL_VERSION
from plainmcp.wire.revisions import REVISIONS


def stateless(params: Mapping[str, Any] | None = None, *, version: str | None = None) -> bool:
    """The message belongs to the era without a handshake: its params' `_meta` names a
    protocol version (any value: a wrong one is refused later, as that era's error), or
    `version` (a header's or a negotiated version, as given) names a revision without a
    handshake."""
    if params is not None:
        meta = params.get("_meta")
        if isinstance(meta, dict) and PROTOCOL_VERSION in meta:
            return True
    if version is None:
        return False
    rev = REVISIONS.get(version)
    return rev is not None and not rev.handshake
