"""Server: the public face of an MCP server: registration, options, capabilities, running.

Transports feed bytes to a `Connection` and give it a `send` function; `dispatch` serves each
request through the method table and the handlers (handlers/), the same for every transport.
"""

from __future__ import annotations

import logging
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import anyio

from plainmcp import notify
from plainmcp.connection import Connection, Send
from plainmcp.context import Context
from plainmcp.continuation import DEFAULT_NAME as DEFAULT_CONTINUATION
from plainmcp.continuation import Follow
from plainmcp.continuation import make as continuation_tool
from plainmcp.dispatch import dispatch
from plainmcp.exchange import Exchange
from plainmcp.lifespan import Lifespan, LifespanError, as_factory, running
from plainmcp.model.blocks import Icon
from plainmcp.model.options import PayloadLimits, ResultOptions, TextFallback
from plainmcp.store import BlobStore, MemoryStore
from plainmcp.tools import Tool, check_name, make_tool
from plainmcp.wire import render
from plainmcp.wire.jsonrpc import Request
from plainmcp.wire.request_state import StateSigner

if TYPE_CHECKING:
    from plainmcp.completion import Completer
    from plainmcp.middleware.base import Middleware, Pipeline
    from plainmcp.prompts import Prompts
    from plainmcp.resources import Resource, Resources, ResourceTemplate
    from plainmcp.telemetry import Telemetry
    from plainmcp.transports.http.app import HttpApp

F = TypeVar("F", bound=Callable[..., Any])


class Server:
    """An MCP server: register tools with `@app.tool`, then `app.run()`."""

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
    ) -> None:
        self.name = name
        self.version = version
        self.title = title
        self.description = description
        self.website_url = website_url
        self.icons = tuple(icons) if icons else None
        self.instructions = instructions
        self.options = options or ResultOptions()
        self.mask_errors = mask_errors
        if page_size < 1:
            raise ValueError("page_size must be at least 1")
        self.page_size = page_size
        self.max_message_bytes = max_message_bytes
        if tool_timeout is not None and tool_timeout <= 0:
            raise ValueError("tool_timeout must be positive or None")
        self.tool_timeout = tool_timeout
        """Seconds any tool may run, unless the tool sets its own timeout."""
        if max_concurrent_tools is not None and max_concurrent_tools < 1:
            raise ValueError("max_concurrent_tools must be at least 1 or None")
        self.max_concurrent_tools = max_concurrent_tools
        """Tool calls beyond this many wait for a running one to finish (None: no bound)."""
        self._tool_slots: anyio.CapacityLimiter | None = None
        self.client_request_timeout = client_request_timeout
        """Seconds to wait for the client to answer elicitation, sampling or roots requests."""
        self.payload_limits = payload_limits or PayloadLimits()
        """What one tool result may carry inline (docs/results.md, "Payload guards")."""
        # Not `blob_store or ...`: a MemoryStore has __len__, so an empty one is falsy.
        self.blob_store: BlobStore = blob_store if blob_store is not None else MemoryStore()
        """Where offloaded payloads wait to be read back through resources/read."""
        self._default_store = self.blob_store if blob_store is None else None
        """The store made here, while it is the one in use (a stdio server replaces it)."""
        self.stdio_cache = stdio_cache
        """Over stdio, with no blob_store nor state secret given, keep both in the server's folder
        of the user's cache, so that a ref outlives the process that gave it out (stdio_cache.py;
        docs/results.md, "Across processes"). False: in this process's memory."""
        self._stdio_cached = False
        if list_ttl_ms < 0 or read_ttl_ms < 0:
            raise ValueError("list_ttl_ms and read_ttl_ms must be >= 0")
        self.hide_unauthorized = hide_unauthorized
        """Lists leave out what the request's principal lacks the scopes to call (docs/
        operations.md, "Auth"); lists then differ per principal, so their cacheScope is
        private."""
        if hide_unauthorized:
            cache_scope = "private"
        self.cache = render.CachePolicy(list_ttl_ms, read_ttl_ms, cache_scope)
        """2026-07-28 freshness hints (ttlMs, cacheScope) on discover, lists and reads."""
        self.state_signer = StateSigner(state_secret, ttl=state_ttl)
        """Signs the requestState of input-required results (2026-07-28), and the refs of the
        continuation. Give every process that serves the same clients one secret (state_secret=
        or PLAINMCP_STATE_SECRET)."""
        self._continuation = None if continuation is None else check_name(continuation)
        """The name of the built-in tool that returns the next part of a cut result
        (docs/results.md, "Reading the rest"); listed and callable while offloading is on."""
        self._continuation_tool: Tool | None = None
        self.describe_parts = describe_parts
        """Tools whose results may be cut in parts get a sentence saying so in their
        description (False: descriptions stay as written)."""
        self.telemetry = telemetry
        """OpenTelemetry spans and metrics (docs/operations.md, "Telemetry"); None: off."""
        self._instruments = None
        if telemetry is not None:
            from plainmcp.telemetry import instrument

            self._instruments = instrument(telemetry)
        self._lifespan = Lifespan(as_factory(lifespan)) if lifespan is not None else None
        """Entered once per process by the transport that starts first (plainmcp.lifespan)."""
        self._pipeline: Pipeline | None = None
        """The middleware, in the order given (None: no middleware, the hot path)."""
        for each in middleware:
            self.add_middleware(each)
        self._tools: dict[str, Tool] = {}
        self._tools_offload = False
        """Some tool's own limits offload (so resources/read serves blobs, whatever the
        server's payload_limits say)."""
        self._tool_pages: dict[tuple[str, bool, int | None, str], list[dict[str, Any]]] = {}
        self._feature_names: dict[tuple[str, bool, bool, bool], frozenset[str]] = {}
        self._server_infos: dict[str, tuple[tuple[Any, ...], Any, dict[str, Any]]] = {}
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self.relay: Callable[[str, str], None] | None = None
        """Set by a transport whose sessions live in many processes: list changes and resource
        updates go through it to every process, each of which calls `fan_out`."""
        self._resources: Resources | None = None
        self._prompts: Prompts | None = None
        self._template_completers: dict[tuple[ResourceTemplate, str], Completer] = {}
        """Explicit completers by (template, variable); keyed by the template object, not its
        URI, so that a template removed and registered again does not keep the old ones."""

    @property
    def resources(self) -> Resources:
        """The resources and templates. Created, and its module imported, on first use: a
        server of tools alone never loads them (start-up time for every session a host
        spawns)."""
        if self._resources is None:
            from plainmcp.resources import Resources

            self._resources = Resources(
                on_change=lambda: self._announce("list_changed", "resources")
            )
        return self._resources

    @property
    def prompts(self) -> Prompts:
        """The prompts; created on first use, as `resources` is."""
        if self._prompts is None:
            from plainmcp.prompts import Prompts

            self._prompts = Prompts(on_change=lambda: self._announce("list_changed", "prompts"))
        return self._prompts

    # --- registration ----------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        icons: Sequence[Icon] | None = None,
        meta: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        input_schema: Mapping[str, Any] | None = None,
        structured: bool | None = None,
        timeout: float | None = None,
        scopes: Sequence[str] | None = None,
        limits: PayloadLimits | None = None,
        text_fallback: TextFallback | None = None,
        examples: Sequence[Mapping[str, Any]] | None = None,
        inline: bool = False,
    ) -> Callable[[F], F]: ...

    def tool(self, fn: Any = None, /, **settings: Any) -> Any:  # type: ignore[misc]
        """Register a function as a tool; works bare (`@app.tool`) or with settings."""
        if fn is not None:
            self.add_tool(fn, **settings)
            return fn

        def register(func: F) -> F:
            self.add_tool(func, **settings)
            return func

        return register

    def add_tool(self, fn: Callable[..., Any], **settings: Any) -> Tool:
        """Register `fn` (same settings as `@app.tool`); returns the definition built."""
        tool = make_tool(fn, **settings)
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        if tool.name == self._continuation:
            raise ValueError(
                f"a tool named {tool.name!r} would hide the built-in continuation of that name;"
                " rename the tool, or give the continuation another name with"
                f" Server(continuation=...) (None turns it off)"
            )
        self._tools[tool.name] = tool
        self._tools_changed()
        return tool

    def remove_tool(self, name: str) -> None:
        del self._tools[name]
        self._tools_changed()

    @property
    def tools(self) -> Mapping[str, Tool]:
        return dict(self._tools)

    @property
    def continuation(self) -> Tool | None:
        """The continuation tool while it is offered (offloading on), else None."""
        if self._continuation is None or not self.payload_limits.offload:
            return None
        built = self._continuation_tool
        if built is None or built.name != self._continuation:
            built = self._continuation_tool = continuation_tool(self, self._continuation)
        return built

    @property
    def follow(self) -> Follow | None:
        """How markers name the continuation (None while it is not offered)."""
        tool = self.continuation
        return None if tool is None else Follow(tool.name, self.state_signer)

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
                self._template_completers[(added, variable)] = completer
        return added

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(
        self,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: Sequence[Icon] | None = None,
        meta: Mapping[str, Any] | None = None,
        complete: Mapping[str, Completer] | None = None,
        scopes: Sequence[str] | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(self, fn: Any = None, /, **settings: Any) -> Any:  # type: ignore[misc]
        """Register a function as a prompt; works bare (`@app.prompt`) or with settings."""
        if fn is not None:
            self.prompts.add(fn, **settings)
            return fn

        def register(func: F) -> F:
            self.prompts.add(func, **settings)
            return func

        return register

    def notify_resource_updated(self, uri: str) -> None:
        """Tell every client subscribed to `uri` that it changed (from any thread, and with
        sessions on Redis, whichever process holds the client's stream)."""
        self._announce("updated", uri)

    def _announce(self, kind: str, subject: str) -> None:
        relay = self.relay
        if relay is not None:
            relay(kind, subject)
        else:
            self.fan_out(kind, subject)

    def fan_out(self, kind: str, subject: str) -> None:
        """Tell this process's clients: `kind` "updated" (`subject` a resource URI) or
        "list_changed" (`subject` a feature: "tools", "prompts", "resources")."""
        if kind == "updated":
            notify.resource_updated(self._connections, subject)
        else:
            notify.list_changed(self._connections, subject)

    def _tools_changed(self) -> None:
        self._tool_pages.clear()
        self._tools_offload = any(t.limits.offload for t in self._tools.values() if t.limits)
        self._announce("list_changed", "tools")

    def add_middleware(self, middleware: Middleware) -> None:
        """Add a middleware inside those already added (the first added runs outermost)."""
        from plainmcp.middleware.base import Pipeline

        given = self._pipeline.middleware if self._pipeline is not None else ()
        self._pipeline = Pipeline((*given, middleware))

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
        if transport == "stdio":
            from plainmcp.transports import stdio

            try:
                stdio.run(self, shutdown_deadline=shutdown_deadline)
            except LifespanError as exc:
                _exit_failed_start(exc)
        elif transport == "http":
            from plainmcp.transports.http.serve import serve_http

            app = self.http_app(shutdown_deadline=shutdown_deadline, **http_options)
            serve_http(app, host=host, port=port)  # uvicorn exits 3
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")

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
        conn = Connection(self, send, push=push, ask_prefix=ask_prefix)
        self._connections.add(conn)
        if self._instruments is not None:
            self._instruments.opened(conn)
        return conn

    async def dispatch(self, conn: Connection, request: Request) -> dict[str, Any]:
        """One request to its response message. Never raises for a bad request."""
        return await dispatch(self, conn, request)

    def context(self, ex: Exchange) -> Context:
        """The Context a function serving `ex` gets."""
        return Context(ex, client_timeout=self.client_request_timeout)


def _exit_failed_start(exc: LifespanError) -> None:
    """A start-up that failed ends the process, before it answered anything: the error with its
    cause's traceback on stderr, exit status 1."""
    logging.getLogger("plainmcp").error("%s", exc, exc_info=exc.__cause__)
    sys.stderr.flush()
    raise SystemExit(1)
