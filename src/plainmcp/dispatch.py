"""The dispatcher: one request to its response message, the same for every transport.

The method table (wire/methods.py) says what a method takes, needs and names; this module maps
each entry to its handler (handlers/) and its rendering step (`RENDER`), builds the Exchange the
request is served under (its own `_meta` at 2026-07-28, else its session's) and turns what the
handler raises into errors. A server's `routes` are built once, with its middleware wrapped
around each handler when it is added (`routes`): every request takes the one path, check, handler,
render, whether middleware is installed or not.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from plainmcp import input_required
from plainmcp.components import Handler, Render, Route, Wrap
from plainmcp.context import ClientCapabilityError, InputRequired
from plainmcp.exchange import Exchange
from plainmcp.extensions import Answered, Extension, ResultHook, negotiated
from plainmcp.handlers import lifecycle, tools
from plainmcp.wire import jsonrpc, methods, render
from plainmcp.wire.envelope import is_stateless, stateless_revision
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    STORE_UNAVAILABLE,
    Request,
    RpcError,
    StoreDown,
)
from plainmcp.wire.meta import (
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    LOG_LEVEL,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PROTOCOL_VERSION,
)
from plainmcp.wire.methods import METHODS, Method
from plainmcp.wire.revisions import negotiate

if TYPE_CHECKING:
    from plainmcp.components import Components
    from plainmcp.connection import Connection

log = logging.getLogger("plainmcp")


def _on_first_use(module: str, name: str) -> Handler:
    """The handler `module.name`, imported by its first request: a server of tools alone never
    loads the resource, prompt and completion modules (start-up time for each session)."""
    found: list[Handler] = []

    async def handler(core: Components, ex: Exchange) -> Any:
        if not found:
            found.append(getattr(importlib.import_module(module), name))
        return await found[0](core, ex)

    handler.__module__, handler.__name__, handler.__qualname__ = module, name, name
    return handler


_RESOURCES, _PROMPTS = "plainmcp.handlers.resources", "plainmcp.handlers.prompts"
_SUBSCRIPTIONS = "plainmcp.handlers.subscriptions"

HANDLERS: dict[Method, Handler] = {
    methods.INITIALIZE: lifecycle.initialize,
    methods.DISCOVER: lifecycle.discover,
    methods.PING: lifecycle.ping,
    methods.SET_LEVEL: lifecycle.set_level,
    methods.TOOLS_LIST: tools.list_tools,
    methods.TOOLS_CALL: tools.call,
    methods.RESOURCES_LIST: _on_first_use(_RESOURCES, "list_resources"),
    methods.TEMPLATES_LIST: _on_first_use(_RESOURCES, "list_templates"),
    methods.RESOURCES_READ: _on_first_use(_RESOURCES, "read"),
    methods.SUBSCRIBE: _on_first_use(_SUBSCRIPTIONS, "subscribe"),
    methods.UNSUBSCRIBE: _on_first_use(_SUBSCRIPTIONS, "unsubscribe"),
    methods.PROMPTS_LIST: _on_first_use(_PROMPTS, "list_prompts"),
    methods.PROMPTS_GET: _on_first_use(_PROMPTS, "get"),
    methods.COMPLETE: _on_first_use("plainmcp.handlers.completion", "complete"),
    methods.LISTEN: _on_first_use(_SUBSCRIPTIONS, "listen"),
}
"""The handler of each entry of the method table (keyed by the entries: names live there)."""


def finish(
    core: Components, ex: Exchange, method: Method, result: dict[str, Any]
) -> dict[str, Any]:
    """The "result" step: a result dict finished for a revision with result types."""
    rev = ex.revision
    if rev.result_type:
        info = core.offers.server_info(rev)
        return render.finish_result(result, method, rev, info, core.settings.caching.cache)
    return result


RENDER: dict[str, Render] = {"result": finish, "call": tools.render_call}
"""The rendering steps the method table names (`Method.render`)."""


def routes(wrap: Wrap | None = None, extensions: Sequence[Extension] = ()) -> dict[str, Route]:
    """Every method of the table by name, and the rows the extensions add, each handler
    wrapped by `wrap` (None: no middleware) and each rendering step followed by the result
    hooks of the extensions (for a client that negotiated them)."""
    table: list[tuple[Method, Handler]] = [(m, HANDLERS[m]) for m in METHODS.values()]
    for ext in extensions:
        table += [(dataclasses.replace(m, extension=ext.id), h) for m, h in ext.methods()]
    made = {}
    for method, handler in table:
        step = RENDER[method.render]
        hooks = [(ext, hook) for ext in extensions if (hook := ext.result_hooks().get(method.name))]
        step = step if not hooks else _hooked(step, hooks)
        served = handler if wrap is None else wrap(method, handler)
        wrappers = [w for ext in extensions if (w := ext.wraps().get(method.name))]
        for wrapper in wrappers:
            served = wrapper(method, served, step)
        made[method.name] = Route(method, served, step if not wrappers else _answered(step))
    return made


def _answered(step: Render) -> Render:
    """`step`, but a value a wrapper already rendered (extensions.Answered) is only finished
    for its revision."""

    def render_unless_answered(core: Components, ex: Exchange, method: Method, value: Any) -> Any:
        if isinstance(value, Answered):
            return finish(core, ex, method, dict(value))
        return step(core, ex, method, value)

    return render_unless_answered


def _hooked(step: Render, hooks: list[tuple[Extension, ResultHook]]) -> Render:
    def render_and_hook(core: Components, ex: Exchange, method: Method, value: Any) -> Any:
        result = step(core, ex, method, value)
        for ext, hook in hooks:
            if negotiated(ex, ext):
                result = hook(ex, result)
        return result

    return render_and_hook


def dispatch(
    core: Components, conn: Connection, request: Request
) -> Coroutine[Any, Any, dict[str, Any]]:
    """One request to its response message (await it). Never raises for a bad request.

    Not itself a coroutine: without telemetry the caller awaits `answer` directly, so the hot
    path pays a None check and no extra coroutine."""
    instruments = core.instruments
    if instruments is not None and instruments.recording():  # served inside its span
        return instruments.serve(core, conn, request, answer)
    return answer(core, conn, request)


async def answer(core: Components, conn: Connection, request: Request) -> dict[str, Any]:
    """dispatch() without telemetry."""
    route = core.routes.get(request.method)
    try:
        if route is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
        method, handler, rendered = route
        _check_meta(request.params)
        ex = exchange(core, conn, request, method)
        if method.capability is not None and method.capability not in ex.features:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
        if method.extension is not None:
            refused = core.extension_ids[method.extension].refusal(ex, method)
            if refused is not None:
                raise refused
        methods.check(method.params, request.params)
        try:
            result = rendered(core, ex, method, await handler(core, ex))
        except InputRequired as needed_input:
            asked = input_required.result(core.state_signer, ex, method, needed_input)
            result = finish(core, ex, method, asked)
        except ClientCapabilityError as missing:
            if missing.required is None:
                raise
            raise RpcError(
                MISSING_REQUIRED_CLIENT_CAPABILITY,
                str(missing),
                {"requiredCapabilities": dict(missing.required)},
            ) from None
    except RpcError as exc:
        return jsonrpc.error_message(request.id, exc)
    except StoreDown as exc:  # retried once already (redis_link): 503 over HTTP
        log.error("%s (serving %s)", exc, request.method)
        return jsonrpc.error_message(request.id, RpcError(INTERNAL_ERROR, STORE_UNAVAILABLE))
    except Exception:
        log.exception("internal error serving %s", request.method)
        return jsonrpc.error_message(request.id, RpcError(INTERNAL_ERROR, "Internal error"))
    return jsonrpc.result_message(request.id, result)


def exchange(core: Components, conn: Connection, request: Request, method: Method) -> Exchange:
    """The revision and client a request is served for: its own `_meta` (2026-07-28), else
    its session's."""
    if is_stateless(request.params):
        return _stateless_exchange(core, conn, request, method, request.params["_meta"])
    if method.needs_envelope:
        raise RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {PROTOCOL_VERSION}")
    session = conn.session
    refusal = session.refusal(method)
    if refusal is not None:
        raise refusal
    rev = session.revision
    if rev is None:
        rev = negotiate(request.params.get("protocolVersion"))
    return Exchange(
        peer=conn,
        request=request,
        revision=rev,
        client_info=session.client_info,
        client_capabilities=session.client_capabilities,
        features=session.features,
        principal=conn.principal,
    )


def _stateless_exchange(
    core: Components, conn: Connection, request: Request, method: Method, meta: dict[str, Any]
) -> Exchange:
    rev = stateless_revision(request.method, request.params)
    client_info = meta.get(CLIENT_INFO)
    return Exchange(
        peer=conn,
        request=request,
        revision=rev,
        client_info=client_info if isinstance(client_info, dict) else {},
        client_capabilities=meta[CLIENT_CAPABILITIES],
        features=core.offers.features(rev),
        request_log_level=meta.get(LOG_LEVEL),
        answers=input_required.answers(core.state_signer, request, method, conn.principal),
        principal=conn.principal,
    )


def _check_meta(params: dict[str, Any]) -> None:
    """`_meta` is an object, and a progress token a string or an integer (all revisions)."""
    meta = params.get("_meta")
    if meta is None:
        return
    if not isinstance(meta, dict):
        raise RpcError(INVALID_PARAMS, "Invalid params: _meta must be an object")
    token = meta.get("progressToken")
    if token is not None and (isinstance(token, bool) or not isinstance(token, int | str)):
        raise RpcError(
            INVALID_PARAMS, "Invalid params: _meta.progressToken must be a string or an integer"
        )
