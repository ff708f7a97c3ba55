"""The host table's cells: what one fact about a host is (`Cell`, with its source), a host's
row (`HostProfile`), and GENERIC, the spec's reading that an unknown cell falls back to. The
rows themselves are by host family, in this package's other modules."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from plainmcp.model.truncate import Unit
from plainmcp.wire.extension_ids import SKILLS_EXTENSION, TASKS_EXTENSION

T = TypeVar("T")

Reads = Literal["content", "structured", "both"]
"""For a result with both `content` and `structuredContent`: what reaches the model."""
ErrorBlocks = Literal["first", "all"]
"""For an isError result with several content blocks: which reach the model."""
Carried = Literal["shown", "text", "bare", "file", "dropped", "refused"]
"""What becomes of a block kind: handed on as is, turned into text, turned into its bare text
(an embedded resource without its URI), saved to a file the model is told about, dropped, or
refused (the client fails the whole call on it)."""
TextJoin = Literal["apart", "run together"]
"""The text blocks of one result: kept apart (a list, or a blank line between them), or run
together into one string with nothing, or only a newline, between them."""


class Cell(NamedTuple, Generic[T]):
    """One fact about a host and where it comes from. `value` None means unknown.

    Cells and profiles are NamedTuples, not dataclasses: the table is made at every start, and
    a NamedTuple class in a sixth of the time."""

    value: T | None
    source: str


UNKNOWN: Cell[Any] = Cell(None, "unknown")


class Declared(NamedTuple):
    """What a client says of itself when it connects: the revision it asks for, whether it
    asks `server/discover` first, and its client capabilities (the `capabilities` of its
    initialize, or the clientCapabilities in a 2026-07-28 request's `_meta`).

    `capabilities` is that object as canonical JSON text (sorted keys, no spaces): a string, so
    a profile stays hashable (hosts/budget.py caches by profile) at no cost per call, and two
    Declared are equal exactly when the objects are. Make one with `Declared.of`."""

    revision: str
    discover: bool
    capabilities: str

    @classmethod
    def of(cls, revision: str, discover: bool, capabilities: Mapping[str, Any]) -> Declared:
        return cls(revision, discover, json.dumps(capabilities, sort_keys=True, separators=_TIGHT))

    @property
    def object(self) -> dict[str, Any]:
        """The capabilities as the client sent them."""
        found: dict[str, Any] = json.loads(self.capabilities)
        return found

    @property
    def extensions(self) -> tuple[str, ...]:
        """The extensions it declares (capabilities.extensions), by identifier."""
        return tuple(self.object.get("extensions") or ())

    @property
    def tasks(self) -> bool:
        """It asks for tasks: the 2025-11-25 `tasks` capability or the tasks extension."""
        return "tasks" in self.object or TASKS_EXTENSION in self.extensions

    @property
    def skills(self) -> bool:
        """It declares the skills extension (SEP-2640)."""
        return SKILLS_EXTENSION in self.extensions


_TIGHT = (",", ":")


class HostProfile(NamedTuple):
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
    limit: Cell[int]
    """The size of one result (in `limit_unit`) over which the host stops handing the whole of
    it inline."""
    limit_raise: Cell[str]
    """How a user raises that limit."""
    max_result_size_meta: Cell[bool]
    """Honours a per-tool `_meta["anthropic/maxResultSizeChars"]` in tools/list."""
    reads_resources: Cell[bool]
    """The model can read a resource (follow a resource_link) through the host."""
    text_join: Cell[TextJoin] = UNKNOWN
    error_marked: Cell[bool] = UNKNOWN
    """The model is told an isError result is a failure (not given its blocks as a success's)."""
    limit_unit: Cell[Unit] = UNKNOWN
    """What `limit` counts."""
    json_text_parsed: Cell[bool] = UNKNOWN
    """Without structuredContent, the host parses a first text block that is JSON as the
    structured value, and fails the call when that is not an object."""
    verified: str = ""
    """The client versions (or source revision) the cells were read at."""
    client_prefixes: tuple[str, ...] = ()
    """Starts of `clientInfo.name` values that select this profile, for a client that adds
    to its name (Qwen Code: its own name, then the server's name in its config)."""
    declared: Cell[Declared] = UNKNOWN
    """What the host declares when it connects, run as the tests drive it (headless: one
    prompt, then exit; a server over stdio)."""
    declared_http: Cell[Declared] = UNKNOWN
    """What it declares to a server over Streamable HTTP, where that differs from `declared`
    (which is over stdio)."""
    declared_legacy: Cell[Declared] = UNKNOWN
    """For a host that asks `server/discover` first: the initialize it falls back to when the
    server does not know that method (a server before 2026-07-28)."""
    declared_interactive: Cell[Declared] = UNKNOWN
    """What it declares run interactively (its terminal UI), where that differs from
    `declared`; refused server/discover, it falls back to `declared_legacy`."""


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
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, "an Anthropic extension"),
    reads_resources=UNKNOWN,
    text_join=Cell("apart", "the spec: content is a list of blocks"),
    error_marked=Cell(True, "the spec: isError tells the client the call failed"),
    limit_unit=Cell("characters", "plainmcp's own PayloadLimits"),
    json_text_parsed=Cell(False, "the spec: a text block is text"),
)
"""What plainmcp assumes of a client it does not know: the spec's reading, and no size limit
beyond the server's own PayloadLimits."""


MATRIX_TEST = "tests/hosts/test_matrix.py (driven here)"
"""Cited by rows of several families: the matrix drives each host over stdio."""
PYDANTIC_AI_TEST = "tests/hosts/test_pydantic_ai.py (2.68.0, driven here)"
