"""The Streamable HTTP rules that do not need a socket (sans-I/O).

What a request's headers must say, given its body, and which status code a JSON-RPC answer
travels with. basic/transports/streamable-http.mdx of each revision; ../spec-notes §5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    STORE_UNAVAILABLE,
    Request,
    RpcError,
)
from plainmcp.wire.meta import (
    HEADER_MISMATCH,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PROTOCOL_VERSION,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from plainmcp.wire.methods import METHODS, Method
from plainmcp.wire.param_headers import argument_at, header_matches
from plainmcp.wire.revisions import REVISIONS

_STATELESS_STATUS = {
    METHOD_NOT_FOUND: 404,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
}
_SESSION_STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400}


def status_for(reply: Mapping[str, Any], *, stateless: bool) -> int:
    """The status a single JSON reply goes with. Errors the spec gives no status for stay 200:
    the JSON-RPC error in the body is the answer; a shared store that did not answer is 503."""
    error = reply.get("error")
    if not isinstance(error, dict):
        return 200
    table = _STATELESS_STATUS if stateless else _SESSION_STATUS
    code = error.get("code")
    if code == INTERNAL_ERROR and error.get("message") == STORE_UNAVAILABLE:
        return 503
    return table.get(code, 200) if isinstance(code, int) else 200


def _media_types(header: str | None) -> set[str]:
    return {part.split(";")[0].strip().lower() for part in (header or "").split(",")}


def accepts_post_reply(accept: str | None) -> bool:
    """A POST's Accept must allow both JSON and an event stream (the reply is one of them)."""
    types = _media_types(accept)
    if "*/*" in types:
        return True
    json_ok = "application/json" in types or "application/*" in types
    sse_ok = "text/event-stream" in types or "text/*" in types
    return json_ok and sse_ok


def accepts_stream(accept: str | None) -> bool:
    types = _media_types(accept)
    return bool(types & {"text/event-stream", "text/*", "*/*"})


def is_json(content_type: str | None) -> bool:
    return next(iter(_media_types(content_type))) == "application/json"


def session_version_error(header: str | None) -> RpcError | None:
    """Inside a session the MCP-Protocol-Version header may name any handshake revision (the
    conformance suite sends 2025-03-26 in a 2025-11-25 session); absent means 2025-03-26."""
    if header is None:
        return None
    rev = REVISIONS.get(header.strip())
    if rev is None or not rev.handshake:
        return RpcError(
            INVALID_REQUEST,
            f"Bad Request: unsupported MCP-Protocol-Version {header.strip()!r} in a session",
        )
    return None


def stateless_header_error(
    headers: Mapping[str, str],
    request: Request,
    mirrored: Callable[[str], Mapping[str, str]],
    method: Method | None = None,
) -> RpcError | None:
    """Whether the headers agree with the body (2026-07-28); the error (-32020) if not.

    `mirrored(tool_name)` gives that tool's `x-mcp-header` markers (header name -> pointer);
    `method`: the served row of the request's method (an extension's too), else the core's.
    """
    meta = request.params.get("_meta")
    body_version = meta.get(PROTOCOL_VERSION) if isinstance(meta, dict) else None
    checks: list[tuple[str, str | None, object]] = [
        ("MCP-Protocol-Version", headers.get("mcp-protocol-version"), body_version),
        ("Mcp-Method", headers.get("mcp-method"), request.method),
    ]
    if method is None:
        method = METHODS.get(request.method)
    if method is not None and method.target is not None:
        # The `Mcp-Name` header repeats the param naming the request's target (2026-07-28).
        named = request.params.get(method.target.param)
        checks.append(("Mcp-Name", headers.get("mcp-name"), named))
    for name, raw, expected in checks:
        if raw is None:
            return _mismatch(f"the {name} header is required")
        if raw.strip() != expected:
            return _mismatch(f"the {name} header {raw.strip()!r} does not match the body")
    if request.method != "tools/call":
        return None
    tool = request.params.get("name")
    arguments = request.params.get("arguments")
    if not isinstance(tool, str) or not isinstance(arguments, dict | None):
        return None
    for header, pointer in mirrored(tool).items():
        value = argument_at(arguments or {}, pointer)
        raw = headers.get("mcp-param-" + header.lower())
        if value is None:
            if raw is not None:
                return _mismatch(f"Mcp-Param-{header} is sent but the argument is absent")
            continue
        if raw is None:
            return _mismatch(f"the Mcp-Param-{header} header is required")
        try:
            same = header_matches(raw, value)
        except ValueError as exc:
            return _mismatch(f"Mcp-Param-{header}: {exc}")
        if not same:
            return _mismatch(f"the Mcp-Param-{header} header does not match the argument")
    return None


def _mismatch(why: str) -> RpcError:
    return RpcError(HEADER_MISMATCH, f"Header mismatch: {why}")
