"""The endpoint as an OAuth protected resource: the RFC 9728 metadata document, the 401 and 403
answers with their challenge, and the step-up check that runs before anything is served.
security.py decides who a token stands for; this writes what the client is told."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plainmcp import scopes
from plainmcp.handlers import needed as scopes_needed
from plainmcp.transports.http.responses import AsgiSend, Scope, send_json, send_text
from plainmcp.transports.http.security import (
    AuthFailure,
    BearerAuth,
    Principal,
    insufficient_scope,
    resource_metadata,
)
from plainmcp.wire.jsonrpc import Invalid, Message, Request

if TYPE_CHECKING:
    from plainmcp.served import Served

PRM_PATH = "/.well-known/oauth-protected-resource"


def origin(scope: Scope, headers: dict[str, str]) -> str:
    host = headers.get("host") or "localhost"
    return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"


def metadata_url(scope: Scope, headers: dict[str, str], path: str) -> str:
    """Where the metadata of the endpoint at `path` is served (what a 401 points to)."""
    return f"{origin(scope, headers)}{PRM_PATH}{path}"


async def serve_metadata(
    auth: BearerAuth, scope: Scope, headers: dict[str, str], path: str, send: AsgiSend
) -> None:
    if scope["method"] != "GET":
        await send_text(send, 405, "Method Not Allowed", [(b"allow", b"GET")])
        return
    await send_json(send, 200, resource_metadata(auth, f"{origin(scope, headers)}{path}"))


def step_up(
    server: Served,
    auth: BearerAuth,
    parsed: Message | list[Message] | Invalid,
    principal: Principal,
    metadata: str,
) -> AuthFailure | None:
    """A 403 for the first request (of a batch) calling a function whose scopes the
    principal lacks. Asked before anything is served, so the status is still free to set,
    whether the reply would have been JSON or a stream."""
    for message in parsed if isinstance(parsed, list) else (parsed,):
        if not isinstance(message, Request):
            continue
        _, needed = scopes_needed(server.core, message.method, message.params)
        lacking = scopes.missing(needed, principal)
        if lacking:
            return insufficient_scope(auth, needed, lacking, metadata)
    return None


async def refuse(send: AsgiSend, failure: AuthFailure) -> None:
    await send_json(
        send,
        failure.status,
        {"error": failure.error, "error_description": failure.description},
        [(b"www-authenticate", failure.challenge.encode())],
    )
