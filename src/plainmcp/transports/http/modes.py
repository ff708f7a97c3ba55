"""The three ways a POST is served, behind one interface: a `Mode` takes the app and the POST.

- handshake sessions (handshake.py): `initialize` opens a session, later POSTs name it;
- 2026-07-28 stateless (stateless.py): each request carries its own revision and client;
- sessionless (sessionless.py, `sessions=None`): handshake revisions, each POST on its own.

app.py checks what every POST must pass (Host, Origin, auth, Content-Type, Accept, size, the
body's JSON, scopes), then `route` names the mode; what a mode does is its own module's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from plainmcp.transports.http import handshake
from plainmcp.transports.http.responses import AsgiSend, Receive, accepted, send_error
from plainmcp.transports.http.security import Principal
from plainmcp.transports.http.sessionless import post_sessionless
from plainmcp.transports.http.stateless import NO_BATCHES, post_stateless, stateless_version
from plainmcp.wire.envelope import is_stateless
from plainmcp.wire.jsonrpc import Invalid, Message, Request

if TYPE_CHECKING:
    from plainmcp.transports.http.endpoint import Endpoint


Mode = Callable[
    [
        "Endpoint",
        Message | list[Message],
        dict[str, str],
        Principal | None,
        Receive,
        AsgiSend,
        tuple[str, int] | None,
    ],
    Awaitable[None],
]
"""Serves one POST and writes its answer: called with the app, the parsed body, the headers,
who the bearer token stands for, the ASGI receive and send, and the peer's (host, port).
Plain arguments, not an object: this is every POST's path."""


async def stateless(
    app: Endpoint,
    parsed: Message | list[Message],
    headers: dict[str, str],
    principal: Principal | None,
    receive: Receive,
    send: AsgiSend,
    client: tuple[str, int] | None,
) -> None:
    """2026-07-28: a request is served on its own; a notification or a response has nothing
    to act on over HTTP (202), and a batch does not exist (400)."""
    if isinstance(parsed, Request):
        await post_stateless(app, parsed, headers, principal, receive, send)
    elif isinstance(parsed, list):
        await send_error(send, 400, NO_BATCHES)
    else:
        await accepted(send)


async def sessionless(
    app: Endpoint,
    parsed: Message | list[Message],
    headers: dict[str, str],
    principal: Principal | None,
    receive: Receive,
    send: AsgiSend,
    client: tuple[str, int] | None,
) -> None:
    """Handshake revisions without sessions (`sessions=None`)."""
    await post_sessionless(app, parsed, headers, principal, receive, send)


async def sessions(
    app: Endpoint,
    parsed: Message | list[Message],
    headers: dict[str, str],
    principal: Principal | None,
    receive: Receive,
    send: AsgiSend,
    client: tuple[str, int] | None,
) -> None:
    """Handshake revisions with sessions: `initialize` opens one, anything else names one."""
    if isinstance(parsed, Request) and parsed.method == "initialize":
        await handshake.initialize(app, parsed, principal, client, receive, send)
        return
    batch = isinstance(parsed, list)
    messages: list[Message] = list(parsed) if isinstance(parsed, list) else [parsed]
    ids = [_id_of(m) for m in messages if _id_of(m) is not None] if batch else _id_of(parsed)
    session = await handshake.find_session(app, headers, principal, send, ids)
    if session is None:
        return
    async with app.sessions.using(session):
        await handshake.post_to_session(app, session, messages, batch, receive, send)


def route(parsed: Message | list[Message], headers: dict[str, str], stateful: bool) -> Mode:
    """The mode a POST's body and headers call for (the body is no Invalid: that is 400)."""
    if isinstance(parsed, Request) and is_stateless(parsed.params):
        return stateless
    if headers.get("mcp-session-id") is None and stateless_version(
        headers.get("mcp-protocol-version")
    ):
        return stateless
    return sessions if stateful else sessionless


def _id_of(message: Message | list[Message]) -> Any:
    """The id an error about `message` carries: a request's (None for a notification, and for
    a response, whose id names the server's own request)."""
    if isinstance(message, Request) or (isinstance(message, Invalid) and message.reply):
        return message.id
    return None
