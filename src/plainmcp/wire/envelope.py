"""The per-request envelope of 2026-07-28: what `params._meta` must carry.

Sans-I/O, so the dispatcher and the HTTP transport (which answers these errors with 400, or 404
for a removed method, before anything runs) apply the same rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plainmcp.wire import era
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

is_stateless = era.stateless
"""The request names its own protocol version in `_meta` (2026-07-28 and later)."""


def stateless_revision(method: str, params: Mapping[str, Any]) -> Revision:
    """The revision a stateless request is served under; RpcError when its envelope is wrong."""
    if not era.stateless(params):
        raise RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {PROTOCOL_VERSION}")
    meta = params["_meta"]
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
    handshake revision's params unchanged, since its session holds all that."""
    if rev.handshake:
        return dict(params) if params is not None else None
    out = dict(params or {})
    meta = dict(out.get("_meta") or {})
    meta[PROTOCOL_VERSION] = rev.version
    meta[CLIENT_CAPABILITIES] = dict(capabilities)
    meta[CLIENT_INFO] = dict(client_info)
    if log_level is not None:
        meta[LOG_LEVEL] = log_level
    out["_meta"] = meta
    return out
