"""The options every Client constructor takes (`Client.stdio`, `.memory`, `.http`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypedDict

from plainmcp.client.callbacks import ElicitCallback, Roots, SampleCallback
from plainmcp.client.notifications import OnListChanged, OnLog, OnProgress, OnResourceUpdated

DEFAULT_MAX_MESSAGE = 64 * 1024 * 1024
"""The largest message the client reads from a server (bytes): past it, a clear error."""
DISCOVER_TIMEOUT = 10.0
"""Seconds `protocol="auto"` waits for server/discover before taking the server as older."""


class ClientOptions(TypedDict, total=False):
    protocol: str
    """"auto" (the default: server/discover, else initialize) or a revision, e.g. "2026-07-28"."""
    protocol_version: str
    """The older spelling of a fixed `protocol`."""
    elicit: ElicitCallback
    sample: SampleCallback
    roots: Roots
    extensions: Mapping[str, Mapping[str, Any]]
    """The extensions the client declares under `capabilities.extensions`: id -> settings."""
    on_progress: OnProgress
    on_log: OnLog
    on_list_changed: OnListChanged
    on_resource_updated: OnResourceUpdated
    log_level: str
    """The least severe log message wanted (set_log_level changes it later)."""
    request_timeout: float | None
    """Seconds any request may take (None: no limit); a call's own `timeout=` overrides it."""
    max_message_size: int
    discover_timeout: float
    poll_sleep: Callable[[float], Awaitable[None]]
    """How the client waits between a task's polls and before resuming an HTTP stream
    (default `anyio.sleep`): a test passes its own to drive time."""


class _Default:
    """The `timeout=` of a call that names none: the client's `request_timeout`."""


DEFAULT_TIMEOUT: Any = _Default()
