"""Server: the public face of an MCP server: registration, options, capabilities, running.

Transports feed bytes to a `Connection` and give it a `send` function; `dispatch` serves each
request through the method table and the handlers (handlers/), the same for every transport.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Unpack, overload

from plainmcp.components import Components
from plainmcp.connection import Connection, Send
from plainmcp.continuation import DEFAULT_NAME as DEFAULT_CONTINUATION
from plainmcp.dispatch import dispatch, routes
from plainmcp.exchange import Exchange
from plainmcp.extensions import check as check_extensions
from plainmcp.guards.follow import Follow
from plainmcp.lifespan import Lifespan, as_factory, running
from plainmcp.model.blocks import Icon
from plainmcp.model.options import PayloadLimits, ResultOptions
from plainmcp.settings import MIRRORED
from plainmcp.settings import build as build_settings
from plainmcp.store import BlobStore, MemoryStore
from plainmcp.tools import Tool, ToolSettings, check_name, make_tool
from plainmcp.wire import render
from plainmcp.wire.jsonrpc import Request
from plainmcp.wire.request_state import StateSigner

if TYPE_CHECKING:
    from plainmcp.completion import Completer
    from plainmcp.context import Context
    from plainmcp.extensions import Extension
    from plainmcp.middleware.base import Middleware, Pipeline
    from plainmcp.offers import Offers
    from plainmcp.prompts import Prompts, PromptSettings
    from plainmcp.resources import Resource, Resources, ResourceTemplate
    from plainmcp.tasks.extension import Tasks
    from plainmcp.telemetry import Telemetry
    from plainmcp.transports.http.app import HttpApp

F = TypeVar("F", bound=Callable[..., Any])


async def _no_lifespan(app: Server) -> AsyncIterator[None]:
    """The lifespan of a server that declares none but has a mounted one to run."""
    yield None


_COMPONENTS = frozenset({"blob_store", "state_signer"})
"""The Server attributes that mirror a component of the same name."""


class Server:
    """An MCP server: register tools with `@app.tool`, then `app.run()`.

    Its settings (settings.py) are plain attributes here, for reading at no cost (connection.py
    reads max_message_bytes for every message); assigning one (`app.page_size = 50`) replaces
    the frozen settings every component reads (`__setattr__`)."""

    blob_store: BlobStore
    """Where offloaded payloads wait to be read back through resources/read."""
    state_signer: StateSigner
    """Signs the requestState of input-required results (2026-07-28), and the refs of the
    continuation. Give every process that serves the same clients one secret (state_secret=
    or PLAINMCP_STATE_SECRET)."""

    name: str
    version: str
    title: str | None
    description: str | None
    website_url: str | None
    icons: tuple[Icon, ...] | None
    instructions: str | None
    options: ResultOptions
    payload_limits: PayloadLimits
    """What one tool result may carry inline (docs/results.md, "Payload guards")."""
    mask_errors: bool
    describe_parts: bool
    """Tools whose results may be cut in parts get a sentence saying so in their
    description (False: descriptions stay as written)."""
    page_size: int
    max_message_bytes: int
    tool_timeout: float | None
    """Seconds any tool may run, unless the tool sets its own timeout."""
    max_concurrent_tools: int | None
    """Tool calls beyond this many wait for a running one to finish (None: no bound)."""
    client_request_timeout: float
    """Seconds to wait for the client to answer elicitation, sampling or roots requests."""
    cache: render.CachePolicy
    """2026-07-28 freshness hints (ttlMs, cacheScope) on discover, lists and reads."""
    hide_unauthorized: bool
    """Lists leave out what the request's principal lacks the scopes to call (docs/
    operations.md, "Auth"); lists then differ per principal, so their cacheScope is
    private."""
    stdio_cache: bool
    """Over stdio, with no blob_store nor state secret given, keep both in the server's folder
    of the user's cache, so that a ref outlives the process that gave it out (stdio_cache.py;
    docs/results.md, "Across processes"). False: in this process's memory."""

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        title: str | None = None,
        description: str | None = None,
        website_url: str | None = None,
        icons: Sequence[Icon] | None = None,
        instructions: str | None = None,
        options: ResultOptions | None = None,
        mask_errors: bool = False,
        page_size: int = 1000,
        max_message_bytes: int = 64 * 1024 * 1024,
        tool_timeout: float | None = None,
        max_concurrent_tools: int | None = None,
        client_request_timeout: float = 120.0,
        payload_limits: PayloadLimits | None = None,
        blob_store: BlobStore | None = None,
        list_ttl_ms: int = 60_000,
        read_ttl_ms: int = 0,
        cache_scope: Literal["public", "private"] = "public",
        state_secret: bytes | str | None = None,
        state_ttl: float = 600.0,
        telemetry: Telemetry | None = None,
        lifespan: Callable[[Server], Any] | None = None,
        middleware: Sequence[Middleware] = (),
        hide_unauthorized: bool = False,
        continuation: str | None = DEFAULT_CONTINUATION,
        describe_parts: bool = True,
        stdio_cache: bool = True,
        extensions: Sequence[Extension] = (),
        tasks: Tasks | None = None,
    ) -> None:
        settings = build_settings(
            name,
            version,
            title=title,
            description=description,
            website_url=website_url,
            icons=icons,
            instructions=instructions,
            options=options,
            mask_errors=mask_errors,
            page_size=page_size,
            max_message_bytes=max_message_bytes,
            tool_timeout=tool_timeout,
            max_concurrent_tools=max_concurrent_tools,
            client_request_timeout=client_request_timeout,
            payload_limits=payload_limits,
            list_ttl_ms=list_ttl_ms,
            read_ttl_ms=read_ttl_ms,
            cache_scope=cache_scope,
            state_secret=state_secret,
            state_ttl=state_ttl,
            telemetry=telemetry,
            hide_unauthorized=hide_unauthorized,
            continuation=None if continuation is None else check_name(continuation),
            describe_parts=describe_parts,
            stdio_cache=stdio_cache,
        )
        # Not `blob_store or ...`: a MemoryStore has __len__, so an empty one is falsy.
        store: BlobStore = blob_store if blob_store is not None else MemoryStore()
        self.core = Components(
            settings,
            blob_store=store,
            state_signer=StateSigner(state_secret, ttl=state_ttl),
            extensions=check_extensions(extensions) if extensions else (),
        )
        """The parts the handlers are given: settings, registries, store, signer."""
        for field, group in MIRRORED.items():
            object.__setattr__(self, field, getattr(getattr(settings, group), field))
        self.blob_store, self.state_signer = store, self.core.state_signer
        self.core.default_store = store if blob_store is None else None
        if telemetry is not None:
            from plainmcp.telemetry import instrument

            self.core.instruments = instrument(telemetry)
        self._instruments = self.core.instruments  # what connect() tells of each connection
        self.lifespan_manager = Lifespan(as_factory(lifespan)) if lifespan is not None else None
        """Entered once per process by the transport that starts first (plainmcp.lifespan)."""
        self.core.lifespan = self.lifespan_manager
        self._pipeline: Pipeline | None = None
        """The middleware, in the order given (None: none)."""
        self._compose()
        for each in middleware:
            self.add_middleware(each)
        self._tasks: Tasks | None = None
        if tasks is not None:
            self._serve_tasks(tasks)
        self._tool_pages = self.core.tool_pages  # one dict (tests/hosts/test_adapt.py reads it)
        self._connections = self.core.announcer.connections
        for ext in extensions:  # last: the server takes any registration now
            ext.bind(self)

    @property
    def telemetry(self) -> Telemetry | None:
        """OpenTelemetry spans and metrics (docs/operations.md, "Telemetry"); None: off."""
        return self.core.settings.telemetry

    def __setattr__(self, name: str, value: Any) -> None:
        group = MIRRORED.get(name)
        if group is not None and "core" in self.__dict__:
            core = self.core
            core.settings = core.settings.with_field(name, value)
            value = getattr(getattr(core.settings, group), name)
        elif name in _COMPONENTS and "core" in self.__dict__:
            setattr(self.core, name, value)
        object.__setattr__(self, name, value)

    @property
    def relay(self) -> Callable[[str, str], None] | None:
        """Set by a transport whose sessions live in many processes: list changes and resource
        updates go through it to every process, each of which calls `fan_out`."""
        return self.core.announcer.relay

    @relay.setter
    def relay(self, relay: Callable[[str, str], None] | None) -> None:
        self.core.announcer.relay = relay

    @property
    def resources(self) -> Resources:
        """The resources and templates. Created, and its module imported, on first use: a
        server of tools alone never loads them (start-up time for every session a host
        spawns)."""
        return self.core.resources

    @property
    def prompts(self) -> Prompts:
        """The prompts; created on first use, as `resources` is."""
        return self.core.prompts

    # --- registration ----------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(self, **settings: Unpack[ToolSettings]) -> Callable[[F], F]: ...

    def tool(self, fn: Any = None, /, **settings: Any) -> Any:  # type: ignore[misc]
        """Register a function as a tool; works bare (`@app.tool`) or with settings."""
        if fn is not None:
            self.add_tool(fn, **settings)
            return fn

        def register(func: F) -> F:
            self.add_tool(func, **settings)
            return func

        return register

    def add_tool(self, fn: Callable[..., Any], **settings: Unpack[ToolSettings]) -> Tool:
        """Register `fn` (same settings as `@app.tool`); returns the definition built."""
        tool = make_tool(fn, **settings)
        if tool.name == self.core.settings.results.continuation:
            raise ValueError(
                f"a tool named {tool.name!r} would hide the built-in continuation of that name;"
                " rename the tool, or give the continuation another name with"
                f" Server(continuation=...) (None turns it off)"
            )
        if tool.task is not None:
            self._serve_tasks_by_default()
        return self.core.tools.add(tool.name, tool)

    def _serve_tasks_by_default(self) -> None:
        """A tool runs as a task: serve tasks, with the defaults unless Server(tasks=) chose."""
        if self._tasks is None:
            from plainmcp.tasks.extension import Tasks

            self._serve_tasks(Tasks())

    @property
    def tasks(self) -> Tasks | None:
        """Where tasks run and are kept (docs/tasks.md): `Server(tasks=Tasks(...))`, else made
        with the defaults when the first tool declares `task=`; None while no tool may run as
        a task."""
        return self._tasks

    def _serve_tasks(self, tasks: Tasks) -> None:
        self.core.extend(tasks)
        self._tasks = tasks
        self._compose()
        tasks.bind(self)

    def remove_tool(self, name: str) -> None:
        self.core.tools.remove(name)

    @property
    def tools(self) -> Mapping[str, Tool]:
        return dict(self.core.tools.by_key)  # type: ignore[arg-type]

    @property
    def offers(self) -> Offers:
        """What each revision, session and request is offered (plainmcp.offers)."""
        return self.core.offers

    @property
    def tools_view(self) -> Mapping[str, Tool]:
        """The tools by name, not copied as `tools` is (read per stateless request)."""
        return self.core.tools.by_key  # type: ignore[return-value]

    @property
    def continuation(self) -> Tool | None:
        """The continuation tool while it is offered (offloading on), else None."""
        return self.core.continuation

    @property
    def follow(self) -> Follow | None:
        """How markers name the continuation (None while it is not offered)."""
        return self.core.follow

    def resource(self, uri: str, **settings: Any) -> Callable[[F], F]:
        """Register a function as the resource at `uri`; `{name}` in it makes a template.

        `complete={"name": completer}` supplies completions for template variables (Literal
        and Enum parameters complete on their own). `scopes=[...]`: OAuth scopes a reader's
        token must hold.
        """

        def register(func: F) -> F:
            self.add_resource(func, uri, **settings)
            return func

        return register

    def add_resource(
        self,
        target: Any,
        uri: str,
        *,
        complete: Mapping[str, Completer] | None = None,
        **settings: Any,
    ) -> Resource | ResourceTemplate:
        """Register a function or a static value (str, bytes, File) at `uri`."""
        from plainmcp.uri_templates import template_variables

        variables = set(template_variables(uri)) if complete else set()
        for variable in complete or {}:
            if variable not in variables:
                raise ValueError(f"{uri!r} has no template variable {variable!r} to complete")
        from plainmcp.resources import ResourceTemplate

        added = self.resources.add(target, uri, **settings)
        if isinstance(added, ResourceTemplate):
            for variable, completer in (complete or {}).items():
                self.core.completers.add((added, variable), completer)
        return added

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(self, **settings: Unpack[PromptSettings]) -> Callable[[F], F]: ...

    def prompt(self, fn: Any = None, /, **settings: Any) -> Any:  # type: ignore[misc]
        """Register a function as a prompt; works bare (`@app.prompt`) or with settings."""
        if fn is not None:
            self.prompts.add(fn, **settings)
            return fn

        def register(func: F) -> F:
            self.prompts.add(func, **settings)
            return func

        return register

    def mount(self, server: Server, namespace: str | None = None) -> None:
        """Serve `server`'s tools, prompts, resources and templates as this server's, under
        `namespace` (tools and prompts `ns_name`, URIs `ns+uri`; None: as they are), kept in
        step as it changes; its lifespan runs inside this one's (docs/composition.md,
        "Mounting"). ValueError, naming each, for names or URIs that clash."""
        from plainmcp.mount import mount

        label = f"server {server.name!r}"
        mount(self.core, server.core, namespace, label, on_task=self._serve_tasks_by_default)
        if server.lifespan_manager is not None:
            if self.lifespan_manager is None:
                # Not self.core.lifespan: this server's own functions still have none to read.
                self.lifespan_manager = Lifespan(as_factory(_no_lifespan))
            self.lifespan_manager.nest(server)

    def notify_resource_updated(self, uri: str) -> None:
        """Tell every client subscribed to `uri` that it changed (from any thread, and with
        sessions on Redis, whichever process holds the client's stream)."""
        self._announce("updated", uri)

    def _announce(self, kind: str, subject: str) -> None:
        self.core.announcer.announce(kind, subject)

    def fan_out(self, kind: str, subject: str) -> None:
        """Tell this process's clients: `kind` "updated" (`subject` a resource URI) or
        "list_changed" (`subject` a feature: "tools", "prompts", "resources")."""
        self.core.announcer.fan_out(kind, subject)

    def add_middleware(self, middleware: Middleware) -> None:
        """Add a middleware inside those already added (the first added runs outermost)."""
        from plainmcp.middleware.base import Pipeline

        given = self._pipeline.middleware if self._pipeline is not None else ()
        self._pipeline = Pipeline((*given, middleware))
        self._compose()

    def _compose(self) -> None:
        """The method table, composed now, once, with the middleware and the extensions: a
        request finds its method's handler with the middleware in it."""
        pipeline = self._pipeline
        self.core.routes = routes(pipeline.wrap if pipeline else None, self.core.extensions)
        self.core.around = pipeline.around_call if pipeline and pipeline.calls else None

    # --- running ---------------------------------------------------------------------------

    def lifespan_context(self) -> AbstractAsyncContextManager[Any]:
        """The server's lifespan for the block (`async with app.lifespan_context() as state`),
        for a host that runs the server its own way; the transports enter it themselves.
        Shared, not entered again, when it is running already. LifespanError if it fails."""
        return running(self)

    def run(
        self,
        transport: Literal["stdio", "http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        shutdown_deadline: float = 30.0,
        **http_options: Any,
    ) -> None:
        """Serve until the client goes away (stdio: until stdin closes), or serve Streamable
        HTTP on host:port with uvicorn (`pip install plainmcp[http]`) until interrupted.
        On SIGTERM, running calls get `shutdown_deadline` seconds to finish (docs/deploy.md)."""
        from plainmcp.transports.serve import serve

        serve(
            self,
            transport,
            self.http_app,
            host=host,
            port=port,
            shutdown_deadline=shutdown_deadline,
            **http_options,
        )

    def http_app(self, path: str = "/mcp", **options: Any) -> HttpApp:
        """The Streamable HTTP endpoint as an ASGI app, to serve or mount in Starlette/FastAPI.

        Options: allowed_hosts, allowed_origins, max_body_bytes, session_idle_timeout,
        max_sessions, max_sessions_per_client, session_evict_after, keepalive_interval, auth,
        clock, sessions (docs/http.md).
        """
        from plainmcp.transports.http.app import HttpApp

        # Making the app does not release held stdout (a file may make one for uvicorn and
        # still serve stdio); serving it does (HttpApp, transports/stdout.py).
        return HttpApp(self, path=path, **options)

    def connect(
        self,
        send: Send,
        *,
        push: Callable[[bytes], None] | None = None,
        ask_prefix: str = "plainmcp-",
    ) -> Connection:
        """A new client connection whose replies go to `send` (used by transports)."""
        serve, limit = dispatch.__get__(self.core), self.max_message_bytes  # bound: no extra frame
        conn = Connection(serve, send, limit, push=push, ask_prefix=ask_prefix, on_close=self._gone)
        self._connections.add(conn)
        if self._instruments is not None:
            self._instruments.opened(conn)
        return conn

    def _gone(self, conn: Connection) -> None:
        self._connections.discard(conn)
        if self._instruments is not None:
            self._instruments.closed(conn)

    def dispatch(self, conn: Connection, request: Request) -> Awaitable[dict[str, Any]]:
        """One request to its response message (await it). Never raises for a bad request."""
        return dispatch(self.core, conn, request)

    def context(self, ex: Exchange) -> Context:
        """The Context a function serving `ex` gets."""
        return self.core.context(ex)
