"""Who a request comes from, as the one string everything bound to a principal compares:
sessions, requestState tokens, stored results, per-client limits and cached results.

A principal's `key` keeps apart identities that share a name: a `sub` and the `client_id` of a
client_credentials token without `sub` never compare equal. (RFC 9068 has the authorization
server put an identifier of the client in `sub` itself, which is then its to keep apart.)
"""

from __future__ import annotations

from typing import Any


def identity(principal: Any) -> str | None:
    """The principal's key; None where the transport authenticates nobody (stdio, HTTP without
    auth). A principal of another type than plainmcp's is known by its `subject`."""
    if principal is None:
        return None
    key = getattr(principal, "key", None)
    if isinstance(key, str):
        return key
    subject = getattr(principal, "subject", None)
    return f"sub:{subject}" if isinstance(subject, str) else None
