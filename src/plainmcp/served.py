"""Served: what the parts below the Server are handed of it (the dispatcher, the transports,
the lifespan, the stdio cache, telemetry), as a Protocol.

The Server (server.py) is the face at the top: it starts the transports, so nothing it starts
imports it back. Each name here is public on the Server and documented there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping

    from plainmcp.components import Components
    from plainmcp.connection import Connection, Send
    from plainmcp.lifespan import Lifespan
    from plainmcp.offers import Offers
    from plainmcp.prompts import Prompts
    from plainmcp.store import BlobStore
    from plainmcp.telemetry import Telemetry
    from plainmcp.tools import Tool
    from plainmcp.wire.request_state import StateSigner


class Served(Protocol):
    """The Server as the parts it starts see it."""

    core: Components
    blob_store: BlobStore
    state_signer: StateSigner
    stdio_cache: bool
    lifespan_manager: Lifespan | None

    @property
    def name(self) -> str: ...

    @property
    def telemetry(self) -> Telemetry | None: ...

    @property
    def offers(self) -> Offers: ...

    @property
    def tools_view(self) -> Mapping[str, Tool]: ...

    @property
    def prompts(self) -> Prompts: ...

    @property
    def relay(self) -> Callable[[str, str], None] | None: ...

    @relay.setter
    def relay(self, relay: Callable[[str, str], None] | None) -> None: ...

    def fan_out(self, kind: str, subject: str) -> None: ...

    def connect(
        self, send: Send, *, push: Callable[[bytes], None] | None = None, ask_prefix: str = ...
    ) -> Connection: ...


__all__ = ["Served"]
