"""The per-request envelope of 2026-07-28: what `params._meta` must carry, and THE era
predicate (`is_stateless`): the handshake, or a request naming its own revision.

Sans-I/O, so the dispatcher, the batch rules, the HTTP transport (which answers these errors
with 400, or 404 for a removed method, before anything runs) and the client tell the eras
apart and apply the rules the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plainmcp.wire.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from plainmcp.wire.meta import (
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    LOG_LEVEL,
    LOG_LEVELS,
    PROTOCOL_VERSION,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from plainmcp.wire.methods import METHODS
from plainmcp.wire.revisions import REVISIONS, STATELESS_VERSIONS, Revision


def is_stateless(params: Mapping[str, Any] | None = None, *, version: str | None = None) -> bool:
    """The message belongs to the era without a handshake (2026-07-28 and later): its params'
    `_meta` names a protocol version (any value: a wrong one is refused later, as that era's
    error), or `version` (a header's or a negotiated version, as given) names a revision
    without a handshake."""
    if params is not None:
        meta = params.get("_meta")
        if isinstance(meta, dict) and PROTOCOL_VERSION in meta:
            return True
    if version is None:
        return False
    rev = REVISIONS.get(version)
    return rev is not None and not rev.handshake


def stateless_revision(method: str, params: Mapping[str, Any]) -> Revision:
    """The revision a stateless request is served under; RpcError when its envelope is wrong."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or PROTOCOL_VERSION not in meta:  # is_stateless's test, inlined
        raise RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {PROTOCOL_VERSION}")
    version = meta[PROTOCOL_VERSION]
    if not isinstance(version, str):
        raise RpcError(INVALID_PARAMS, f"Invalid params: {PROTOCOL_VERSION} must be a string")
    rev = REVISIONS.get(version)
    if rev is None or rev.handshake:
        raise RpcError(
            UNSUPPORTED_PROTOCOL_VERSION,
            f"Unsupported protocol version: {version}",
            {"supported": list(STATELESS_VERSIONS), "requested": version},
        )
    if not isinstance(meta.get(CLIENT_CAPABILITIES), dict):
        raise RpcError(
            INVALID_PARAMS,
            f"Invalid params: _meta must carry {CLIENT_CAPABILITIES} (an object)",
        )
    level = meta.get(LOG_LEVEL)
    if level is not None and level not in LOG_LEVELS:
        raise RpcError(
            INVALID_PARAMS,
            f"Invalid params: {LOG_LEVEL} must be one of {', '.join(LOG_LEVELS)}",
        )
    known = METHODS.get(method)
    if known is not None and rev.version not in known.revisions:
        raise RpcError(
            METHOD_NOT_FOUND,
            f"Method not found: {method} is not part of protocol revision {rev.version}",
        )
    return rev


def declaring(params: Mapping[str, Any] | None, extension: str) -> dict[str, Any]:
    """`params` that declare `extension` for this one request (a stateless revision's
    `_meta`; `stamp` adds the client's own capabilities beside it)."""
    out = dict(params or {})
    meta = dict(out.get("_meta") or {})
    own = meta.get(CLIENT_CAPABILITIES)
    own = dict(own) if isinstance(own, Mapping) else {}
    extensions = own.get("extensions")
    own["extensions"] = {**(extensions if isinstance(extensions, Mapping) else {}), extension: {}}
    meta[CLIENT_CAPABILITIES] = own
    out["_meta"] = meta
    return out


def stamp(
    params: Mapping[str, Any] | None,
    rev: Revision,
    *,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any],
    log_level: str | None = None,
) -> dict[str, Any] | None:
    """A client's request params as `rev` wants them: a stateless revision's `_meta` envelope
    on every request (version, capabilities, who is asking, the log level it wants); a
    handshake revision's params unchanged, since its session holds all that. Capabilities the
    params' own `_meta` already names (`declaring`: an extension declared for one request) are
    kept, and its extensions beside the client's own."""
    if rev.handshake:
        return dict(params) if params is not None else None
    out = dict(params or {})
    meta = dict(out.get("_meta") or {})
    meta[PROTOCOL_VERSION] = rev.version
    own = meta.get(CLIENT_CAPABILITIES)
    own = own if isinstance(own, Mapping) else {}
    merged = {**capabilities, **own}
    if isinstance(own.get("extensions"), Mapping) and "extensions" in capabilities:
        merged["extensions"] = {**capabilities["extensions"], **own["extensions"]}
    meta[CLIENT_CAPABILITIES] = merged
    meta[CLIENT_INFO] = dict(client_info)
    if log_level is not None:
        meta[LOG_LEVEL] = log_level
    out["_meta"] = meta
    return out
