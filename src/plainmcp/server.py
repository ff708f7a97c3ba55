"""Server: the tool registry, and the dispatcher that turns one message into its replies.

Transports feed bytes to a `Connection` and give it a `send` function; everything between
parsing and rendering happens here, the same for every transport.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

import anyio
import anyio.abc
import anyio.from_thread
import anyio.lowlevel

from plainmcp.content import Icon
from plainmcp.options import ResultOptions
from plainmcp.tools import Tool, call_tool, make_tool
from plainmcp.wire import jsonrpc, render
from plainmcp.wire.cursor import page
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    Invalid,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from plainmcp.wire.revisions import Revision, negotiate

log = logging.getLogger("plainmcp")

F = TypeVar("F", bound=Callable[..., Any])
Send = Callable[[bytes], Coroutine[Any, Any, None]]
Handler = Callable[["Connection", dict[str, Any]], Awaitable[dict[str, Any]]]


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
        self._tools: dict[str, Tool] = {}
        self._tool_pages: dict[str, list[dict[str, Any]]] = {}
        self._connections: weakref.WeakSet[Connection] = weakref.WeakSet()
        self._methods: dict[str, Handler] = {
            "initialize": self._initialize,
            "ping": self._ping,
            "tools/list": self._list_tools,
            "tools/call": self._call_tool,
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
        structured: bool | None = None,
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

    def _tools_changed(self) -> None:
        self._tool_pages.clear()
        for conn in list(self._connections):
            if conn.revision is not None:
                conn.post(jsonrpc.notification_message("notifications/tools/list_changed"))

    # --- running ---------------------------------------------------------------------------

    def run(self, transport: Literal["stdio"] = "stdio") -> None:
        """Serve until the client goes away (stdio: until stdin closes)."""
        if transport != "stdio":
            raise ValueError(f"unknown transport {transport!r}")
        from plainmcp.transports import stdio

        stdio.run(self)

    def connect(self, send: Send) -> Connection:
        """A new client connection whose replies go to `send` (used by transports)."""
        conn = Connection(self, send)
        self._connections.add(conn)
        return conn

    # --- methods ---------------------------------------------------------------------------

    async def dispatch(self, conn: Connection, request: Request) -> dict[str, Any]:
        """One request to its response message. Never raises for a bad request."""
        handler = self._methods.get(request.method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            if conn.revision is None and request.method not in ("initialize", "ping"):
                raise RpcError(
                    INVALID_PARAMS,
                    f"Server not initialized: send initialize before {request.method}",
                )
            result = await handler(conn, request.params)
        except RpcError as exc:
            return jsonrpc.error_message(request.id, exc)
        except Exception:
            log.exception("internal error serving %s", request.method)
            return jsonrpc.error_message(request.id, RpcError(INTERNAL_ERROR, "Internal error"))
        return jsonrpc.result_message(request.id, result)

    async def _initialize(self, conn: Connection, params: dict[str, Any]) -> dict[str, Any]:
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
        result: dict[str, Any] = {
            "protocolVersion": rev.version,
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": self.server_info(rev),
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def server_info(self, rev: Revision) -> dict[str, Any]:
        fields = {
            "name": self.name,
            "version": self.version,
            "title": self.title,
            "description": self.description,
            "websiteUrl": self.website_url,
        }
        return render.server_info(fields, self.icons, rev)

    async def _ping(self, conn: Connection, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    def _tool_list(self, rev: Revision) -> list[dict[str, Any]]:
        page = self._tool_pages.get(rev.version)
        if page is None:
            page = [render.tool(t, rev, self.options) for t in self._tools.values()]
            self._tool_pages[rev.version] = page
        return page

    async def _list_tools(self, conn: Connection, params: dict[str, Any]) -> dict[str, Any]:
        assert conn.revision is not None
        tools, next_cursor = page(
            self._tool_list(conn.revision), params.get("cursor"), self.page_size
        )
        result: dict[str, Any] = {"tools": list(tools)}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    async def _call_tool(self, conn: Connection, params: dict[str, Any]) -> dict[str, Any]:
        assert conn.revision is not None
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
        outcome = await call_tool(tool, arguments, self.options, mask_errors=self.mask_errors)
        return render.call_result(outcome, conn.revision, self.options, tool.output_schema)


def _start_soon(tasks: anyio.abc.TaskGroup, send: Send, data: bytes) -> None:
    tasks.start_soon(send, data)


class Connection:
    """One client session over one transport: its revision, and the requests in flight."""

    def __init__(self, server: Server, send: Send) -> None:
        self.server = server
        self.send = send
        self.revision: Revision | None = None
        self.client_info: dict[str, Any] = {}
        self.client_capabilities: dict[str, Any] = {}
        self.initialized = False
        self._running: dict[RequestId, anyio.CancelScope] = {}
        self._active = 0
        self._tasks: anyio.abc.TaskGroup | None = None
        self._token: anyio.lowlevel.EventLoopToken | None = None
        self._loop_thread: int | None = None

    def bind(self, tasks: anyio.abc.TaskGroup) -> None:
        """Attach the task group that runs this connection's requests."""
        self._tasks = tasks
        self._token = anyio.lowlevel.current_token()
        self._loop_thread = threading.get_ident()

    def close(self) -> None:
        """The transport is done: forget this connection so nothing more is posted to it."""
        self._tasks = None
        self.server._connections.discard(self)

    def post(self, message: dict[str, Any]) -> None:
        """Send a server-initiated message from any thread, without waiting."""
        tasks = self._tasks
        if tasks is None:
            return
        data = jsonrpc.encode(message)
        if threading.get_ident() == self._loop_thread:
            tasks.start_soon(self.send, data)
        else:
            anyio.from_thread.run_sync(_start_soon, tasks, self.send, data, token=self._token)

    async def receive(self, data: bytes) -> None:
        """Handle one line of input; requests run as tasks in the bound task group."""
        assert self._tasks is not None, "bind() first"
        if len(data) > self.server.max_message_bytes:
            await self._reply_error(
                None,
                RpcError(
                    INVALID_REQUEST,
                    "Invalid Request: message exceeds the limit of"
                    f" {self.server.max_message_bytes} bytes",
                ),
            )
            return
        parsed = jsonrpc.parse(data)
        if isinstance(parsed, list):
            self._active += 1
            self._tasks.start_soon(self._batch, parsed)
            return
        await self._one(parsed)

    def _error(self, request_id: RequestId | None, error: RpcError) -> dict[str, Any] | None:
        """The error response to send, or None when the revision cannot express it.

        Revisions before 2025-11-25 require an id on every response, so an error for a message
        whose id is unknown (unparseable, invalid id) is logged instead of sent. Before
        `initialize` the client's revision is unknown and the error is sent without an id, the
        form of our latest revision (useful to someone typing at the server by hand).
        """
        rev = self.revision
        if request_id is None and rev is not None and not rev.error_without_id:
            log.warning(
                "not answering an unidentifiable message (%s has no error without an id): %s",
                rev.version,
                error.message,
            )
            return None
        return jsonrpc.error_message(request_id, error)

    async def _reply_error(self, request_id: RequestId | None, error: RpcError) -> None:
        message = self._error(request_id, error)
        if message is not None:
            await self.send(jsonrpc.encode(message))

    async def _one(self, message: Message) -> None:
        assert self._tasks is not None
        if isinstance(message, Request):
            if message.id in self._running:
                await self._reply_error(
                    message.id,
                    RpcError(INVALID_REQUEST, f"Invalid Request: id {message.id!r} is in use"),
                )
                return
            scope = anyio.CancelScope()
            self._running[message.id] = scope
            self._active += 1
            self._tasks.start_soon(self._serve, message, scope)
        elif isinstance(message, Notification):
            self._notified(message)
        elif isinstance(message, Invalid):
            if message.reply:
                await self._reply_error(message.id, message.error)
            else:
                log.warning("dropped a malformed notification: %s", message.error.message)
        elif isinstance(message, Response):
            log.warning("ignored a response to unknown request %r", message.id)

    @property
    def busy(self) -> bool:
        """Requests are still running or their replies are still being written."""
        return self._active > 0

    async def _serve(self, request: Request, scope: anyio.CancelScope) -> None:
        try:
            try:
                with scope:
                    reply = await self.server.dispatch(self, request)
            finally:
                self._running.pop(request.id, None)
            if not scope.cancelled_caught:
                await self.send(jsonrpc.encode(reply))
        finally:
            self._active -= 1

    def _notified(self, message: Notification) -> None:
        if message.method == "notifications/initialized":
            self.initialized = True
        elif message.method == "notifications/cancelled":
            request_id = message.params.get("requestId")
            scope = self._running.get(request_id) if isinstance(request_id, int | str) else None
            if scope is not None:
                scope.cancel()

    async def _batch(self, messages: list[Message]) -> None:
        try:
            await self._serve_batch(messages)
        finally:
            self._active -= 1

    async def _serve_batch(self, messages: list[Message]) -> None:
        rev = self.revision
        if rev is None or not rev.batches:
            # Not a batch response (the revision has none): each request that can be identified
            # gets its own error; the notifications in it are not acted on.
            version = rev.version if rev else "none negotiated"
            refusal = RpcError(
                INVALID_REQUEST,
                f"Invalid Request: JSON-RPC batches are only part of revision 2025-03-26"
                f" (this session: {version})",
            )
            ids = [m.id for m in messages if isinstance(m, Request | Invalid) and m.id is not None]
            for request_id in ids:
                await self._reply_error(request_id, refusal)
            if not ids:
                await self._reply_error(None, refusal)
            return
        replies: list[dict[str, Any]] = []

        async def serve(request: Request) -> None:
            scope = anyio.CancelScope()
            self._running[request.id] = scope
            try:
                with scope:
                    replies.append(await self.server.dispatch(self, request))
            finally:
                self._running.pop(request.id, None)

        async with anyio.create_task_group() as group:
            for message in messages:
                if isinstance(message, Request):
                    if message.method == "initialize":
                        replies.append(
                            jsonrpc.error_message(
                                message.id,
                                RpcError(INVALID_REQUEST, "initialize must not be batched"),
                            )
                        )
                    else:
                        group.start_soon(serve, message)
                elif isinstance(message, Notification):
                    self._notified(message)
                elif isinstance(message, Invalid) and message.reply:
                    error = self._error(message.id, message.error)
                    if error is not None:
                        replies.append(error)
        if replies:
            await self.send(jsonrpc.encode(replies))
