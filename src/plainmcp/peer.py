"""The peer: what a request's Exchange, its Context and its handler may ask of the client's end.

A Protocol, so that what serves a request (exchange.py, context.py, handlers/) depends on this
small surface and not on the Connection (connection.py, which implements it): notifying the
client, asking it something, the session's state (log level, subscriptions), cancellation and
the request's stream. Imports only wire/.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from plainmcp.wire.jsonrpc import RequestId
from plainmcp.wire.session import SessionState

Send = Callable[[bytes], Coroutine[Any, Any, None]]
"""Where a transport writes one encoded message."""


class Cancellable(Protocol):
    """How a running request is cancelled (an anyio CancelScope, or connection.py's record)."""

    @property
    def cancel_called(self) -> bool: ...

    def cancel(self) -> None: ...


class Peer(Protocol):
    """The client's end of one connection, as the requests served on it see it."""

    session: SessionState
    """The handshake session's state (revision, client, log level, subscriptions)."""
    principal: Any
    """Who the transport authenticated (HTTP bearer auth); None when nobody was."""
    listens: dict[RequestId, dict[str, Any]]
    """Open subscriptions/listen streams: request id -> what was honoured."""
    closing: asyncio.Event
    """Set when the transport is ending: open listen streams answer and close."""

    async def notify(
        self, method: str, params: dict[str, Any], *, related_to: RequestId | None = None
    ) -> None:
        """Send a notification, on the stream of the request `related_to` names if it has one."""
        ...

    async def ask(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        related_to: RequestId | None = None,
    ) -> dict[str, Any]:
        """Send a request to the client and wait for its result (RpcError, TimeoutError)."""
        ...

    def close_stream(self, request_id: RequestId) -> bool:
        """Close the request's response stream while it keeps running (False: cannot)."""
        ...

    def cancel_scope(self, request_id: RequestId) -> Cancellable | None:
        """What the client cancels `request_id` through (None once it has finished)."""
        ...
