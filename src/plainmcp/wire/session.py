"""The state of one handshake session, as plain data, and the decisions that depend on it.

No event loop, no threads, no sockets: a `Connection` holds one `SessionState` beside its task
plumbing, and a shared session store can keep it as `to_dict()` and restore it with
`from_dict()`. 2026-07-28 requests carry their state in `params._meta` and leave this untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from plainmcp.wire.envelope import is_stateless
from plainmcp.wire.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Request,
    RpcError,
)
from plainmcp.wire.meta import LOG_LEVELS
from plainmcp.wire.methods import Method
from plainmcp.wire.revisions import REVISIONS, Revision


@dataclass(frozen=True, slots=True)
class SessionState:
    """Changed only by its events (`open`, `complete_handshake`, `set_log_level`,
    `subscribe`, `unsubscribe`, `restore`), h11's rule: whoever holds it reads its fields and
    reports what happened, and the state decides what that changes. Frozen, so a write from
    outside fails; reads are plain slot reads (the hot path reads `revision` and `features`)."""

    __hash__ = None  # type: ignore[assignment]  # it changes: not a key

    revision: Revision | None = None
    """What initialize negotiated; None until then (and for a connection that only ever
    served 2026-07-28 requests)."""
    client_info: Mapping[str, Any] = field(default_factory=dict)
    client_capabilities: Mapping[str, Any] = field(default_factory=dict)
    features: frozenset[str] = frozenset()
    """What initialize offered (capability names); it holds for the whole session."""
    initialized: bool = False
    """The client sent notifications/initialized, the handshake's last step."""
    log_level: str | None = None
    """The minimum level the client asked for with logging/setLevel (None: not asked)."""
    subscriptions: AbstractSet[str] = frozenset()
    """Resource URIs the client subscribed to (resources/subscribe)."""

    # --- events ----------------------------------------------------------------------------

    def open(
        self,
        revision: Revision,
        client_info: Mapping[str, Any],
        client_capabilities: Mapping[str, Any],
        features: frozenset[str],
    ) -> None:
        """initialize succeeded: the session speaks `revision` from now on."""
        _set(self, "revision", revision)
        _set(self, "client_info", client_info)
        _set(self, "client_capabilities", client_capabilities)
        _set(self, "features", features)

    def complete_handshake(self) -> None:
        """The client sent notifications/initialized."""
        _set(self, "initialized", True)

    def set_log_level(self, level: str) -> None:
        """logging/setLevel: send log messages of `level` and above from now on."""
        if level not in LOG_LEVELS:
            raise ValueError(f"not a log level: {level!r}")
        _set(self, "log_level", level)

    def subscribe(self, uri: str) -> None:
        """resources/subscribe: updates of `uri` go to this session."""
        _set(self, "subscriptions", frozenset((*self.subscriptions, uri)))

    def unsubscribe(self, uri: str) -> None:
        """resources/unsubscribe (of a URI never subscribed to: nothing changes)."""
        if uri in self.subscriptions:
            _set(self, "subscriptions", frozenset(self.subscriptions - {uri}))

    def restore(self, stored: SessionState) -> None:
        """A shared store's newer copy replaces this state in place (requests running here
        hold this object)."""
        for name in SessionState.__dataclass_fields__:
            _set(self, name, getattr(stored, name))

    # --- the rules -------------------------------------------------------------------------

    def refusal(self, method: Method) -> RpcError | None:
        """Why a session request for `method` cannot be served now (None: it can): not before
        initialize, initialize only once, and only what the session's revision has."""
        rev = self.revision
        if rev is None:
            if method.before_initialize:
                return None
            return RpcError(
                INVALID_PARAMS,
                f"Server not initialized: send initialize before {method.name}",
            )
        if method.starts_session:
            return RpcError(INVALID_REQUEST, "Already initialized")
        if rev.version not in method.revisions:
            return RpcError(METHOD_NOT_FOUND, f"Method not found: {method.name}")
        return None

    # --- what may be sent ------------------------------------------------------------------

    def announces(self, feature: str) -> bool:
        """A list_changed notification for `feature` ("tools", "prompts", "resources") goes to
        this session: its revision sends them to the session, and initialize offered the
        feature (and so its listChanged)."""
        rev = self.revision
        return rev is not None and rev.session_notifications and feature in self.features

    def hears_updates_of(self, uri: str) -> bool:
        """notifications/resources/updated for `uri` goes to this session."""
        rev = self.revision
        return rev is not None and rev.session_notifications and uri in self.subscriptions

    @property
    def errors_without_id(self) -> bool:
        """An error for a message whose id is unknown may be sent. Revisions before 2025-11-25
        require an id on every response; before initialize the error goes out in the form of
        our latest revision (useful to someone typing at the server by hand)."""
        return self.revision is None or self.revision.error_without_id

    def batch_refusal(self) -> RpcError | None:
        """Why a JSON-RPC batch is refused in this session (None: batches are served)."""
        rev = self.revision
        if rev is not None and rev.batches:
            return None
        version = rev.version if rev else "none negotiated"
        return RpcError(
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are only part of revision 2025-03-26"
            f" (this session: {version})",
        )

    # --- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-serializable data (lists sorted, so equal states dump equal)."""
        return {
            "revision": self.revision.version if self.revision is not None else None,
            "client_info": dict(self.client_info),
            "client_capabilities": dict(self.client_capabilities),
            "features": sorted(self.features),
            "initialized": self.initialized,
            "log_level": self.log_level,
            "subscriptions": sorted(self.subscriptions),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionState:
        """The state `to_dict()` gave; ValueError for anything else (a store's data is checked,
        not trusted)."""
        version = data.get("revision")
        if version is None:
            revision = None
        else:
            revision = REVISIONS.get(version) if isinstance(version, str) else None
            if revision is None or not revision.handshake:
                raise ValueError(f"not a handshake revision: {version!r}")
        info, capabilities = data.get("client_info"), data.get("client_capabilities")
        if not isinstance(info, dict) or not isinstance(capabilities, dict):
            raise ValueError("client_info and client_capabilities must be objects")
        features, subscriptions = data.get("features"), data.get("subscriptions")
        if not _strings(features) or not _strings(subscriptions):
            raise ValueError("features and subscriptions must be lists of strings")
        level, initialized = data.get("log_level"), data.get("initialized")
        if level is not None and level not in LOG_LEVELS:
            raise ValueError(f"not a log level: {level!r}")
        if not isinstance(initialized, bool):
            raise ValueError("initialized must be a boolean")
        return cls(
            revision=revision,
            client_info=dict(info),
            client_capabilities=dict(capabilities),
            features=frozenset(features),
            initialized=initialized,
            log_level=level,
            subscriptions=frozenset(subscriptions),
        )


_set = object.__setattr__
"""How the events change a frozen state (nothing else calls it)."""


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def unbatchable(request: Request, method: Method | None) -> str | None:
    """Why a request may not travel in a batch: the handshake never, and 2026-07-28 has no
    batches. `method` is the request's table entry (None: not a method we serve)."""
    if method is not None and method.starts_session:
        return f"{method.name} must not be batched"
    if is_stateless(request.params):
        return "Invalid Request: a 2026-07-28 request cannot travel in a JSON-RPC batch"
    return None
