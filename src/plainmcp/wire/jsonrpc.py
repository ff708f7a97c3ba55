"""JSON-RPC 2.0 envelopes as MCP uses them: strict parsing, encoding, error codes. No I/O."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from plainmcp.wire import json

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

RequestId = int | str

log = logging.getLogger("plainmcp")


class RpcError(Exception):
    """A protocol fault answered with a JSON-RPC error (tool failures are results, not these)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


STORE_UNAVAILABLE = "Internal error: the task store is unavailable"
"""The message of the -32603 answered when a shared store (tasks on Redis) did not answer once
retried: over HTTP it goes with 503, so the client knows to try again."""


class StoreDown(Exception):
    """A shared store did not answer (redis_link.RedisUnavailable): the dispatcher answers
    STORE_UNAVAILABLE, logged with this message (which names the store, never its password)."""


# Request and Notification are built once per message (the hot path): plain slotted classes,
# not frozen ones, whose __init__ costs several times more. Nothing mutates them.
@dataclass(slots=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any]


@dataclass(slots=True)
class Notification:
    method: str
    params: dict[str, Any]


class Response(NamedTuple):
    """A client's answer to a request the server sent (Response and Invalid are NamedTuples,
    not dataclasses: made at every start in a sixth of the time)."""

    id: RequestId
    result: dict[str, Any] | None
    error: dict[str, Any] | None


class Invalid(NamedTuple):
    """A message that cannot be served; answer it with `error` (id None when unreadable)."""

    id: RequestId | None
    error: RpcError
    reply: bool = True
    """False for a malformed notification: notifications are never answered."""


Message = Request | Notification | Response | Invalid


def _valid_id(value: object) -> bool:
    # bool is an int subclass in Python but never a valid JSON-RPC id.
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def parse_message(obj: object) -> Message:
    """One decoded JSON value to a message, refusing anything the envelope rules forbid."""
    if not isinstance(obj, dict):
        return Invalid(None, RpcError(INVALID_REQUEST, "Invalid Request: expected a JSON object"))
    has_id = "id" in obj
    raw_id = obj.get("id")
    msg_id: RequestId | None = raw_id if _valid_id(raw_id) else None
    if has_id and msg_id is None:
        return Invalid(
            None, RpcError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        )
    if obj.get("jsonrpc") != "2.0":
        return Invalid(msg_id, RpcError(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"'))
    if "method" in obj:
        method = obj["method"]
        if not isinstance(method, str) or not method:
            return Invalid(
                msg_id, RpcError(INVALID_REQUEST, "Invalid Request: method must be a string")
            )
        params = obj.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            if msg_id is None:
                return Invalid(None, RpcError(INVALID_PARAMS, "params must be an object"), False)
            return Invalid(msg_id, RpcError(INVALID_PARAMS, "Invalid params: must be an object"))
        if msg_id is None:
            return Notification(method, params)
        return Request(msg_id, method, params)
    if msg_id is not None and ("result" in obj) != ("error" in obj):
        result, error = obj.get("result"), obj.get("error")
        if (result is None or isinstance(result, dict)) and (
            error is None or isinstance(error, dict)
        ):
            return Response(msg_id, result, error)
    return Invalid(msg_id, RpcError(INVALID_REQUEST, "Invalid Request: no method, result or error"))


def parse(data: bytes | str) -> Message | list[Message]:
    """A line of input to one message, or a list for a JSON-RPC batch."""
    try:
        obj = json.loads(data)
    except json.DecodeError as exc:
        return Invalid(None, RpcError(PARSE_ERROR, f"Parse error: {exc}"))
    except json.Unrepresentable as exc:
        return _flawed(exc.value, exc.flaws)
    if isinstance(obj, list):
        if not obj:
            return Invalid(None, RpcError(INVALID_REQUEST, "Invalid Request: empty batch"))
        return [parse_message(item) for item in obj]
    return parse_message(obj)


def _flawed(obj: Any, flaws: list[json.Flaw]) -> Message | list[Message]:
    """Valid JSON holding values no Python value carries (json.Unrepresentable): each message
    that holds one is answered by its id, naming where, as for any other bad value."""
    if isinstance(obj, list) and obj:
        return [
            _flawed_message(
                item, [json.Flaw(f.path[1:], f.reason) for f in flaws if f.path[0] == i]
            )
            for i, item in enumerate(obj)
        ]
    return _flawed_message(obj, flaws)


def _flawed_message(obj: Any, flaws: list[json.Flaw]) -> Message:
    message = parse_message(obj)
    if not flaws or isinstance(message, Invalid):
        return message
    if any(f.path[:1] == ("id",) for f in flaws):
        return Invalid(None, RpcError(INVALID_REQUEST, f"Invalid Request: {_named(flaws)}"))
    if isinstance(message, Response):
        # The client's answer cannot be read: the call waiting for it gets an error.
        error = RpcError(INVALID_PARAMS, f"Unreadable response: {_named(flaws)}")
        return Response(message.id, None, error.to_wire())
    in_params = all(f.path[:1] == ("params",) for f in flaws)
    code, label = (
        (INVALID_PARAMS, "Invalid params")
        if in_params
        else (
            INVALID_REQUEST,
            "Invalid Request",
        )
    )
    error = RpcError(code, f"{label}: {_named(flaws, skip=1 if in_params else 0)}")
    if isinstance(message, Notification):
        return Invalid(None, error, reply=False)
    return Invalid(message.id, error)


def _named(flaws: list[json.Flaw], skip: int = 0) -> str:
    """Where each flaw is and why, the first three in full."""
    named = "; ".join(f"{f.where(skip)}: {f.reason}" for f in flaws[:3])
    return named + (f" (and {len(flaws) - 3} more)" if len(flaws) > 3 else "")


_ID_NEAR_START = re.compile(
    rb'^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,)*\s*"id"\s*:\s*(-?\d+|"[^"\\]*")'
)


def sniff_id(data: bytes) -> RequestId | None:
    """The id of a message too large to parse, when it stands before any other member but
    `jsonrpc` and `method` (as clients write it), so the refusal can still be answered."""
    match = _ID_NEAR_START.match(data[:512])
    if match is None:
        return None
    found = json.loads(match.group(1))
    return found if _valid_id(found) else None


def result_message(request_id: RequestId, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: RequestId | None, error: RpcError) -> dict[str, Any]:
    """An error response; without a known request id, `id` is left out (not null).

    JSON-RPC 2.0 writes `"id": null` there, but no MCP schema admits a null id; from 2025-11-25
    the schema makes `id` optional on errors for exactly this case. Callers check
    `Revision.error_without_id` before sending one.
    """
    if request_id is None:
        return {"jsonrpc": "2.0", "error": error.to_wire()}
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()}


def notification_message(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def request_message(
    request_id: RequestId, method: str, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def encode(message: Any) -> bytes:
    """Compact JSON bytes, one line; integers beyond 64 bits are kept exact.

    A response that holds what JSON cannot (NaN, a lone surrogate, an object) is replaced by an
    internal error for its id, so its request is still answered; other messages raise."""
    try:
        return json.dumps(message)
    except (TypeError, ValueError) as exc:
        if isinstance(message, list):  # a batch's replies
            return b"[" + b",".join(encode(item) for item in message) + b"]"
        if not (isinstance(message, dict) and "id" in message and "method" not in message):
            raise
        log.error("a reply could not be encoded as JSON: %s", exc)
    error = RpcError(INTERNAL_ERROR, "Internal error: the reply could not be encoded as JSON")
    return json.dumps(error_message(message["id"], error))
