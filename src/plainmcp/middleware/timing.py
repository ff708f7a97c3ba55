"""Timing: one structured log line per request (method, target, duration, outcome)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import anyio

from plainmcp.context import InputRequired
from plainmcp.middleware.base import Middleware, NextRequest, RequestInfo
from plainmcp.model.results import CallResult
from plainmcp.wire.jsonrpc import RpcError

__all__ = ["Timing", "outcome_of"]


def outcome_of(result: Any = None, error: BaseException | None = None) -> str:
    """How a request ended, as the log line names it: ok, tool_error (an isError result),
    error <code> (a JSON-RPC error), input_required, cancelled, or failed <Type> (a bug, which
    the dispatcher answers with -32603)."""
    if error is None:
        return "tool_error" if isinstance(result, CallResult) and result.is_error else "ok"
    if isinstance(error, RpcError):
        return f"error {error.code}"
    if isinstance(error, InputRequired):
        return "input_required"
    if isinstance(error, anyio.get_cancelled_exc_class()):
        return "cancelled"
    return f"failed {type(error).__name__}"


def _value(value: Any) -> str:
    """A logfmt value: bare when it is one plain word, else a JSON string."""
    text = str(value)
    if text and all(c.isalnum() or c in "/._-:" for c in text):
        return text
    return json.dumps(text, ensure_ascii=False)


class Timing(Middleware):
    """Logs every request as one logfmt line at INFO on the "plainmcp.requests" logger:
    `method=tools/call target=add duration_ms=1.234 outcome=ok`; the same fields go to the
    record as `extra={"mcp": {...}}` for a JSON formatter. `clock`: seconds (tests pass theirs)."""

    def __init__(
        self,
        *,
        logger: logging.Logger | None = None,
        level: int = logging.INFO,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.logger = logger or logging.getLogger("plainmcp.requests")
        self.level = level
        self.clock = clock

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        started = self.clock()
        result: Any = None
        error: BaseException | None = None
        try:
            result = await call_next(request)
            return result
        except BaseException as exc:
            error = exc
            raise
        finally:
            fields = {
                "method": request.method,
                "target": request.target,
                "duration_ms": round((self.clock() - started) * 1000, 3),
                "outcome": outcome_of(result, error),
            }
            line = " ".join(f"{k}={_value(v)}" for k, v in fields.items() if v is not None)
            self.logger.log(self.level, "%s", line, extra={"mcp": fields})
