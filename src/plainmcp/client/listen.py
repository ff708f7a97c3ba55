"""The subscriptions/listen stream of a 2026-07-28 client: how list changes and resource
updates reach it when there is no session. One stream at a time, carrying what the client has
callbacks and subscriptions for; subscribing reopens it with the new set of URIs."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.abc

from plainmcp.client.errors import McpError
from plainmcp.client.notifications import Listeners
from plainmcp.notify import LISTEN_FEATURE
from plainmcp.wire.jsonrpc import INVALID_PARAMS

log = logging.getLogger("plainmcp.client")

LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


Request = Callable[..., Awaitable[dict[str, Any]]]
"""The client's `request(method, params, timeout=...)`."""


class Listen:
    """The one listen stream of a client, reopened when what it wants changes."""

    def __init__(
        self,
        request: Request,
        tasks: anyio.abc.TaskGroup,
        listeners: Listeners,
        timeout: float,
    ) -> None:
        self.request = request
        self.tasks = tasks
        self.listeners = listeners
        self.timeout = timeout
        """Seconds to wait for the stream's acknowledgement (the client's discover_timeout)."""
        self.uris: list[str] = []
        self.honoured: dict[str, Any] = {}
        self._scope: anyio.CancelScope | None = None
        self._acked: anyio.Event | None = None

    def wanted(self, capabilities: Mapping[str, Any]) -> dict[str, Any]:
        """The listen filter: list changes the server offers, if anyone hears them, and the
        subscribed URIs."""
        flags: dict[str, Any] = {}
        if self.listeners.on_list_changed is not None:
            for flag, feature in LISTEN_FEATURE.items():
                offered = capabilities.get(feature)
                if isinstance(offered, dict) and offered.get("listChanged") is True:
                    flags[flag] = True
        if self.uris:
            flags["resourceSubscriptions"] = list(self.uris)
        return flags

    def acknowledged(self, params: Mapping[str, Any]) -> None:
        honoured = params.get("notifications")
        self.honoured = dict(honoured) if isinstance(honoured, dict) else {}
        if self._acked is not None:
            self._acked.set()

    async def change(
        self,
        capabilities: Mapping[str, Any],
        *,
        add: str | None = None,
        remove: str | None = None,
    ) -> None:
        if add is not None and add not in self.uris:
            self.uris.append(add)
        if remove is not None and remove in self.uris:
            self.uris.remove(remove)
        error = await self.restart(capabilities)
        if error is not None:
            raise error
        if add is not None and add not in self.honoured.get("resourceSubscriptions", ()):
            self.uris.remove(add)
            raise McpError(INVALID_PARAMS, f"The server offers no updates of {add}")

    async def restart(self, capabilities: Mapping[str, Any]) -> McpError | None:
        """Close the current stream and open one with what is wanted now (of what the server's
        `capabilities` offer); the error, when the server refused it."""
        if self._scope is not None:
            self._scope.cancel()
            self._scope = None
        wanted = self.wanted(capabilities)
        self.honoured = {}
        if not wanted:
            return None
        acked = self._acked = anyio.Event()
        scope = self._scope = anyio.CancelScope()
        failure: list[McpError] = []

        async def run() -> None:
            with scope:
                try:
                    await self.request(LISTEN, {"notifications": wanted}, timeout=None)
                except McpError as exc:
                    failure.append(exc)
                finally:
                    acked.set()

        self.tasks.start_soon(run)
        with anyio.fail_after(self.timeout):
            await acked.wait()
        return failure[0] if failure else None
