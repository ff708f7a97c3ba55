"""The session's lifecycle: initialize (handshake era), server/discover (2026-07-28), ping and
logging/setLevel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plainmcp.wire.revisions import REVISIONS, negotiate

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.exchange import Exchange


async def initialize(core: Components, ex: Exchange) -> dict[str, Any]:
    params = ex.params
    rev = negotiate(params["protocolVersion"])
    offers = core.offers
    ex.peer.session.open(
        rev,
        client_info=params.get("clientInfo", {}),
        client_capabilities=params.get("capabilities", {}),
        features=offers.features(rev),
    )
    result: dict[str, Any] = {
        "protocolVersion": rev.version,
        "capabilities": offers.capabilities(rev),
        "serverInfo": offers.server_info(rev),
    }
    instructions = core.settings.identity.instructions
    if instructions:
        result["instructions"] = instructions
    return result


async def discover(core: Components, ex: Exchange) -> dict[str, Any]:
    result: dict[str, Any] = {
        "supportedVersions": list(reversed(REVISIONS)),
        "capabilities": core.offers.capabilities(ex.revision),
    }
    instructions = core.settings.identity.instructions
    if instructions:
        result["instructions"] = instructions
    return result


async def ping(core: Components, ex: Exchange) -> dict[str, Any]:
    return {}


async def set_level(core: Components, ex: Exchange) -> dict[str, Any]:
    ex.peer.session.set_log_level(ex.params["level"])
    return {}
