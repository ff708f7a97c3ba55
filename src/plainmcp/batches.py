"""A JSON-RPC batch served on one connection: one array of replies, or per-request refusals
where the session's revision has no batches (`SessionState.batch_refusal`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from plainmcp.inflight import TIMED_OUT
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import (
    INVALID_REQUEST,
    Invalid,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from plainmcp.wire.methods import METHODS
from plainmcp.wire.session import unbatchable

if TYPE_CHECKING:
    from plainmcp.connection import Connection


async def serve_batch(connection: Connection, messages: list[Message]) -> None:
    refusal = connection.session.batch_refusal()
    if refusal is not None:
        # Not a batch response (the revision has none): each request that can be identified
        # gets its own error; the notifications in it are not acted on.
        ids = [m.id for m in messages if isinstance(m, Request | Invalid) and m.id is not None]
        for request_id in ids:
            await connection.reply_error(request_id, refusal)
        if not ids:
            await connection.reply_error(None, refusal)
        return
    replies: list[dict[str, Any]] = []

    async def serve(request: Request) -> None:
        scope = anyio.CancelScope()
        running = connection.begin(request.id, scope)
        reply: dict[str, Any] | None = None
        try:
            with scope:
                reply = await connection.serve(connection, request)
        finally:
            connection.end(running)
        if reply is None and running.state == TIMED_OUT and running.error is not None:
            reply = jsonrpc.error_message(request.id, running.error)  # by a shutdown
        if running.finish() and reply is not None:  # not answered for it already
            replies.append(reply)

    taken: set[tuple[type, RequestId]] = set()
    async with anyio.create_task_group() as group:
        for message in messages:
            if isinstance(message, Request):
                why = unbatchable(message, METHODS.get(message.method))
                key = (type(message.id), message.id)
                if why is None and (key in taken or connection.in_use(message.id)):
                    why = f"Invalid Request: id {message.id!r} is in use"
                taken.add(key)
                if why is not None:
                    replies.append(
                        jsonrpc.error_message(message.id, RpcError(INVALID_REQUEST, why))
                    )
                else:
                    group.start_soon(serve, message)
            elif isinstance(message, Notification):
                connection.accept(message)
            elif isinstance(message, Invalid) and message.reply:
                error = connection.error_message(message.id, message.error)
                if error is not None:
                    replies.append(error)
            elif isinstance(message, Response):  # the client's answer to one of our requests
                connection.accept(message)
    if replies:
        await connection.send(jsonrpc.encode(replies))
