"""The seam for protocol extensions (SEP-2133: negotiated under `capabilities.extensions`).

An extension is a subclass of `Extension` given to `Server(extensions=[...])`. Without editing
a core module it contributes:
- its entry under `capabilities.extensions` (initialize and server/discover): `capability()`,
  built from its own settings;
- rows of the method table with their handlers (`methods()`): they exist only for a client
  that negotiated the extension (its `capabilities.extensions` names it, at a revision the
  extension is offered in); any other client is answered -32601, as for an unknown method;
- the notification kinds it sends (`notifications`), through `notify`, and the `_meta` keys
  it reads and writes (`meta_keys`), both declared so that two extensions cannot collide;
- result hooks (`result_hooks()`): a method's rendered result passes through them, for a
  client that negotiated the extension;
- for the protocol's own extensions (io.modelcontextprotocol/...), which also serve a core
  feature of an older revision: top-level capabilities per revision (`core_capabilities`),
  the answer to a request its methods refuse (`refusal`: -32601 unless negotiated, by
  default), and wrappers around a core method's handler (`wraps()`: tools/call that may
  become a task), whose `Answered` value the rendering step passes on as it is;
- what it registers on the server (`bind(server)`: called once by the Server it is given to,
  when the server's parts exist, so it may add resources, tools or prompts through the
  server's own methods, as skills adds its files).
A handler is `async (components, exchange) -> result`, as the core's (handlers/); the client's
extensions are `client_extensions(ex)` (or `ctx.client_capabilities["extensions"]`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from plainmcp.wire.jsonrpc import METHOD_NOT_FOUND, RpcError
from plainmcp.wire.methods import METHODS, Method
from plainmcp.wire.revisions import REVISIONS

if TYPE_CHECKING:
    from plainmcp.context import Context
    from plainmcp.exchange import Exchange
    from plainmcp.wire.revisions import Revision

__all__ = [
    "Answered",
    "Extension",
    "ResultHook",
    "Wrapper",
    "client_extensions",
    "negotiated",
    "notify",
]

Handler = Callable[[Any, "Exchange"], Awaitable[Any]]
"""A method's handler: given the server's Components (components.py, which hold the
extensions, so not named here) and the request's Exchange."""
ResultHook = Callable[["Exchange", dict[str, Any]], dict[str, Any]]
"""(exchange, rendered result) -> the result sent; called for a client that negotiated."""
Render = Callable[[Any, "Exchange", Method, Any], Any]
"""A method's rendering step (dispatch.RENDER): (components, exchange, method, value) -> result."""
Wrapper = Callable[[Method, Handler, Render], Handler]
"""(the core method, its handler inside the middleware, its rendering step) -> the handler
served instead; for every client (the wrapper decides what applies)."""


class Answered(dict[str, Any]):
    """A result a wrapper rendered itself (a CreateTaskResult): the method's rendering step
    sends it as it is."""


RESERVED_PREFIX = "io.modelcontextprotocol/"
"""The protocol's own `_meta` keys: no extension declares one of those as its own."""


class Extension:
    """One extension: set `id` (a prefixed name, "com.example/widgets"), override what it adds."""

    id: ClassVar[str]
    since: ClassVar[str] = "2026-07-28"
    """The first revision it is offered in (the first whose schema has `extensions`)."""
    notifications: ClassVar[frozenset[str]] = frozenset()
    """The notification methods it sends (`notify` refuses any other)."""
    meta_keys: ClassVar[frozenset[str]] = frozenset()
    """The `_meta` keys it reads and writes."""

    def capability(self) -> Mapping[str, Any]:
        """Its settings as announced under `capabilities.extensions[id]` (empty: no settings)."""
        return {}

    def methods(self) -> Sequence[tuple[Method, Handler]]:
        """Rows of the method table it serves, each with its handler."""
        return ()

    def result_hooks(self) -> Mapping[str, ResultHook]:
        """Method name -> a hook its rendered results pass through."""
        return {}

    def wraps(self) -> Mapping[str, Wrapper]:
        """Core method name -> a wrapper around its handler."""
        return {}

    def core_capabilities(self, rev: Revision) -> Mapping[str, Any]:
        """Top-level capabilities it adds at `rev` (a core feature of an older revision)."""
        return {}

    def bind(self, server: Any) -> None:
        """Register what it serves through `server`'s public methods (add_resource, add_tool,
        add_prompt); called once by each Server it is given to, once that server can take them.
        `server` is a plainmcp.server.Server (not named here: server.py imports this module)."""

    def refusal(self, ex: Exchange, method: Method) -> RpcError | None:
        """None to serve `method` (one of its rows) for `ex`; else the error answered."""
        if negotiated(ex, self):
            return None
        return RpcError(METHOD_NOT_FOUND, f"Method not found: {method.name}")

    def offered_in(self, rev: Revision) -> bool:
        versions = list(REVISIONS)
        return versions.index(rev.version) >= versions.index(self.since)


def check(extensions: Sequence[Extension]) -> tuple[Extension, ...]:
    """The extensions a Server is given, refused (ValueError, TypeError) when they collide with
    each other or with the core: one id, method, notification or `_meta` key each."""
    ids: set[str] = set()
    names: set[str] = set(METHODS)
    sent: set[str] = set()
    keys: set[str] = set()
    for ext in extensions:
        if not isinstance(ext, Extension):
            raise TypeError(f"extensions must subclass Extension, not {type(ext).__name__}")
        ident = getattr(ext, "id", None)
        if not isinstance(ident, str) or "/" not in ident.strip("/"):
            raise ValueError(f"an extension id is a prefixed name (vendor/name), not {ident!r}")
        if ident in ids:
            raise ValueError(f"two extensions have the id {ident!r}")
        ids.add(ident)
        if ext.since not in REVISIONS:
            raise ValueError(f"extension {ident!r}: since= names no revision: {ext.since!r}")
        for name in ext.wraps():
            if name not in METHODS:
                raise ValueError(f"extension {ident!r}: wraps no core method {name!r}")
        for method, _ in ext.methods():
            if method.name in names:
                raise ValueError(f"extension {ident!r}: the method {method.name!r} is taken")
            names.add(method.name)
        for kind, pool in ((ext.notifications, sent), (ext.meta_keys, keys)):
            for name in kind:
                if name in pool or name.startswith(RESERVED_PREFIX):
                    raise ValueError(f"extension {ident!r}: {name!r} is taken")
                pool.add(name)
    return tuple(extensions)


def announced(extensions: Sequence[Extension], rev: Revision) -> dict[str, Any]:
    """`capabilities.extensions` for `rev` (empty: none offered in it)."""
    return {ext.id: dict(ext.capability()) for ext in extensions if ext.offered_in(rev)}


def core_announced(extensions: Sequence[Extension], rev: Revision) -> dict[str, Any]:
    """The top-level capabilities the extensions add at `rev`."""
    out: dict[str, Any] = {}
    for ext in extensions:
        out.update(ext.core_capabilities(rev))
    return out


def client_extensions(ex: Exchange | Context) -> Mapping[str, Any]:
    """The client's `capabilities.extensions` (empty when it sent none, or not an object)."""
    found = ex.client_capabilities.get("extensions")
    return found if isinstance(found, dict) else {}


def negotiated(ex: Exchange, ext: Extension) -> bool:
    """Both sides have `ext` for this request: the client named it, in a revision it is in."""
    return ext.offered_in(ex.revision) and ext.id in client_extensions(ex)


async def notify(ex: Exchange, ext: Extension, method: str, params: Any = None) -> None:
    """Send one of `ext`'s declared notifications to the client of `ex`, related to its
    request (ValueError for a kind it did not declare)."""
    if method not in ext.notifications:
        raise ValueError(f"extension {ext.id!r} declares no notification {method!r}")
    await ex.peer.notify(method, params, related_to=ex.request.id)
