"""Handshake-era clients without sessions (`sessions=None`), for serverless deployments.

`initialize` is answered but opens nothing: no `Mcp-Session-Id`. Every later POST stands alone
under the revision its MCP-Protocol-Version header names (2025-03-26 when absent, as the spec
says), as if initialize had been answered on that very connection with no client capabilities;
so the server sends the client no requests (elicitation, sampling and roots fail as they do
for a client that lacks them), and GET streams and DELETE do not exist here.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from plainmcp.transports.http import handshake
from plainmcp.transports.http.answer import Posted, answer
from plainmcp.transports.http.responses import AsgiSend, Receive, send_error
from plainmcp.transports.http.security import Principal
from plainmcp.transports.http.sessions import make_session
from plainmcp.wire.jsonrpc import INVALID_REQUEST, Message, Request, RpcError
from plainmcp.wire.revisions import REVISIONS

if TYPE_CHECKING:
    from plainmcp.transports.http.endpoint import Endpoint

ASSUMED = "2025-03-26"
"""The revision of a request without an MCP-Protocol-Version header."""


async def post_sessionless(
    app: Endpoint,
    parsed: Message | list[Message],
    headers: dict[str, str],
    principal: Principal | None,
    receive: Receive,
    send: AsgiSend,
) -> None:
    header = (headers.get("mcp-protocol-version") or ASSUMED).strip()
    rev = REVISIONS.get(header)
    if rev is None or not rev.handshake:
        error = RpcError(
            INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version {header!r}"
        )
        await send_error(send, 400, error)
        return
    session = make_session(app.server, "", None, "plainmcp-", time.monotonic())
    conn = session.conn
    conn.principal = principal
    app.live.add(conn)
    try:
        if isinstance(parsed, Request) and parsed.method == "initialize":
            await answer(Posted(conn, [parsed], receive, send), app.keepalive_interval)
            return
        conn.session.open(rev, {}, {}, app.server.offers.features(rev))
        conn.session.complete_handshake()
        messages = list(parsed) if isinstance(parsed, list) else [parsed]
        await handshake.post_to_session(
            app, session, messages, isinstance(parsed, list), receive, send
        )
    finally:
        app.live.discard(conn)
        conn.close()
