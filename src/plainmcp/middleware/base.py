"""Middleware: code around every request and around every call of a user function.

A middleware subclasses `Middleware` and overrides `on_request`, `on_call` or both; each gets
what it wraps and `call_next`, and returns what `call_next` returned, something else in its
place, or raises. The first registered runs outermost.

What it sees is the revision-independent model, never a rendered result:
- `on_request`: a `RequestInfo` (the method, its params, who sent it). For tools/call,
  `call_next` gives the `CallResult` before it is rendered for the client's revision (a tool
  failure is an isError CallResult, never an exception); returning a CallResult answers the
  call. For other methods it gives a `Reply` to pass on. Raising `RpcError` answers any request
  with that error; raising `ToolError` answers a tools/call with an isError result.
- `on_call`: a `CallInfo` (which function, its wire arguments before validation, its Context);
  `call_next` gives what the function returned, or raises its failure as the kind's error
  policy made it (plainmcp.errors). A sync function still runs in its worker thread.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from plainmcp import invoke
from plainmcp.model.identity import identity
from plainmcp.model.results import CallResult, ToolError, error_result
from plainmcp.wire import methods
from plainmcp.wire.jsonrpc import Request
from plainmcp.wire.methods import Method

if TYPE_CHECKING:
    from plainmcp.components import Components, Handler
    from plainmcp.context import Context
    from plainmcp.exchange import Exchange
    from plainmcp.invoke import FunctionSpec

__all__ = ["CallInfo", "Middleware", "NextCall", "NextRequest", "Pipeline", "Reply", "RequestInfo"]


@dataclass(slots=True, eq=False)
class RequestInfo:
    """One request as middleware sees it. Change `params` (or assign a new dict) to change
    what the handler serves; it is checked again against the method's params."""

    method: str
    params: dict[str, Any]
    _ex: Exchange = field(repr=False)
    _entry: Method = field(repr=False)
    _core: Components = field(repr=False)

    @property
    def request_id(self) -> str | int:
        return self._ex.request.id

    @property
    def target(self) -> str | None:
        """What the request names: the tool or prompt name, the resource URI (else None)."""
        target = self._entry.target
        value = self.params.get(target.param) if target is not None else None
        return value if isinstance(value, str) else None

    @property
    def arguments(self) -> Mapping[str, Any] | None:
        """A tools/call's or prompts/get's arguments (None for other methods)."""
        value = self.params.get("arguments") if self._entry.target is not None else None
        return value if isinstance(value, dict) else None

    @property
    def revision(self) -> str:
        """The protocol revision the request is served under (for logs; never branch on it)."""
        return self._ex.revision.version

    @property
    def stateless(self) -> bool:
        """A 2026-07-28 request, carrying its own revision and client: no session."""
        return self._ex.stateless

    @property
    def client_info(self) -> Mapping[str, Any]:
        return self._ex.client_info

    @property
    def principal(self) -> Any:
        """Who the HTTP transport authenticated (a Principal), or None."""
        return self._ex.principal

    @property
    def client(self) -> Hashable | None:
        """Who sent it, for per-client limits: the principal's key when authenticated,
        else the session (one connection), else None (a stateless request without auth, whose
        sender nothing identifies)."""
        principal = self._ex.principal
        if principal is not None:
            return ("principal", identity(principal) or principal)
        if not self._ex.stateless:
            return ("session", id(self._ex.peer))
        return None

    def context(self) -> Context:
        """A Context for this request: to log to the client or report progress from middleware."""
        return self._core.context(self._ex)


@dataclass(slots=True, eq=False)
class CallInfo:
    """One call of a user function as middleware sees it. Assign `arguments` (the wire
    arguments, validated after the middleware) to change what the function is called with."""

    kind: str
    """"tool", "resource", "prompt" or "function" (a completer)."""
    name: str
    """The tool or prompt name, the resource URI read."""
    arguments: Mapping[str, Any]
    context: Context | None
    """The request's Context when the function takes one, else None."""
    fn: Callable[..., Any] = field(repr=False)


@dataclass(frozen=True, slots=True)
class Reply:
    """The result of a method other than tools/call, already in its revision's shape: pass it
    on (or raise instead); middleware does not read it."""

    _value: dict[str, Any] = field(repr=False)


NextRequest = Callable[[RequestInfo], Awaitable[Any]]
NextCall = Callable[[CallInfo], Awaitable[Any]]


class Middleware:
    """Override `on_request`, `on_call` or both; the defaults pass through (and are skipped)."""

    async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
        return await call_next(request)

    async def on_call(self, call: CallInfo, call_next: NextCall) -> Any:
        return await call_next(call)


class Pipeline:
    """A server's middleware in order, split into those around requests and around calls.

    Built again when a middleware is added; `wrap` puts the request middleware around each
    method's handler then, once (the Go SDK's `Middleware func(MethodHandler) MethodHandler`),
    so a request never looks for middleware while it is served."""

    def __init__(self, middleware: Sequence[Middleware]) -> None:
        self.middleware = tuple(middleware)
        for each in self.middleware:
            if not isinstance(each, Middleware):
                raise TypeError(f"middleware must subclass Middleware, not {type(each).__name__}")
        self.requests = tuple(
            m for m in self.middleware if type(m).on_request is not Middleware.on_request
        )
        self.calls = tuple(m for m in self.middleware if type(m).on_call is not Middleware.on_call)

    # --- around requests -------------------------------------------------------------------

    def wrap(self, entry: Method, handler: Handler) -> Handler:
        """`handler` inside the request middleware (the first added outermost). What the
        chain passes on is a `RequestInfo`; the handler serves the params it ends up with,
        checked again. tools/call's handler gives a CallResult, any other a `Reply`."""
        if not self.requests:
            return handler
        calls = entry.render == "call"

        async def innermost(request: RequestInfo) -> Any:
            served = await handler(request._core, _exchange_for(request._ex, request, entry))
            return served if calls else Reply(served)

        chain: NextRequest = innermost
        for middleware in reversed(self.requests):
            chain = _layer(middleware, chain, calls)

        async def wrapped(core: Components, ex: Exchange) -> Any:
            value = await chain(RequestInfo(entry.name, ex.params, ex, entry, core))
            if calls:
                if not isinstance(value, CallResult):
                    raise TypeError(
                        f"a middleware answered tools/call with {type(value).__name__},"
                        " not a CallResult"
                    )
                return value
            if not isinstance(value, Reply):
                raise TypeError(
                    f"a middleware answered {entry.name} with {type(value).__name__}: pass on"
                    " what call_next returned, or raise RpcError"
                )
            return value._value

        wrapped.__module__, wrapped.__qualname__ = handler.__module__, handler.__qualname__
        return wrapped

    # --- around calls ----------------------------------------------------------------------

    async def around_call(
        self,
        spec: FunctionSpec,
        arguments: Mapping[str, Any],
        context: Any,
        mask_errors: bool,
        timeout: float | None,
        name: str | None,
    ) -> Any:
        """`invoke.invoke` through the call middleware (a server's `Components.around`)."""

        async def innermost(call: CallInfo) -> Any:
            return await invoke.invoke(
                spec, call.arguments, context, mask_errors, timeout, name=name, bare=True
            )

        call = CallInfo(spec.failures.noun, name or spec.name, arguments, context, spec.fn)
        return await self._next_call(0, innermost, call)

    async def _next_call(self, index: int, innermost: NextCall, call: CallInfo) -> Any:
        if index == len(self.calls):
            return await innermost(call)
        return await self.calls[index].on_call(
            call, functools.partial(self._next_call, index + 1, innermost)
        )


def _layer(middleware: Middleware, inner: NextRequest, calls: bool) -> NextRequest:
    """One request middleware around `inner`; for tools/call, a ToolError it raises is the
    call's isError result."""
    on_request = middleware.on_request
    if not calls:

        async def layer(request: RequestInfo) -> Any:
            return await on_request(request, inner)

        return layer

    async def call_layer(request: RequestInfo) -> Any:
        try:
            return await on_request(request, inner)
        except ToolError as exc:
            return error_result(exc.message)

    return call_layer


def _exchange_for(ex: Exchange, request: RequestInfo, entry: Method) -> Exchange:
    """`ex`, or a copy serving the params a middleware put in their place; checked again,
    since a middleware may have changed them in place too."""
    methods.check(entry.params, request.params)
    if request.params is ex.request.params:
        return ex
    asked = ex.request
    return dataclasses.replace(ex, request=Request(asked.id, asked.method, request.params))
