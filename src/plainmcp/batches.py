"""A JSON-RPC batch served on one connection: one array of replies, or per-request refusals
where the session's revision has no batches (`SessionState.batch_refusal`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import anyio

from plainmcp.inflight import TIMED_OUT, InFlight, Target
from plainmcp.peer import Send
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
from plainmcp.wire.session import SessionState, unbatchable


class Batching(Protocol):
    """What serving a batch needs of its connection (connection.py's public surface)."""

    session: SessionState
    send: Send

    @property
    def serve(self) -> Callable[[Any, Request], Awaitable[dict[str, Any]]]: ...

    def begin(self, request_id: RequestId, target: Target) -> InFlight: ...

    def end(self, running: InFlight) -> None: ...

    def in_use(self, request_id: RequestId) -> bool: ...

    def accept(self, message: Message) -> None: ...

    def error_message(
        self, request_id: RequestId | None, error: RpcError
    ) -> dict[str, Any] | None: ...

    async def reply_error(self, request_id: RequestId | None, error: RpcError) -> None: ...


async def serve_batch(connection: Batching, messages: list[Message]) -> None:
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
