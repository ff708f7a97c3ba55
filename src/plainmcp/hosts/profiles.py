"""What each known MCP client does with a tool result, as data.

Like `wire/revisions.py` for revisions, this table is the only place that knows hosts apart: the
renderer reads it (hosts/adapt.py), `plainmcp check` reads it, and docs/hosts.md is generated from
it (`python -m plainmcp.hosts.profiles`). A profile is chosen by the `clientInfo.name` the client
sends (at `initialize`, or in each 2026-07-28 request's `_meta`).

Every cell cites its source: an issue, the client's docs or code, or a test of this project that
drives the real host. A cell nobody verified is `UNKNOWN` and takes the generic behaviour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

Reads = Literal["content", "structured", "both"]
"""For a result with both `content` and `structuredContent`: what reaches the model."""
ErrorBlocks = Literal["first", "all"]
"""For an isError result with several content blocks: which reach the model."""
Carried = Literal["shown", "text", "file", "dropped"]
"""What becomes of a block kind: handed on as is, turned into a text line, saved to a file the
model is told about, or dropped."""


@dataclass(frozen=True, slots=True)
class Cell(Generic[T]):
    """One fact about a host and where it comes from. `value` None means unknown."""

    value: T | None
    source: str


UNKNOWN: Cell[Any] = Cell(None, "unknown")


@dataclass(frozen=True, slots=True)
class HostProfile:
    key: str
    """Stable identifier (`plainmcp check --host`, docs anchors)."""
    title: str
    client_names: tuple[str, ...]
    """`clientInfo.name` values that select this profile (compared case-insensitively)."""
    reads: Cell[Reads]
    error_blocks: Cell[ErrorBlocks]
    images: Cell[Carried]
    audio: Cell[Carried]
    embedded: Cell[Carried]
    links: Cell[Carried]
    limit_chars: Cell[int]
    """Characters of one result over which the host stops handing the whole of it inline."""
    limit_raise: Cell[str]
    """How a user raises that limit."""
    max_result_size_meta: Cell[bool]
    """Honours a per-tool `_meta["anthropic/maxResultSizeChars"]` in tools/list."""
    reads_resources: Cell[bool]
    """The model can read a resource (follow a resource_link) through the host."""


GENERIC = HostProfile(
    key="generic",
    title="Any other client",
    client_names=(),
    reads=Cell("both", "the spec: structuredContent plus its serialized text for compatibility"),
    error_blocks=Cell("all", "the spec: content is a list of blocks"),
    images=Cell("shown", "the spec"),
    audio=Cell("shown", "the spec"),
    embedded=Cell("shown", "the spec"),
    links=Cell("shown", "the spec"),
    limit_chars=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, "an Anthropic extension"),
    reads_resources=UNKNOWN,
)
"""What plainmcp assumes of a client it does not know: the spec's reading, and no size limit
beyond the server's own PayloadLimits."""


PROFILES: tuple[HostProfile, ...] = (GENERIC,)
"""Every profile; GENERIC last."""

_BY_NAME: dict[str, HostProfile] = {name.lower(): p for p in PROFILES for name in p.client_names}


def profile_for(client_info: Mapping[str, Any]) -> HostProfile:
    """The profile of the client that sent `client_info`; GENERIC for any other."""
    name = client_info.get("name")
    if not isinstance(name, str):
        return GENERIC
    return _BY_NAME.get(name.lower(), GENERIC)


def known(profile: HostProfile, cell: str) -> Any:
    """A cell's value, or GENERIC's where the profile's is unknown."""
    value = getattr(profile, cell).value
    return getattr(GENERIC, cell).value if value is None else value
