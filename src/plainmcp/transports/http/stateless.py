"""The 2026-07-28 POST: served on its own, with its own Connection, so nothing outlives the
request and any process can answer any request."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from plainmcp.transports.http import rules
from plainmcp.transports.http.answer import Outbox, Posted, answer
from plainmcp.transports.http.responses import AsgiSend, Receive, send_error
from plainmcp.transports.http.security import Principal
from plainmcp.wire import jsonrpc
from plainmcp.wire.envelope import is_stateless, stateless_revision
from plainmcp.wire.jsonrpc import INVALID_REQUEST, Request, RpcError

if TYPE_CHECKING:
    from plainmcp.served import Served
    from plainmcp.transports.http.endpoint import Endpoint

NO_BATCHES = RpcError(INVALID_REQUEST, "Invalid Request: 2026-07-28 has no JSON-RPC batches")


async def post_stateless(
    app: Endpoint,
    request: Request,
    headers: dict[str, str],
    principal: Principal | None,
    receive: Receive,
    send: AsgiSend,
) -> None:
    # A body without a version is an envelope error (-32602); one with a version is first
    # compared with the headers (-32020), then checked for support (-32022).
    problem = None
    if is_stateless(request.params):
        route = app.server.core.routes.get(request.method)
        problem = rules.stateless_header_error(
            headers, request, partial(_mirrored, app.server), route.method if route else None
        )
    if problem is None:
        try:
            stateless_revision(request.method, request.params)
        except RpcError as exc:
            problem = exc
    if problem is not None:
        status = 404 if problem.code == jsonrpc.METHOD_NOT_FOUND else 400
        await send_error(send, status, problem, request.id)
        return
    outbox = Outbox()
    conn = app.server.connect(outbox.send, push=outbox.push)
    conn.principal = principal
    conn.bind()
    app.live.add(conn)
    try:
        posted = Posted(
            conn,
            [request],
            receive,
            send,
            stateless=True,
            outbox=outbox,
            answering=app.answering,
        )
        await answer(posted, app.keepalive_interval)
    finally:
        app.live.discard(conn)
        conn.close()


def _mirrored(server: Served, tool_name: str) -> dict[str, str]:
    tool = server.tools_view.get(tool_name)  # not `tools`: that copies the registry
    return dict(tool.headers) if tool is not None else {}


def stateless_version(header: str | None) -> bool:
    """The MCP-Protocol-Version header names a revision without a handshake (2026-07-28)."""
    return is_stateless(version=(header or "").strip())
