"""The session's lifecycle: initialize (handshake era), server/discover (2026-07-28), ping and
logging/setLevel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp import offers
from plainmcp.wire.revisions import REVISIONS, negotiate

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange


async def initialize(core: Components, ex: Exchange) -> dict[str, Any]:
    params = ex.params
    rev = negotiate(params["protocolVersion"])
    offered = offers.capabilities(core, rev)
    features = set(offered)
    _, prompts, templates = offers.inputs(core)
    if not rev.completions_capability and (prompts or templates):
        # 2024-11-05 has completion/complete but no capability to announce it.
        features.add("completions")
    ex.conn.session.open(
        rev,
        client_info=params.get("clientInfo", {}),
        client_capabilities=params.get("capabilities", {}),
        features=frozenset(features),
    )
    result: dict[str, Any] = {
        "protocolVersion": rev.version,
        "capabilities": offered,
        "serverInfo": offers.server_info(core, rev),
    }
    instructions = core.settings.identity.instructions
    if instructions:
        result["instructions"] = instructions
    return result


async def discover(core: Components, ex: Exchange) -> dict[str, Any]:
    result: dict[str, Any] = {
        "supportedVersions": list(reversed(REVISIONS)),
        "capabilities": offers.capabilities(core, ex.revision),
    }
    instructions = core.settings.identity.instructions
    if instructions:
        result["instructions"] = instructions
    return result


async def ping(core: Components, ex: Exchange) -> dict[str, Any]:
    return {}


async def set_level(core: Components, ex: Exchange) -> dict[str, Any]:
    ex.conn.session.log_level = ex.params["level"]
    return {}
