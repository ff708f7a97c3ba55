"""The HTTP headers a client sends with a stateless (2026-07-28) request, from its body alone.

`MCP-Protocol-Version` and `Mcp-Method` on every request, `Mcp-Name` for a method naming a
target (tools/call, resources/read, prompts/get), and `Mcp-Param-{Name}` for each argument the
tool's input schema marks with `x-mcp-header`. Sans-I/O: the server checks the same rules
(transports/http/rules.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plainmcp.wire.meta import PROTOCOL_VERSION
from plainmcp.wire.methods import METHODS
from plainmcp.wire.param_headers import (
    HEADER_PREFIX,
    argument_at,
    check_header_markers,
    encode_header_value,
)


def request_version(params: Mapping[str, Any] | None) -> str | None:
    """The revision a request names in its `_meta` (None: a handshake session's request)."""
    meta = params.get("_meta") if params is not None else None
    version = meta.get(PROTOCOL_VERSION) if isinstance(meta, Mapping) else None
    return version if isinstance(version, str) else None


def stateless_headers(
    method: str,
    params: Mapping[str, Any],
    input_schema: Mapping[str, Any] | None = None,
    *,
    target: str | None = None,
) -> dict[str, str]:
    """The headers of one stateless request; `input_schema` is the called tool's (if known).
    `target`: the param naming the target of a method outside the core table (an extension's,
    e.g. `taskId` for the tasks extension's tasks/get)."""
    version = request_version(params)
    if version is None:
        return {}
    headers = {"mcp-protocol-version": version, "mcp-method": method}
    known = METHODS.get(method)
    if known is not None and known.target is not None:
        target = known.target.param
    named = params.get(target) if target is not None else None
    if isinstance(named, str):
        headers["mcp-name"] = encode_header_value(named)
    arguments = params.get("arguments")
    if input_schema is not None and isinstance(arguments, Mapping):
        try:
            markers = check_header_markers(input_schema)
        except ValueError:
            markers = {}  # the server's schema breaks the rules: nothing can be mirrored
        for header, pointer in markers.items():
            value = argument_at(arguments, pointer)
            if isinstance(value, str | int | float):
                headers[(HEADER_PREFIX + header).lower()] = encode_header_value(value)
    return headers
