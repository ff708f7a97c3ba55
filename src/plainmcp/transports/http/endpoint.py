"""Endpoint: what the three POST modes (handshake.py, stateless.py, sessionless.py, routed by
modes.py) and the state secret's sharing read of the HTTP app, as a Protocol.

app.py's HttpApp is the one implementation; it imports the modes, so they name this instead.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from plainmcp.connection import Connection
    from plainmcp.served import Served
    from plainmcp.transports.http.answer import Answering
    from plainmcp.transports.http.events import EventLog
    from plainmcp.transports.http.sessions import Sessions


class Endpoint(Protocol):
    """One Streamable HTTP endpoint's state, as the modes serving its POSTs see it."""

    server: Served
    sessions: Sessions
    """The handshake sessions (in memory, or on Redis)."""
    event_log: EventLog
    """Where resumable streams keep their events."""
    keepalive_interval: float
    retry_ms: int
    """What an SSE stream's `retry:` field says."""
    live: set[Connection]
    """Connections of POSTs in progress (ended at shutdown)."""
    answering: Answering
    """The POSTs being answered, which a drain waits for."""
    stopping: asyncio.Event
    """Set by a drain: new requests get 503 from then on."""
