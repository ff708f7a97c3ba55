"""Choosing the revision when a client connects: `protocol="auto"` asks server/discover and
falls back to initialize (the decisions are `wire.negotiation`'s); a fixed revision is used as
it is (a stateless one still asks server/discover, for the server's info and capabilities).
What was chosen comes back to the client as one `Opened`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.client.errors import ConnectionClosed, McpError, RequestTimeout, bad_reply
from plainmcp.client.options import DEFAULT_TIMEOUT
from plainmcp.client.results import ServerInfo
from plainmcp.wire import negotiation
from plainmcp.wire.jsonrpc import INTERNAL_ERROR
from plainmcp.wire.meta import SERVER_INFO
from plainmcp.wire.negotiation import Adopt, Handshake, Probe, Refuse
from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, REVISIONS, Revision

DISCOVER = "server/discover"

Ask = Callable[[str, dict[str, Any] | None, Revision | None, Any], Awaitable[dict[str, Any]]]
"""One request's result: (method, params, the revision it is stamped for (None: sent as it
is), timeout: seconds, None or DEFAULT_TIMEOUT)."""


def client_info() -> dict[str, Any]:
    """Who is asking: clientInfo at initialize, `_meta` clientInfo at 2026-07-28."""
    from plainmcp.version import __version__

    return {"name": "plainmcp", "version": __version__}


@dataclass(frozen=True, slots=True)
class Opened:
    """The session as the server opened it."""

    revision: Revision
    server_info: ServerInfo
    capabilities: dict[str, Any]
    instructions: str | None
    discover_result: dict[str, Any] | None
    """The server/discover result, when the revision is stateless."""


@dataclass(frozen=True, slots=True)
class Opening:
    """What choosing the revision needs of the client."""

    ask: Ask
    notify: Callable[[str], Awaitable[None]]
    opened: Callable[[Opened], None]
    """Take the session as opened (before notifications/initialized goes out)."""
    capabilities: Callable[[Revision], dict[str, Any]]


def opened(
    rev: Revision,
    info: Mapping[str, Any],
    result: Mapping[str, Any],
    discover_result: dict[str, Any] | None = None,
) -> Opened:
    capabilities = result.get("capabilities")
    instructions = result.get("instructions")
    return Opened(
        revision=rev,
        server_info=ServerInfo(
            name=str(info.get("name", "")),
            version=str(info.get("version", "")),
            title=info.get("title"),
            description=info.get("description"),
            website_url=info.get("websiteUrl"),
        ),
        capabilities=capabilities if isinstance(capabilities, dict) else {},
        instructions=instructions if isinstance(instructions, str) else None,
        discover_result=discover_result,
    )


def adopted(rev: Revision, result: dict[str, Any]) -> Opened:
    """A discover result chose stateless `rev`: its serverInfo sits in `_meta`."""
    meta = result.get("_meta")
    info = meta.get(SERVER_INFO) if isinstance(meta, dict) else None
    return opened(rev, info if isinstance(info, dict) else {}, result, result)


async def initialize(opening: Opening, protocol_version: str) -> None:
    if protocol_version not in HANDSHAKE_VERSIONS:
        raise ValueError(
            f"protocol_version must be one of {', '.join(HANDSHAKE_VERSIONS)},"
            f" not {protocol_version!r}"
        )
    params = {
        "protocolVersion": protocol_version,
        "capabilities": opening.capabilities(REVISIONS[protocol_version]),
        "clientInfo": client_info(),
    }
    result = await opening.ask("initialize", params, None, DEFAULT_TIMEOUT)
    version = result.get("protocolVersion")
    if version not in HANDSHAKE_VERSIONS:
        raise McpError(
            INTERNAL_ERROR, f"The server chose protocol version {version!r}, not supported here"
        )
    info = result.get("serverInfo")
    if not isinstance(info, dict):
        raise bad_reply("initialize result without serverInfo")
    opening.opened(opened(REVISIONS[version], info, result))
    await opening.notify("notifications/initialized")


async def negotiate(opening: Opening, protocol: str, timeout: float) -> None:
    if protocol != "auto":
        if not negotiation.is_stateless(protocol):
            await initialize(opening, protocol)
            return
        rev = REVISIONS[protocol]
        try:
            result = await opening.ask(DISCOVER, None, rev, timeout)
        except ConnectionClosed:
            raise
        except McpError as exc:
            if not negotiation.ask_again(protocol, exc.code, exc.data, retried=False):
                raise
            result = await opening.ask(DISCOVER, None, rev, timeout)
        opening.opened(adopted(rev, result))
        return
    version = negotiation.first_probe()
    retried = False
    while True:
        step: negotiation.Step
        try:
            result = await opening.ask(DISCOVER, None, REVISIONS[version], timeout)
        except ConnectionClosed:
            raise  # the server went away: that says nothing of its revision
        except McpError as exc:  # RequestTimeout too: an older server may just not answer
            step = negotiation.after_error(exc.code, exc.data, retried=retried)
        else:
            step = negotiation.after_result(result)
        if isinstance(step, Adopt):
            opening.opened(adopted(step.revision, result))
            return
        if isinstance(step, Refuse):
            raise McpError(INTERNAL_ERROR, step.reason)
        if isinstance(step, Probe):
            version, retried = step.version, True
            continue
        assert isinstance(step, Handshake)
        try:
            await initialize(opening, step.version)
            return
        except RequestTimeout:
            raise
        except McpError as exc:
            again = negotiation.after_handshake_error(exc.code, exc.data, retried=retried)
            if again is None or isinstance(exc, ConnectionClosed):
                raise
            version, retried = again.version, True
