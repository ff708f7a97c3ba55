"""Result caching for the tools declared cacheable: the same tool, arguments and principal get
the stored result until it expires."""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from plainmcp.middleware.base import Middleware, NextRequest, RequestInfo
from plainmcp.model.blocks import ResourceLink
from plainmcp.model.identity import identity
from plainmcp.model.results import CallResult
from plainmcp.store import BLOB_PREFIX

__all__ = ["ResultCache"]


class ResultCache(Middleware):
    """Caches tools/call results of the tools in `ttls` (tool name -> seconds), keyed by the
    tool, its arguments (as canonical JSON: key order does not matter) and the principal's
    subject (None without auth: unauthenticated callers share results).

    What is stored is the result before it is rendered, so one entry serves every protocol
    revision. isError results are not stored, and neither are results linking an offloaded
    payload (a `plainmcp://blob/` resource_link, as the payload guards make): the blob store
    may drop it before the entry expires (its own TTL, on its own clock, or evicted when full),
    and a cached link to nothing is worse than calling again. At most `max_entries`, the least
    recently used dropped first. `clock`: seconds (tests pass their own).
    """

    def __init__(
        self,
        ttls: Mapping[str, float],
        *,
        clock: Callable[[], float] = time.monotonic,
        max_entries: int = 1024,
    ) -> None:
        for name, ttl in ttls.items():
            if ttl <= 0:
                raise ValueError(f"cache ttl of tool {name!r} must be positive, not {ttl!r}")
        self.ttls = dict(ttls)
        self.clock = clock
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[float, CallResult]] = OrderedDict()

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        ttl = self.ttls.get(request.target or "") if request.method == "tools/call" else None
        if ttl is None:
            return await call_next(request)
        key = self._key(request)
        now = self.clock()
        found = self._entries.get(key)
        if found is not None:
            if found[0] > now:
                self._entries.move_to_end(key)
                return found[1]
            del self._entries[key]
        result = await call_next(request)
        if isinstance(result, CallResult) and not result.is_error and not _links_blob(result):
            self._entries[key] = (self.clock() + ttl, result)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return result

    @staticmethod
    def _key(request: RequestInfo) -> Hashable:
        arguments = json.dumps(
            request.arguments or {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        principal = request.principal
        who = identity(principal) or principal if principal is not None else None
        return (request.target, arguments, who)


def _links_blob(result: CallResult) -> bool:
    """Whether the result links a payload in the blob store (which may outlive no cache)."""
    return any(
        isinstance(block, ResourceLink) and block.uri.startswith(BLOB_PREFIX)
        for block in result.content
    )
