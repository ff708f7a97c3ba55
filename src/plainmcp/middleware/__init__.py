"""Middleware around every request and every call of a user function (docs/operations.md).

`Server(middleware=[...])` or `app.add_middleware(m)`; the first runs outermost. Built in:
`Timing` (a log line per request), `RateLimit` (a token bucket per client) and `ResultCache`
(results of the tools declared cacheable).
"""

from plainmcp.middleware.base import (
    CallInfo,
    Middleware,
    NextCall,
    NextRequest,
    Reply,
    RequestInfo,
)
from plainmcp.middleware.cache import ResultCache
from plainmcp.middleware.ratelimit import RATE_LIMITED, RateLimit
from plainmcp.middleware.timing import Timing
from plainmcp.model.results import CallResult, error_result
from plainmcp.wire.jsonrpc import RpcError

__all__ = [
    "RATE_LIMITED",
    "CallInfo",
    "CallResult",
    "Middleware",
    "NextCall",
    "NextRequest",
    "RateLimit",
    "Reply",
    "RequestInfo",
    "ResultCache",
    "RpcError",
    "Timing",
    "error_result",
]
