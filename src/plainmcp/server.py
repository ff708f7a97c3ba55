"""Server: the tool registry, and the dispatcher that turns one message into its replies.

Transports feed bytes to a `Connection` and give it a `send` function; everything between
parsing and rendering happens here, the same for every transport.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import anyio

from plainmcp import completion, mime
from plainmcp.completion import Completer
from plainmcp.connection import Connection, Send
from plainmcp.content import Icon
from plainmcp.context import (
    ClientCapabilityError,
    Context,
    InputRequired,
)
from plainmcp.exchange import Exchange
from plainmcp.guards import blob_key, fits, guard, read_blob
from plainmcp.invoke import FunctionSpec
from plainmcp.options import PayloadLimits, ResultOptions
from plainmcp.prompts import Prompts
from plainmcp.resources import (
    Contents,
    Resource,
    ResourceNotFound,
    Resources,
    ResourceTemplate,
    template_variables,
)
from plainmcp.store import BlobStore, MemoryStore
from plainmcp.tools import Tool, call_tool, make_tool
from plainmcp.wire import jsonrpc, render
from plainmcp.wire.cursor import page
from plainmcp.wire.envelope import stateless_revision
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Request,
    RpcError,
)
from plainmcp.wire.meta import (
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    LOG_LEVEL,
    LOG_LEVELS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PROTOCOL_VERSION,
    SUBSCRIPTION_ID,
)
from plainmcp.wire.request_state import StateError, StateSigner
from plainmcp.wire.revisions import REVISIONS, Revision, negotiate

if TYPE_CHECKING:
    from plainmcp.transports.http.app import HttpApp

log = logging.getLogger("plainmcp")

F = TypeVar("F", bound=Callable[..., Any])
Handler = Callable[[Exchange], Awaitable[dict[str, Any]]]


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
        if list_ttl_ms < 0 or read_ttl_ms < 0:
            raise ValueError("list_ttl_ms and read_ttl_ms must be >= 0")
        self.cache = render.CachePolicy(list_ttl_ms, read_ttl_ms, cache_scope)
        """2026-07-28 freshness hints (ttlMs, cacheScope) on discover, lists and reads."""
        self.state_signer = StateSigner(state_secret, ttl=state_ttl)
        """Signs the requestState of input-required results (2026-07-28). Give every process
        that serves the same clients one secret (state_secret= or PLAINMCP_STATE_SECRET)."""
        self._tools: dict[str, Tool] = {}
        self._tool_pages: dict[str, list[dict[str, Any]]] = {}
        self._feature_names: dict[tuple[str, bool, bool, bool], frozenset[str]] = {}
        self._server_infos: dict[str, tuple[tuple[Any, ...], Any, dict[str, Any]]] = {}
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self.resources = Resources(
            on_change=lambda: self._broadcast("notifications/resources/list_changed", "resources")
        )
        self.prompts = Prompts(
            on_change=lambda: self._broadcast("notifications/prompts/list_changed", "prompts")
        )
        self._template_completers: dict[tuple[ResourceTemplate, str], Completer] = {}
        """Explicit completers by (template, variable); keyed by the template object, not its
        URI, so that a template removed and registered again does not keep the old ones."""
        self._methods: dict[str, Handler] = {
            "initialize": self._initialize,
            "server/discover": self._discover,
            "ping": self._ping,
            "logging/setLevel": self._set_log_level,
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
            "resources/list": self._list_resources,
            "resources/templates/list": self._list_templates,
            "resources/read": self._read_resource,
            "resources/subscribe": self._subscribe,
            "resources/unsubscribe": self._unsubscribe,
            "prompts/list": self._list_prompts,
            "prompts/get": self._get_prompt,
            "completion/complete": self._complete,
            "subscriptions/listen": self._listen,
        }

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
        self._tools[tool.name] = tool
        self._tools_changed()
        return tool

    def remove_tool(self, name: str) -> None:
        del self._tools[name]
        self._tools_changed()

    @property
    def tools(self) -> Mapping[str, Tool]:
        return dict(self._tools)

    def resource(self, uri: str, **settings: Any) -> Callable[[F], F]:
        """Register a function as the resource at `uri`; `{name}` in it makes a template.

        `complete={"name": completer}` supplies completions for template variables (Literal
        and Enum parameters complete on their own).
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
        variables = set(template_variables(uri)) if complete else set()
        for variable in complete or {}:
            if variable not in variables:
                raise ValueError(f"{uri!r} has no template variable {variable!r} to complete")
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
        """Tell every client subscribed to `uri` that it changed (from any thread)."""
        method = "notifications/resources/updated"
        for conn in list(self._connections):
            if uri in conn.subscriptions:
                conn.post(jsonrpc.notification_message(method, {"uri": uri}))
            for listen_id, honoured in list(conn.listens.items()):
                if uri in honoured.get("resourceSubscriptions", ()):
                    conn.post(jsonrpc.notification_message(method, _tagged(listen_id, uri=uri)))

    def _tools_changed(self) -> None:
        self._tool_pages.clear()
        self._broadcast("notifications/tools/list_changed", "tools")

    def _broadcast(self, method: str, feature: str) -> None:
        """Send `method` to every session that was offered `feature` (and so its listChanged),
        and to every subscriptions/listen stream that asked for it."""
        flag = _LISTEN_FLAG[feature]
        for conn in list(self._connections):
            if conn.revision is not None and feature in conn.features:
                conn.post(jsonrpc.notification_message(method))
            for listen_id, honoured in list(conn.listens.items()):
                if honoured.get(flag):
                    conn.post(jsonrpc.notification_message(method, _tagged(listen_id)))

    # --- running ---------------------------------------------------------------------------

    def run(
        self,
        transport: Literal["stdio", "http"] = "stdio",
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        **http_options: Any,
    ) -> None:
        """Serve until the client goes away (stdio: until stdin closes), or serve Streamable
        HTTP on host:port with uvicorn (`pip install plainmcp[http]`) until interrupted."""
        if transport == "stdio":
            from plainmcp.transports import stdio

            stdio.run(self)
        elif transport == "http":
            from plainmcp.transports.http.serve import serve_http

            serve_http(self.http_app(**http_options), host=host, port=port)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")

    def http_app(self, path: str = "/mcp", **options: Any) -> HttpApp:
        """The Streamable HTTP endpoint as an ASGI app, to serve or mount in Starlette/FastAPI.

        Options: allowed_hosts, allowed_origins, max_body_bytes, session_idle_timeout,
        max_sessions, keepalive_interval, auth, clock (docs/http.md).
        """
        from plainmcp.transports.http.app import HttpApp
        from plainmcp.transports.stdout import release_stdout

        release_stdout()  # stdout is not the protocol stream of an HTTP server
        return HttpApp(self, path=path, **options)

    def connect(self, send: Send, *, push: Callable[[bytes], None] | None = None) -> Connection:
        """A new client connection whose replies go to `send` (used by transports)."""
        conn = Connection(self, send, push=push)
        self._connections.add(conn)
        return conn

    # --- methods ---------------------------------------------------------------------------

    async def dispatch(self, conn: Connection, request: Request) -> dict[str, Any]:
        """One request to its response message. Never raises for a bad request."""
        handler = self._methods.get(request.method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            _check_meta(request.params)
            ex = self._exchange(conn, request)
            needed = _CAPABILITY_OF.get(request.method)
            if needed is not None and needed not in ex.features:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            try:
                result = await handler(ex)
            except InputRequired as needed_input:
                result = self._input_required(ex, needed_input)
            except ClientCapabilityError as missing:
                if missing.required is None:
                    raise
                raise RpcError(
                    MISSING_REQUIRED_CLIENT_CAPABILITY,
                    str(missing),
                    {"requiredCapabilities": dict(missing.required)},
                ) from None
            if ex.revision.result_type:
                result = render.finish_result(
                    result, request.method, ex.revision, self.server_info(ex.revision), self.cache
                )
        except RpcError as exc:
            return jsonrpc.error_message(request.id, exc)
        except Exception:
            log.exception("internal error serving %s", request.method)
            return jsonrpc.error_message(request.id, RpcError(INTERNAL_ERROR, "Internal error"))
        return jsonrpc.result_message(request.id, result)

    def _exchange(self, conn: Connection, request: Request) -> Exchange:
        """The revision and client a request is served for: its own `_meta` (2026-07-28), else
        its session's."""
        meta = request.params.get("_meta")
        if isinstance(meta, dict) and PROTOCOL_VERSION in meta:
            return self._stateless_exchange(conn, request, meta)
        if request.method == "server/discover":
            raise RpcError(INVALID_PARAMS, f"Invalid params: _meta must carry {PROTOCOL_VERSION}")
        rev = conn.revision
        if rev is None:
            if request.method not in ("initialize", "ping"):
                raise RpcError(
                    INVALID_PARAMS,
                    f"Server not initialized: send initialize before {request.method}",
                )
            rev = negotiate(request.params.get("protocolVersion"))
        return Exchange(
            conn=conn,
            request=request,
            revision=rev,
            client_info=conn.client_info,
            client_capabilities=conn.client_capabilities,
            features=conn.features,
            principal=conn.principal,
        )

    def _stateless_exchange(
        self, conn: Connection, request: Request, meta: dict[str, Any]
    ) -> Exchange:
        rev = stateless_revision(request.method, request.params)
        client_info = meta.get(CLIENT_INFO)
        level = meta.get(LOG_LEVEL)
        return Exchange(
            conn=conn,
            request=request,
            revision=rev,
            client_info=client_info if isinstance(client_info, dict) else {},
            client_capabilities=meta[CLIENT_CAPABILITIES],
            features=self._features(rev),
            stateless=True,
            request_log_level=level,
            answers=self._answers(request, conn.principal),
            principal=conn.principal,
        )

    def _answers(self, request: Request, principal: Any) -> dict[str, Any]:
        """The answers a retry carries: those signed into requestState, plus this round's
        inputResponses for the keys that state asked (others are ignored, as the spec says).
        Without a state, inputResponses are taken as given."""
        token = request.params.get("requestState")
        if request.method not in _TARGET_OF:
            return {}
        if token is None:
            # Answers given up front (no round trip yet): the client's own answers, so as good as
            # answers to a question; the function reads the keys it asks, others are ignored.
            given = request.params.get("inputResponses")
            return dict(given) if isinstance(given, dict) else {}
        target, arguments = _target(request)
        try:
            state = self.state_signer.verify(
                token,
                method=request.method,
                target=target,
                arguments=arguments,
                principal=_subject(principal),
            )
        except StateError as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from None
        given = request.params.get("inputResponses")
        fresh = given if isinstance(given, dict) else {}
        return {**state.answers, **{k: v for k, v in fresh.items() if k in state.asked}}

    def _input_required(self, ex: Exchange, needed: InputRequired) -> dict[str, Any]:
        if ex.request.method not in _TARGET_OF:
            raise RpcError(
                INVALID_PARAMS, f"{ex.request.method} cannot ask the client for input"
            ) from None
        target, arguments = _target(ex.request)
        token = self.state_signer.issue(
            method=ex.request.method,
            target=target,
            arguments=arguments,
            answers=dict(ex.answers),
            principal=_subject(ex.principal),
            asked=tuple(needed.requests),
        )
        return {
            "resultType": "input_required",
            "inputRequests": needed.requests,
            "requestState": token,
        }

    async def _discover(self, ex: Exchange) -> dict[str, Any]:
        result: dict[str, Any] = {
            "supportedVersions": list(reversed(REVISIONS)),
            "capabilities": self.capabilities(ex.revision),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    async def _initialize(self, ex: Exchange) -> dict[str, Any]:
        conn, params = ex.conn, ex.params
        if conn.revision is not None:
            raise RpcError(INVALID_REQUEST, "Already initialized")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: protocolVersion must be a string")
        capabilities = params.get("capabilities", {})
        client_info = params.get("clientInfo", {})
        if not isinstance(capabilities, dict) or not isinstance(client_info, dict):
            raise RpcError(
                INVALID_PARAMS, "Invalid params: capabilities and clientInfo must be objects"
            )
        rev = negotiate(requested)
        conn.revision = rev
        conn.client_capabilities = capabilities
        conn.client_info = client_info
        offered = self.capabilities(rev)
        features = set(offered)
        if not rev.completions_capability and (len(self.prompts) or self.resources.templates):
            # 2024-11-05 has completion/complete but no capability to announce it.
            features.add("completions")
        conn.features = frozenset(features)
        result: dict[str, Any] = {
            "protocolVersion": rev.version,
            "capabilities": offered,
            "serverInfo": self.server_info(rev),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def server_info(self, rev: Revision) -> dict[str, Any]:
        """The server's identity for `rev`; built once (2026-07-28 puts it in every result),
        and again when an attribute it comes from is changed. Treat the dict as read-only."""
        fields = (self.name, self.version, self.title, self.description, self.website_url)
        cached = self._server_infos.get(rev.version)
        if cached is not None and cached[0] == fields and cached[1] is self.icons:
            return cached[2]
        keys = ("name", "version", "title", "description", "websiteUrl")
        info = render.server_info(dict(zip(keys, fields, strict=True)), self.icons, rev)
        self._server_infos[rev.version] = (fields, self.icons, info)
        return info

    def capabilities(self, rev: Revision) -> dict[str, Any]:
        """What this server offers, as initialize announces it."""
        # Changes reach a handshake session directly, a 2026-07-28 client through
        # subscriptions/listen; either way they are announced.
        resources, prompts, templates = self._offer_inputs()
        offered: dict[str, Any] = {"logging": {}, "tools": {"listChanged": True}}
        if resources:
            # Offloaded payloads are read back through resources/read.
            offered["resources"] = {"subscribe": True, "listChanged": True}
        if prompts:
            offered["prompts"] = {"listChanged": True}
        if rev.completions_capability and (prompts or templates):
            offered["completions"] = {}
        return offered

    def _offer_inputs(self) -> tuple[bool, bool, bool]:
        """Everything besides the revision that decides `capabilities`."""
        return (
            bool(len(self.resources)) or self.payload_limits.offload,
            bool(len(self.prompts)),
            self.resources.has_templates,
        )

    def _features(self, rev: Revision) -> frozenset[str]:
        """The names `capabilities(rev)` offers, for a stateless request (each needs them)."""
        key = (rev.version, *self._offer_inputs())
        names = self._feature_names.get(key)
        if names is None:
            names = self._feature_names[key] = frozenset(self.capabilities(rev))
        return names

    async def _ping(self, ex: Exchange) -> dict[str, Any]:
        return {}

    async def _set_log_level(self, ex: Exchange) -> dict[str, Any]:
        level = ex.params.get("level")
        if level not in LOG_LEVELS:
            raise RpcError(
                INVALID_PARAMS,
                f"Invalid params: level must be one of {', '.join(LOG_LEVELS)}",
            )
        ex.conn.log_level = level
        return {}

    def _tool_list(self, rev: Revision) -> list[dict[str, Any]]:
        page = self._tool_pages.get(rev.version)
        if page is None:
            page = [render.tool(t, rev, self.options) for t in self._tools.values()]
            self._tool_pages[rev.version] = page
        return page

    async def _list_tools(self, ex: Exchange) -> dict[str, Any]:
        cursor = ex.params.get("cursor")
        tools, next_cursor = page(self._tool_list(ex.revision), cursor, self.page_size)
        return render.listing("tools", list(tools), next_cursor)

    async def _call_tool(self, ex: Exchange) -> dict[str, Any]:
        params = ex.params
        name = params.get("name")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: name must be a string")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        tool = self._tools.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
        context = self.context(ex) if tool.spec.context_params else None
        call = functools.partial(
            call_tool,
            tool,
            arguments,
            self.options,
            mask_errors=self.mask_errors,
            context=context,
            timeout=self.tool_timeout,
        )
        if self.max_concurrent_tools is None:
            outcome = await call()
        else:
            async with self._slots():
                outcome = await call()
        if not fits(outcome, self.payload_limits):
            outcome = await guard(
                outcome,
                self.payload_limits,
                self.blob_store,
                structured_required=tool.output_schema is not None,
            )
        return render.call_result(outcome, ex.revision, self.options, tool.output_schema)

    def context(self, ex: Exchange) -> Context:
        """The Context a function serving `ex` gets."""
        return Context(ex, client_timeout=self.client_request_timeout)

    def _slots(self) -> anyio.CapacityLimiter:
        assert self.max_concurrent_tools is not None
        if self._tool_slots is None:
            self._tool_slots = anyio.CapacityLimiter(self.max_concurrent_tools)
        return self._tool_slots

    # --- resources ---------------------------------------------------------------------------

    async def _list_resources(self, ex: Exchange) -> dict[str, Any]:
        items, next_cursor = self.resources.page(ex.params.get("cursor"), self.page_size)
        rendered = [render.resource(r, ex.revision) for r in items]
        return render.listing("resources", rendered, next_cursor)

    async def _list_templates(self, ex: Exchange) -> dict[str, Any]:
        cursor = ex.params.get("cursor")
        items, next_cursor = self.resources.template_page(cursor, self.page_size)
        rendered = [render.resource_template(t, ex.revision) for t in items]
        return render.listing("resourceTemplates", rendered, next_cursor)

    async def _read_resource(self, ex: Exchange) -> dict[str, Any]:
        uri = _uri_param(ex.params)
        if blob_key(uri) is not None:
            found = await read_blob(uri, self.blob_store)
            if found is None:
                raise render.resource_not_found(uri, ex.revision)
            data, mime_type = found
            item = (
                Contents(uri, text=data.decode("utf-8"), mime_type=mime_type)
                if mime.is_text(mime_type)
                else Contents(uri, blob=data, mime_type=mime_type)
            )
            return render.read_result([item], ex.revision)
        inject = self._inject(ex, self._resource_spec(uri))
        try:
            items = await self.resources.read(uri, inject=inject, options=self.options)
        except ResourceNotFound as exc:
            raise render.resource_not_found(exc.uri, ex.revision) from None
        return render.read_result(items, ex.revision)

    def _resource_spec(self, uri: str) -> FunctionSpec | None:
        found = self.resources.match(uri)
        return found[0].spec if found is not None else None

    async def _subscribe(self, ex: Exchange) -> dict[str, Any]:
        uri = _uri_param(ex.params)
        if not self.resources.exists(uri):
            raise render.resource_not_found(uri, ex.revision)
        ex.conn.subscriptions.add(uri)
        return {}

    async def _unsubscribe(self, ex: Exchange) -> dict[str, Any]:
        ex.conn.subscriptions.discard(_uri_param(ex.params))
        return {}

    async def _listen(self, ex: Exchange) -> dict[str, Any]:
        """A stream of the notifications the client opted in to (2026-07-28), until it cancels
        or the transport ends it."""
        if not ex.stateless:
            raise RpcError(METHOD_NOT_FOUND, "Method not found: subscriptions/listen")
        wanted = ex.params.get("notifications")
        if not isinstance(wanted, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: notifications must be an object")
        honoured: dict[str, Any] = {}
        for flag, feature in _LISTEN_FEATURE.items():
            if wanted.get(flag) is True and feature in ex.features:
                honoured[flag] = True
        uris = wanted.get("resourceSubscriptions")
        if uris is not None:
            if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
                raise RpcError(
                    INVALID_PARAMS, "Invalid params: resourceSubscriptions must be a list of URIs"
                )
            known = [u for u in uris if self.resources.exists(u)]
            if known:
                honoured["resourceSubscriptions"] = known
        listen_id = ex.request.id
        await ex.conn.notify(
            "notifications/subscriptions/acknowledged",
            {**_tagged(listen_id), "notifications": honoured},
            related_to=listen_id,
        )
        ex.conn.listens[listen_id] = honoured
        try:
            await ex.conn.closing.wait()
        finally:
            ex.conn.listens.pop(listen_id, None)
        return {"_meta": {SUBSCRIPTION_ID: listen_id}}

    # --- prompts and completion ------------------------------------------------------------

    async def _list_prompts(self, ex: Exchange) -> dict[str, Any]:
        items, next_cursor = self.prompts.page(ex.params.get("cursor"), self.page_size)
        rendered = [render.prompt(p, ex.revision) for p in items]
        return render.listing("prompts", rendered, next_cursor)

    async def _get_prompt(self, ex: Exchange) -> dict[str, Any]:
        name = ex.params.get("name")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: name must be a string")
        spec = self.prompts[name].spec if name in self.prompts else None
        got = await self.prompts.get(
            name,
            ex.params.get("arguments"),
            inject=self._inject(ex, spec),
            mask_errors=self.mask_errors,
        )
        return render.get_prompt_result(got, ex.revision, self.options)

    async def _complete(self, ex: Exchange) -> dict[str, Any]:
        asked = completion.read_request(ex.params)
        if asked.ref_type == "ref/prompt":
            completer = self.prompts.completer(asked.ref, asked.argument)
            label = f"completion of prompt '{asked.ref}' argument '{asked.argument}'"
        else:
            template = next(
                (t for t in self.resources.templates if t.uri_template == asked.ref), None
            )
            if template is None:
                raise RpcError(INVALID_PARAMS, f"Unknown resource template: {asked.ref}")
            if asked.argument not in template.variables:
                raise RpcError(
                    INVALID_PARAMS,
                    f"Resource template '{asked.ref}' has no variable '{asked.argument}'",
                )
            explicit = self._template_completers.get((template, asked.argument))
            completer = completion.completer_for(template.fn, asked.argument, explicit)
            label = f"completion of '{asked.ref}' variable '{asked.argument}'"
        found = await completion.complete(completer, asked.value, asked.context, label=label)
        return render.completion_result(found, ex.revision)

    def _inject(self, ex: Exchange, spec: FunctionSpec | None) -> dict[str, Any]:
        """The Context for each Context parameter of `spec` (none when it takes none)."""
        names = spec.context_params if spec is not None else ()
        if not names:
            return {}
        ctx = self.context(ex)
        return dict.fromkeys(names, ctx)


_LISTEN_FEATURE = {
    "toolsListChanged": "tools",
    "promptsListChanged": "prompts",
    "resourcesListChanged": "resources",
}
_LISTEN_FLAG = {feature: flag for flag, feature in _LISTEN_FEATURE.items()}


def _tagged(listen_id: Any, **params: Any) -> dict[str, Any]:
    """Notification params that name the subscriptions/listen stream they belong to."""
    return {**params, "_meta": {SUBSCRIPTION_ID: listen_id}}


_TARGET_OF = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
"""The methods that may answer with an input-required result, and the param naming their target."""


def _target(request: Request) -> tuple[str, Any]:
    """What a request is about (tool, prompt or resource) and its arguments, which a
    requestState is bound to."""
    target = request.params.get(_TARGET_OF[request.method])
    arguments = None if request.method == "resources/read" else request.params.get("arguments")
    return str(target), arguments


_CAPABILITY_OF = {
    "resources/list": "resources",
    "resources/templates/list": "resources",
    "resources/read": "resources",
    "resources/subscribe": "resources",
    "resources/unsubscribe": "resources",
    "prompts/list": "prompts",
    "prompts/get": "prompts",
    "completion/complete": "completions",
}
"""Methods a session is answered only when initialize offered it the capability (else -32601).

What initialize offered holds for the whole session: a prompts/list after the last prompt is
removed is an empty list, and a prompt added later does not open prompts/* to a session that was
not offered them (its client never asked and was never told)."""


def _subject(principal: Any) -> str | None:
    """Who a requestState is bound to: the authenticated subject (HTTP bearer auth), as a
    session is; None where the transport authenticates nobody (stdio)."""
    subject = getattr(principal, "subject", None)
    return subject if isinstance(subject, str) else None


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


def _uri_param(params: dict[str, Any]) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str):
        raise RpcError(INVALID_PARAMS, "Invalid params: uri must be a string")
    return uri
