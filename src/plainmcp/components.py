"""The parts a server is made of, as the handlers are given them (never the Server itself).

`Components` holds the settings (settings.py), one `Registry` per kind of feature, the blob
store and the state signer, the extensions, and what is built from them and kept: the tool
lists per revision, serverInfo per revision, the feature names. The Server is its public face:
the decorators register here, the transports serve through `routes`. The resource and prompt
registries, and their modules, are made on first use: a server of tools alone never loads
them (start-up time for every session a host spawns).
"""

from __future__ import annotations

import functools
import operator
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from plainmcp import notify
from plainmcp.context import Context, LifespanState
from plainmcp.continuation import make as continuation_tool
from plainmcp.exchange import Exchange
from plainmcp.guards.follow import Follow
from plainmcp.offers import Offers, Registered
from plainmcp.registry import Registry
from plainmcp.settings import Settings
from plainmcp.wire.methods import Method

if TYPE_CHECKING:
    import anyio

    from plainmcp.completion import Completer
    from plainmcp.connection import Connection
    from plainmcp.extensions import Extension
    from plainmcp.instrumentation import Instrumentation
    from plainmcp.invoke import Around, FunctionSpec
    from plainmcp.model.options import PayloadLimits, ResultOptions
    from plainmcp.prompts import Prompts
    from plainmcp.resources import Resources
    from plainmcp.store import BlobStore
    from plainmcp.tools import Tool
    from plainmcp.wire.request_state import StateSigner

Handler = Callable[["Components", Exchange], Awaitable[Any]]
"""A method's handler: given the server's parts, never the Server."""

Render = Callable[["Components", Exchange, Method, Any], dict[str, Any]]
"""A rendering step: the handler's value to the result sent, for the request's revision."""


class Route(NamedTuple):
    """How a server serves one method: the handler (inside its middleware) and the step that
    renders what it returns (dispatch.routes makes them)."""

    method: Method
    handler: Handler
    render: Render


Wrap = Callable[[Method, Handler], Handler]
"""Middleware around one method's handler (middleware/base.py builds it)."""


class Announcer:
    """Where list changes and resource updates go: this process's connections, or a relay
    that takes them to every process (then each calls `fan_out`)."""

    __slots__ = ("connections", "listeners", "relay")

    def __init__(self) -> None:
        self.connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self.relay: Callable[[str, str], None] | None = None
        self.listeners: list[Callable[[str, str], None]] = []
        """Told of every announcement first: a server this one is mounted in (mount.py)."""

    def announce(self, kind: str, subject: str) -> None:
        for listener in self.listeners:
            listener(kind, subject)
        relay = self.relay
        if relay is not None:
            relay(kind, subject)
        else:
            self.fan_out(kind, subject)

    def fan_out(self, kind: str, subject: str) -> None:
        """`kind` "updated" (`subject` a resource URI) or "list_changed" (a feature name)."""
        if kind == "updated":
            notify.resource_updated(self.connections, subject)
        else:
            notify.list_changed(self.connections, subject)


class Components:
    """A server's settings, registries, store and signer (what every handler reads)."""

    def __init__(
        self,
        settings: Settings,
        *,
        blob_store: BlobStore,
        state_signer: StateSigner,
        extensions: tuple[Extension, ...] = (),
    ) -> None:
        self.settings = settings
        """Frozen; replaced as a whole when a setting changes."""
        self.blob_store = blob_store
        self.default_store: BlobStore | None = None
        """The store the Server made, while it is the one in use (a stdio server replaces it
        with one in the user's cache: stdio_cache.py)."""
        self.stdio_cached = False
        self.instruments: Instrumentation | None = None
        """OpenTelemetry's instruments when telemetry is on (instrumentation.py)."""
        self.state_signer = state_signer
        self.announcer = Announcer()
        self.tools: Registry[Tool] = Registry(
            "tools",
            duplicate="a tool named {key!r} is already registered",
            announce=self.announcer.announce,
        )
        self.tools.watch(self._tools_changed)
        self.tools_offload = False
        """Some tool's own limits offload (so resources/read serves blobs, whatever the
        server's payload_limits say)."""
        self.tool_pages: dict[tuple[str, bool, int | None, str], list[dict[str, Any]]] = {}
        """tools/list rendered per (revision, described, limits, host), until the tools change."""
        self.tool_slots: anyio.CapacityLimiter | None = None
        """The bound on tool calls at once, made on first use (inside the event loop)."""
        self.completers: Registry[Completer] = Registry(None)
        """Explicit completers of template variables by (template, variable): keyed by the
        template object, so that a template removed and registered again drops its own."""
        self.extensions = extensions
        """What extends the protocol (plainmcp.extensions), each by its id."""
        identity = functools.partial(operator.attrgetter("settings.identity"), self)  # no frame
        self.offers = Offers(identity, self.registered, extensions)
        """What each revision, session and request is offered (offers.py)."""
        self.lifespan: LifespanState | None = None
        """The server's lifespan, what `ctx.lifespan()` reads (None: it declares none)."""
        self.extension_ids = {ext.id: ext for ext in extensions}
        self.routes: dict[str, Route] = {}
        """Each method the server serves, by name: its handler inside the middleware and its
        rendering step (dispatch.routes; built again when middleware is added)."""
        self.around: Around | None = None
        """The call middleware every user function is called through (None: none)."""
        self.made_resources: Resources | None = None
        """The resource registry once made (None: never used), read without making it."""
        self.made_prompts: Prompts | None = None
        self.served_for: dict[FunctionSpec, Components] = {}
        """The functions registered here on behalf of a mounted server (mount.py), each with
        the server whose Context it gets."""
        self._continuation: Tool | None = None

    # --- the registries made on first use --------------------------------------------------

    @property
    def resources(self) -> Resources:
        if self.made_resources is None:
            from plainmcp.resources import Resources

            self.made_resources = Resources(announce=self.announcer.announce)
        return self.made_resources

    @property
    def prompts(self) -> Prompts:
        if self.made_prompts is None:
            from plainmcp.prompts import Prompts

            self.made_prompts = Prompts(announce=self.announcer.announce)
        return self.made_prompts

    def registered(self) -> Registered:
        """What decides the offers besides the revision, read without making a registry that
        was never used; resources are offered too while payloads may be offloaded (they are
        read back through resources/read)."""
        resources, prompts = self.made_resources, self.made_prompts
        return (
            bool(resources is not None and len(resources))
            or self.settings.results.payload_limits.offload
            or self.tools_offload,
            bool(prompts is not None and len(prompts)),
            resources is not None and resources.has_templates,
        )

    # --- tools -----------------------------------------------------------------------------

    def _tools_changed(self) -> None:
        self.tool_pages.clear()
        self.tools_offload = any(t.limits.offload for t in self.tools.by_key.values() if t.limits)

    @property
    def continuation(self) -> Tool | None:
        """The continuation tool while it is offered (offloading on), else None."""
        results = self.settings.results
        name = results.continuation
        if name is None or not results.payload_limits.offload:
            return None
        built = self._continuation
        if built is None or built.name != name:
            built = self._continuation = continuation_tool(self, name)
        return built

    @property
    def follow(self) -> Follow | None:
        """How markers name the continuation (None while it is not offered)."""
        tool = self.continuation
        return None if tool is None else Follow(tool.name, self.state_signer)

    def find_tool(self, name: str) -> Tool | None:
        """The tool `name`, the continuation included (None if there is none)."""
        tool = self.tools.by_key.get(name)
        if tool is None:
            builtin = self.continuation
            if builtin is not None and builtin.name == name:
                return builtin
        return tool

    def listed_tools(self) -> list[Tool]:
        """The tools `tools/list` shows: the registered ones, then the continuation if offered."""
        tools = self.tools.values()
        builtin = self.continuation
        if builtin is not None:
            tools.append(builtin)
        return tools

    # --- what continuation.make and the handlers read --------------------------------------

    @property
    def options(self) -> ResultOptions:
        return self.settings.results.options

    @property
    def payload_limits(self) -> PayloadLimits:
        return self.settings.results.payload_limits

    def extend(self, extension: Extension) -> None:
        """Add an extension to those served (the caller builds the routes again)."""
        from plainmcp.extensions import check

        self.extensions = check((*self.extensions, extension))
        self.extension_ids[extension.id] = extension
        self.offers.extend(extension)

    def negotiated(self, ex: Exchange, extension: str) -> bool:
        """The client of `ex` negotiated the extension `extension` (its id)."""
        from plainmcp.extensions import negotiated

        return negotiated(ex, self.extension_ids[extension])

    def context(self, ex: Exchange, spec: FunctionSpec | None = None) -> Context:
        """The Context a function (`spec`) serving `ex` gets: a mounted server's function gets
        that server's (its lifespan, its timeouts), talking to the same client."""
        if spec is not None and self.served_for:
            home = self.served_for.get(spec)
            if home is not None:
                return home.context(ex, spec)
        return Context(
            ex, client_timeout=self.settings.limits.client_request_timeout, lifespan=self.lifespan
        )
