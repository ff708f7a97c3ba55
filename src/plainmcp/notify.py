"""Notification fan-out: list changes and resource updates to every client that may hear them.

A handshake session hears them when its state says so (`SessionState.announces`,
`hears_updates_of`); a 2026-07-28 client through each subscriptions/listen stream that opted in,
its notifications tagged with the stream's id. Safe to call from any thread (`Connection.post`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from plainmcp.wire import jsonrpc
from plainmcp.wire.meta import SUBSCRIPTION_ID

if TYPE_CHECKING:
    from plainmcp.connection import Connection

LISTEN_FEATURE = {
    "toolsListChanged": "tools",
    "promptsListChanged": "prompts",
    "resourcesListChanged": "resources",
}
"""The subscriptions/listen flags, and the feature whose list changes each opts in to."""
_LISTEN_FLAG = {feature: flag for flag, feature in LISTEN_FEATURE.items()}

UPDATED = "notifications/resources/updated"


def list_changed(connections: Iterable[Connection], feature: str) -> None:
    """The list of `feature` ("tools", "prompts", "resources") changed."""
    method = f"notifications/{feature}/list_changed"
    flag = _LISTEN_FLAG.get(feature)  # an extension's registry has no listen flag
    for conn in list(connections):
        if conn.session.announces(feature):
            conn.post(jsonrpc.notification_message(method))
        for listen_id, honoured in list(conn.listens.items()):
            if flag is not None and honoured.get(flag):
                conn.post(jsonrpc.notification_message(method, tagged(listen_id)))


def resource_updated(connections: Iterable[Connection], uri: str) -> None:
    """The resource at `uri` changed."""
    for conn in list(connections):
        if conn.session.hears_updates_of(uri):
            conn.post(jsonrpc.notification_message(UPDATED, {"uri": uri}))
        for listen_id, honoured in list(conn.listens.items()):
            if uri in honoured.get("resourceSubscriptions", ()):
                conn.post(jsonrpc.notification_message(UPDATED, tagged(listen_id, uri=uri)))


def tagged(listen_id: Any, **params: Any) -> dict[str, Any]:
    """Notification params that name the subscriptions/listen stream they belong to."""
    return {**params, "_meta": {SUBSCRIPTION_ID: listen_id}}
