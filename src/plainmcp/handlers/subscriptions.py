"""resources/subscribe and unsubscribe (a handshake session's state), and subscriptions/listen
(2026-07-28: a request that stays open, carrying the notifications it opted in to)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp import scopes
from plainmcp.handlers import needed
from plainmcp.notify import LISTEN_FEATURE, tagged
from plainmcp.wire import render
from plainmcp.wire.meta import SUBSCRIPTION_ID

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange


async def subscribe(core: Components, ex: Exchange) -> dict[str, Any]:
    uri: str = ex.params["uri"]
    if not core.resources.exists(uri):
        raise render.resource_not_found(uri, ex.revision)
    scopes.require(*needed(core, ex.request.method, ex.params), ex.principal)
    ex.peer.session.subscribe(uri)
    return {}


async def unsubscribe(core: Components, ex: Exchange) -> dict[str, Any]:
    ex.peer.session.unsubscribe(ex.params["uri"])
    return {}


async def listen(core: Components, ex: Exchange) -> dict[str, Any]:
    """A stream of the notifications the client opted in to, until it cancels or the
    transport ends it (`notify` fans them out to it)."""
    wanted = ex.params["notifications"]
    honoured: dict[str, Any] = {}
    for flag, feature in LISTEN_FEATURE.items():
        if wanted.get(flag) is True and feature in ex.features:
            honoured[flag] = True
    uris = wanted.get("resourceSubscriptions")
    if uris is not None:
        # Unknown URIs are dropped, and so are those the principal may not read: a change
        # notification tells as much about a resource as a read would.
        known = [
            u
            for u in uris
            if core.resources.exists(u)
            and scopes.allowed(needed(core, "resources/read", {"uri": u})[1], ex.principal)
        ]
        if known:
            honoured["resourceSubscriptions"] = known
    listen_id = ex.request.id
    await ex.peer.notify(
        "notifications/subscriptions/acknowledged",
        {**tagged(listen_id), "notifications": honoured},
        related_to=listen_id,
    )
    ex.peer.listens[listen_id] = honoured
    try:
        await ex.peer.closing.wait()
    finally:
        ex.peer.listens.pop(listen_id, None)
    return {"_meta": {SUBSCRIPTION_ID: listen_id}}
