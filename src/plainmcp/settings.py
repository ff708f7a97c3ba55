"""The Server's settings, frozen and grouped by concern, built from `Server(...)`'s keywords.

Each group is what one part of the server reads: the identity (initialize, server/discover),
results and guards (tools/call), limits (any transport), caching (2026-07-28 freshness hints,
what lists show) and request state. A component keeps the `Settings` it was given and reads the
group it needs; changing one (`app.page_size = 50`) replaces the group, never edits it.
Validation lives here, so a bad keyword is refused before anything is built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from plainmcp.model.options import PayloadLimits, ResultOptions
from plainmcp.wire.render import CachePolicy

if TYPE_CHECKING:
    from plainmcp.model.blocks import Icon
    from plainmcp.telemetry import Telemetry


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the server says it is (serverInfo) and what it tells the model (instructions)."""

    name: str
    version: str = "0.1.0"
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: tuple[Icon, ...] | None = None
    instructions: str | None = None


@dataclass(frozen=True, slots=True)
class Results:
    """How results are built and guarded (docs/results.md)."""

    options: ResultOptions
    payload_limits: PayloadLimits
    """What one tool result may carry inline ("Payload guards")."""
    mask_errors: bool = False
    describe_parts: bool = True
    """Tools whose results may be cut say so in their description."""
    continuation: str | None = None
    """The built-in continuation tool's name (None: off)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that hold whatever the transport."""

    page_size: int = 1000
    max_message_bytes: int = 64 * 1024 * 1024
    tool_timeout: float | None = None
    """Seconds any tool may run, unless the tool sets its own timeout."""
    max_concurrent_tools: int | None = None
    """Tool calls beyond this many wait for a running one to finish (None: no bound)."""
    client_request_timeout: float = 120.0
    """Seconds to wait for the client to answer elicitation, sampling or roots requests."""

    def __post_init__(self) -> None:
        if self.page_size < 1:
            raise ValueError("page_size must be at least 1")
        if self.tool_timeout is not None and self.tool_timeout <= 0:
            raise ValueError("tool_timeout must be positive or None")
        if self.max_concurrent_tools is not None and self.max_concurrent_tools < 1:
            raise ValueError("max_concurrent_tools must be at least 1 or None")


@dataclass(frozen=True, slots=True)
class Caching:
    """What lists show and how long clients may keep them."""

    cache: CachePolicy
    """2026-07-28 freshness hints (ttlMs, cacheScope) on discover, lists and reads."""
    hide_unauthorized: bool = False
    """Lists leave out what the principal may not call (so their cacheScope is private)."""


@dataclass(frozen=True, slots=True)
class State:
    """Where refs and request state outlive a request."""

    state_secret: bytes | str | None = None
    state_ttl: float = 600.0
    stdio_cache: bool = True
    """Over stdio, keep blobs and the state secret in the user's cache (stdio_cache.py)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Every group, as one value (what `Server.settings` holds)."""

    identity: Identity
    results: Results
    limits: Limits
    caching: Caching
    state: State
    telemetry: Telemetry | None = None

    def with_field(self, name: str, value: Any) -> Settings:
        """A copy with the field `name` of whichever group has it set to `value`."""
        for group in dataclasses.fields(self):
            part = getattr(self, group.name)
            if dataclasses.is_dataclass(part) and name in part.__dataclass_fields__:
                changed: Any = dataclasses.replace(part, **{name: value})  # type: ignore[type-var]
                return dataclasses.replace(self, **{group.name: changed})
        raise AttributeError(name)


MIRRORED = {
    **dict.fromkeys(
        ("name", "version", "title", "description", "website_url", "icons", "instructions"),
        "identity",
    ),
    **dict.fromkeys(("options", "payload_limits", "mask_errors", "describe_parts"), "results"),
    **dict.fromkeys(
        (
            "page_size",
            "max_message_bytes",
            "tool_timeout",
            "max_concurrent_tools",
            "client_request_timeout",
        ),
        "limits",
    ),
    **dict.fromkeys(("cache", "hide_unauthorized"), "caching"),
    "stdio_cache": "state",
}
"""The Server attributes that mirror a field of its settings (`app.page_size`), and the group
holding each: assigning one replaces that group (server.py's `__setattr__`)."""


def build(
    name: str,
    version: str,
    *,
    title: str | None,
    description: str | None,
    website_url: str | None,
    icons: Sequence[Icon] | None,
    instructions: str | None,
    options: ResultOptions | None,
    mask_errors: bool,
    page_size: int,
    max_message_bytes: int,
    tool_timeout: float | None,
    max_concurrent_tools: int | None,
    client_request_timeout: float,
    payload_limits: PayloadLimits | None,
    list_ttl_ms: int,
    read_ttl_ms: int,
    cache_scope: Literal["public", "private"],
    state_secret: bytes | str | None,
    state_ttl: float,
    telemetry: Telemetry | None,
    hide_unauthorized: bool,
    continuation: str | None,
    describe_parts: bool,
    stdio_cache: bool,
) -> Settings:
    """`Server(...)`'s keywords as Settings (ValueError for one that cannot work)."""
    limits = Limits(
        page_size, max_message_bytes, tool_timeout, max_concurrent_tools, client_request_timeout
    )
    if list_ttl_ms < 0 or read_ttl_ms < 0:
        raise ValueError("list_ttl_ms and read_ttl_ms must be >= 0")
    if hide_unauthorized:
        cache_scope = "private"  # lists differ per principal
    return Settings(
        identity=Identity(
            name,
            version,
            title,
            description,
            website_url,
            tuple(icons) if icons else None,
            instructions,
        ),
        results=Results(
            options or ResultOptions(),
            payload_limits or PayloadLimits(),
            mask_errors,
            describe_parts,
            continuation,
        ),
        limits=limits,
        caching=Caching(CachePolicy(list_ttl_ms, read_ttl_ms, cache_scope), hide_unauthorized),
        state=State(state_secret, state_ttl, stdio_cache),
        telemetry=telemetry,
    )
