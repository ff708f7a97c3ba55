"""How a client chooses its revision (`protocol="auto"`), as decisions on what it was answered.

Sans-I/O: the client sends `server/discover` at `first_probe()` and passes what came back to
`after_result` or `after_error`; each says what to do next. Only positive evidence of a
stateless server (a discover result naming a revision we share) makes the client stateless;
anything else falls back to the `initialize` handshake, the official SDK's policy too. The one
refusal: a server naming only stateless revisions we do not speak.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.wire import envelope
from plainmcp.wire.meta import UNSUPPORTED_PROTOCOL_VERSION
from plainmcp.wire.revisions import (
    HANDSHAKE_VERSIONS,
    LATEST_HANDSHAKE,
    REVISIONS,
    STATELESS_VERSIONS,
    Revision,
)


@dataclass(frozen=True, slots=True)
class Adopt:
    """Speak this stateless revision from now on."""

    revision: Revision


@dataclass(frozen=True, slots=True)
class Probe:
    """Send server/discover again, at this version (the server named it)."""

    version: str


@dataclass(frozen=True, slots=True)
class Handshake:
    """The server is not stateless (or not one we share a revision with): initialize."""

    version: str = LATEST_HANDSHAKE


@dataclass(frozen=True, slots=True)
class Refuse:
    """No revision in common: the server speaks only stateless revisions we do not."""

    reason: str


Step = Adopt | Probe | Handshake | Refuse


def first_probe() -> str:
    return STATELESS_VERSIONS[-1]


def is_stateless(version: str) -> bool:
    """`version` is a revision without a handshake (server/discover, then `_meta`)."""
    return envelope.is_stateless(version=version)


def _mutual(versions: object) -> list[str]:
    if not isinstance(versions, list):
        return []
    return [v for v in STATELESS_VERSIONS if v in versions]


def after_result(result: Mapping[str, Any]) -> Adopt | Handshake:
    """A discover result: adopt the newest stateless revision it lists; one listing only
    handshake revisions (some servers answer discover that way) means the handshake."""
    mutual = _mutual(result.get("supportedVersions"))
    if not mutual:
        return Handshake()
    return Adopt(REVISIONS[mutual[-1]])


def after_error(code: int, data: object, *, retried: bool) -> Probe | Handshake | Refuse:
    """A JSON-RPC error (or an HTTP refusal read as one) to server/discover."""
    if code == UNSUPPORTED_PROTOCOL_VERSION:
        supported = data.get("supported") if isinstance(data, dict) else None
        mutual = _mutual(supported)
        if mutual and not retried:
            return Probe(mutual[-1])
        if isinstance(supported, list) and not any(v in HANDSHAKE_VERSIONS for v in supported):
            return Refuse(
                f"The server speaks only {', '.join(map(str, supported))}; this client speaks "
                f"{', '.join(REVISIONS)}"
            )
    return Handshake()


def after_handshake_error(code: int, data: object, *, retried: bool) -> Probe | None:
    """initialize refused with -32022 naming a stateless revision we share (the server took
    a slow probe's answer as the connection's era): discover once more, at that version."""
    if code != UNSUPPORTED_PROTOCOL_VERSION or retried:
        return None
    mutual = _mutual(data.get("supported") if isinstance(data, dict) else None)
    return Probe(mutual[-1]) if mutual else None


def ask_again(protocol: str, code: int, data: object, *, retried: bool) -> bool:
    """A fixed revision's server/discover refused with -32022 that names `protocol` among the
    supported ones (a server that rejects a client's first request until it has seen a
    supported version stated, as SEP-2575 allows): send it once more; any other refusal stands."""
    if code != UNSUPPORTED_PROTOCOL_VERSION or retried:
        return False
    supported = data.get("supported") if isinstance(data, dict) else None
    return isinstance(supported, list) and protocol in supported
