"""The server's questions answered by the client's callbacks, in both forms they take: a
server->client request in a handshake session (`reply`), and the `inputRequests` of a
2026-07-28 input-required result (`input_responses`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from plainmcp.client.callbacks import ELICIT, CallbackError, Callbacks
from plainmcp.client.errors import McpError, bad_reply
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, Request, RpcError
from plainmcp.wire.revisions import Revision

log = logging.getLogger("plainmcp.client")


async def reply(callbacks: Callbacks, request: Request, rev: Revision) -> dict[str, Any]:
    """The reply to a request from the server: ping, and those the callbacks answer."""
    if request.method == "ping":
        return jsonrpc.result_message(request.id, {})
    if not callbacks.handles(request.method):
        return jsonrpc.error_message(
            request.id, RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
        )
    try:
        result = await callbacks.answer(request.method, request.params, rev)
    except CallbackError as exc:
        log.warning("%s", exc)
        return jsonrpc.error_message(request.id, RpcError(INTERNAL_ERROR, str(exc)))
    return jsonrpc.result_message(request.id, result)


async def input_responses(
    callbacks: Callbacks, asks: Mapping[str, Any], rev: Revision
) -> dict[str, Any]:
    """The answers to an input-required result's inputRequests, from the callbacks."""
    answers: dict[str, Any] = {}
    for key, ask in asks.items():
        method = ask.get("method") if isinstance(ask, dict) else None
        params = ask.get("params") if isinstance(ask, dict) else None
        if not isinstance(method, str) or method not in rev.input_requests:
            raise bad_reply(f"inputRequests[{key!r}] is not a request this client answers")
        try:
            answers[key] = await callbacks.answer(method, params or {}, rev)
        except CallbackError as exc:
            if method != ELICIT:
                raise McpError(INTERNAL_ERROR, str(exc)) from exc.__cause__
            # The user-facing question failed: as if the user dismissed it.
            log.warning("%s: answering cancel", exc)
            answers[key] = {"action": "cancel"}
    return answers
