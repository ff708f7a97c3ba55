"""Choosing the revision when a client connects: `protocol="auto"` asks server/discover and
falls back to initialize (the decisions are `wire.negotiation`'s); a fixed revision is used as
it is (a stateless one still asks server/discover, for the server's info and capabilities)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plainmcp.client.errors import ConnectionClosed, McpError, RequestTimeout
from plainmcp.wire import negotiation
from plainmcp.wire.jsonrpc import INTERNAL_ERROR
from plainmcp.wire.negotiation import Adopt, Handshake, Probe, Refuse
from plainmcp.wire.revisions import REVISIONS

if TYPE_CHECKING:
    from plainmcp.client.session import Client

DISCOVER = "server/discover"


async def negotiate(client: Client, protocol: str, timeout: float) -> None:
    if protocol != "auto":
        if not negotiation.is_stateless(protocol):
            await client._initialize(protocol)
            return
        rev = REVISIONS[protocol]
        result = await client._exchange(DISCOVER, None, timeout, None, rev=rev)
        client._adopt(rev, result)
        return
    version = negotiation.first_probe()
    retried = False
    while True:
        step: negotiation.Step
        try:
            result = await client._exchange(DISCOVER, None, timeout, None, rev=REVISIONS[version])
        except ConnectionClosed:
            raise  # the server went away: that says nothing of its revision
        except McpError as exc:  # RequestTimeout too: an older server may just not answer
            step = negotiation.after_error(exc.code, exc.data, retried=retried)
        else:
            step = negotiation.after_result(result)
        if isinstance(step, Adopt):
            client._adopt(step.revision, result)
            return
        if isinstance(step, Refuse):
            raise McpError(INTERNAL_ERROR, step.reason)
        if isinstance(step, Probe):
            version, retried = step.version, True
            continue
        assert isinstance(step, Handshake)
        try:
            await client._initialize(step.version)
            return
        except RequestTimeout:
            raise
        except McpError as exc:
            again = negotiation.after_handshake_error(exc.code, exc.data, retried=retried)
            if again is None or isinstance(exc, ConnectionClosed):
                raise
            version, retried = again.version, True
