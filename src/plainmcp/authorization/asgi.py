"""The authorization server over ASGI: an HTTP request read into a plain Request (bounded),
handled, and its Response written. What HttpApp mounts with `authorization=`."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from plainmcp.authorization.messages import Request, Response
from plainmcp.transports.http.responses import AsgiSend, Receive, Scope, read_body

if TYPE_CHECKING:
    from plainmcp.authorization.server import AuthorizationServer

MAX_BODY = 64 * 1024
"""A registration or a token request is small; more is refused (413)."""


async def serve(
    server: AuthorizationServer,
    scope: Scope,
    receive: Receive,
    send: AsgiSend,
    headers: dict[str, str],
    path: str,
) -> None:
    body = b""
    if scope["method"] == "POST":
        read = await read_body(receive, headers, MAX_BODY)
        if read is None:
            await write(send, Response(413, (("content-type", "text/plain"),), b"Too Large"))
            return
        body = read
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    form: dict[str, list[str]] = {}
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    client = scope.get("client")
    request = Request(
        scope["method"], path, query, form, headers, body, client[0] if client else None
    )
    await write(send, await server.handle(request))


async def write(send: AsgiSend, response: Response) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": response.status,
            "headers": [(k.encode(), v.encode()) for k, v in response.headers]
            + [(b"content-length", str(len(response.body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": response.body})
