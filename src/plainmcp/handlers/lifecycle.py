"""The session's lifecycle: initialize (handshake era), server/discover (2026-07-28), ping and
logging/setLevel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp import offers
from plainmcp.wire.revisions import REVISIONS, negotiate

if TYPE_CHECKING:
    from plainmcp.exchange import Exchange
    from plainmcp.server import Server


async def initialize(server: Server, ex: Exchange) -> dict[str, Any]:
    params = ex.params
    rev = negotiate(params["protocolVersion"])
    offered = offers.capabilities(server, rev)
    features = set(offered)
    _, prompts, templates = offers.inputs(server)
    if not rev.completions_capability and (prompts or templates):
        # 2024-11-05 has completion/complete but no capability to announce it.
        features.add("completions")
    ex.peer.session.open(
        rev,
        client_info=params.get("clientInfo", {}),
        client_capabilities=params.get("capabilities", {}),
        features=frozenset(features),
    )
    result: dict[str, Any] = {
        "protocolVersion": rev.version,
        "capabilities": offered,
        "serverInfo": offers.server_info(server, rev),
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return result


async def discover(server: Server, ex: Exchange) -> dict[str, Any]:
    result: dict[str, Any] = {
        "supportedVersions": list(reversed(REVISIONS)),
        "capabilities": offers.capabilities(server, ex.revision),
    }
    if server.instructions:
        result["instructions"] = server.instructions
    return result


async def ping(server: Server, ex: Exchange) -> dict[str, Any]:
    return {}


async def set_level(server: Server, ex: Exchange) -> dict[str, Any]:
    ex.peer.session.log_level = ex.params["level"]
    return {}
