"""Exchange: what one request is served under, whichever era it came from.

A handshake-era request inherits its session (the revision and capabilities of `initialize`);
a 2026-07-28 request carries them itself in `params._meta`. Handlers and the Context see only
this object, so they serve both eras from one code path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plainmcp.wire.jsonrpc import Request
from plainmcp.wire.revisions import Revision

if TYPE_CHECKING:
    from plainmcp.hosts.profiles import HostProfile
    from plainmcp.peer import Peer


@dataclass(slots=True)
class Exchange:
    """Built per request and never changed but for `host`, which tools/call fills in once (not
    frozen: a frozen __init__ costs several times more, and this is the hot path)."""

    peer: Peer
    """The client's end the request came from (a Connection; see peer.py)."""
    request: Request
    revision: Revision
    client_info: Mapping[str, Any]
    client_capabilities: Mapping[str, Any]
    features: frozenset[str]
    """The capabilities this request may use (offered at initialize, or all for stateless)."""
    request_log_level: str | None = field(default=None)
    """2026-07-28: the level the request's `_meta` asked for (no level: no log messages)."""
    answers: Mapping[str, Any] = field(default_factory=dict)
    """2026-07-28: the client's answers to input requests so far (from requestState and this
    retry's inputResponses), by input key."""
    principal: Any = None
    """Who the transport authenticated (HTTP bearer auth), or None."""
    host: HostProfile | None = None
    """The client's host profile, looked up by tools/call for its guards and read again by its
    rendering step (None: not looked up)."""
    task_id: str | None = None
    """Set once the request runs on as a task (plainmcp.tasks): its questions to the client go
    through the task (its peer), never into an input-required result."""

    @property
    def params(self) -> dict[str, Any]:
        return self.request.params

    @property
    def meta(self) -> Mapping[str, Any]:
        meta = self.request.params.get("_meta")
        return meta if isinstance(meta, dict) else {}

    @property
    def stateless(self) -> bool:
        """The request carries its own revision and client (2026-07-28): no session."""
        return not self.revision.handshake

    @property
    def log_level(self) -> str | None:
        """The minimum level to send; None sends everything (handshake era before setLevel)."""
        return self.request_log_level if self.stateless else self.peer.session.log_level

    @property
    def logging_allowed(self) -> bool:
        """2026-07-28 sends log messages only when the request asked for a level."""
        return not self.stateless or self.request_log_level is not None
