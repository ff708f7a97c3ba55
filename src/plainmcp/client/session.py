"""A small async MCP client with typed results: in-memory, over a stdio subprocess or HTTP.

    async with Client.stdio(sys.executable, "server.py") as client:
        result = await client.call_tool("add", {"a": 2, "b": 3})
        print(result.text)

Results come back as plainmcp content objects (Text, Image, Audio, EmbeddedResource,
ResourceLink), so what a server sends can be compared with what its tools returned.

The Client is the public half of a session: its requests, the revision it speaks, its
callbacks. It sits on a `Core` (core.py: ids, requests in flight, bytes in and out) that the
transports (stdio.py, memory.py, http.py) make and feed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Unpack

import anyio
import anyio.abc

from plainmcp.client import discover, questions
from plainmcp.client.callbacks import Callbacks, input_requests, retry_params
from plainmcp.client.core import Core, Peer, Send
from plainmcp.client.errors import McpError
from plainmcp.client.listen import ACKNOWLEDGED, Listen
from plainmcp.client.memory import in_process
from plainmcp.client.notifications import Listeners, OnProgress
from plainmcp.client.options import (
    DEFAULT_MAX_MESSAGE,
    DEFAULT_TIMEOUT,
    DISCOVER_TIMEOUT,
    ClientOptions,
)
from plainmcp.client.results import (
    CallToolResult,
    ServerInfo,
    ToolCallError,
    ToolInfo,
    parse_call_result,
)
from plainmcp.client.stdio import spawn
from plainmcp.client.stream import ToolCall, stream_call
from plainmcp.client.structured import OutputSchemas
from plainmcp.client.surface import Surface
from plainmcp.client.task_calls import TaskCalls
from plainmcp.client.task_wire import is_task_result
from plainmcp.transports.stdout import release_stdout
from plainmcp.wire import envelope, jsonrpc
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, Notification, Request
from plainmcp.wire.meta import LOG_LEVELS
from plainmcp.wire.param_headers import check_header_markers
from plainmcp.wire.revisions import LATEST_HANDSHAKE, REVISIONS, Revision

if TYPE_CHECKING:
    import httpx2

    from plainmcp.server import Server

log = logging.getLogger("plainmcp.client")

MAX_INPUT_ROUNDS = 16
"""Input-required rounds one request may take before the client gives up on the server."""
_PROGRESS_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
"""Requests that carry a progress token when the client has an `on_progress` callback."""


class Client(Surface, TaskCalls):
    """An MCP client session: `Client.stdio(...)`, `Client.memory(server)` or `Client.http(url)`.

    Every constructor takes the same options (`ClientOptions`): `protocol` ("auto", the
    default, or a revision), the callbacks answering the server's questions (`elicit`,
    `sample`, `roots`) and those hearing its notifications (`on_progress`, `on_log`,
    `on_list_changed`, `on_resource_updated`), `request_timeout` and `max_message_size`.
    """

    def __init__(
        self, send: Send | Core, tasks: anyio.abc.TaskGroup, **options: Unpack[ClientOptions]
    ) -> None:
        """A session over `send` (the bytes' way out; a transport's `Core`, from the
        constructors), its callbacks run in `tasks`; what the server sends is fed to the core."""
        release_stdout()  # a client's program prints to stdout, at once (transports/stdout.py)
        self._core = send if isinstance(send, Core) else Core(send, tasks)
        self._tasks = tasks
        self.server_info = ServerInfo(name="", version="")
        self.capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.discover_result: dict[str, Any] | None = None
        """The server/discover result, when the revision is stateless."""
        protocol = options.get("protocol_version") or options.get("protocol", "auto")
        if protocol != "auto" and protocol not in REVISIONS:
            raise ValueError(
                f"protocol must be 'auto' or one of {', '.join(REVISIONS)}, not {protocol!r}"
            )
        self._protocol = protocol
        self._callbacks = Callbacks(
            options.get("elicit"),
            options.get("sample"),
            options.get("roots"),
            options.get("extensions"),
        )
        self._listeners = Listeners(
            options.get("on_progress"),
            options.get("on_log"),
            options.get("on_list_changed"),
            options.get("on_resource_updated"),
        )
        level = options.get("log_level")
        if level is not None and level not in LOG_LEVELS:
            raise ValueError(f"log_level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
        self._log_level = level
        self._timeout = options.get("request_timeout")
        self._poll_sleep = options.get("poll_sleep", anyio.sleep)
        self._core.sleep = self._poll_sleep
        self._task_support: dict[str, str | None] = {}
        self._core.max_message_size = options.get("max_message_size", DEFAULT_MAX_MESSAGE)
        self._discover_timeout = options.get("discover_timeout", DISCOVER_TIMEOUT)
        self._output_schemas = OutputSchemas(self.list_tools)
        self._listen = Listen(self.request, tasks, self._listeners, self._discover_timeout)
        self._core.attach(Peer(self._start, self._answer, self._notified, self._listeners))
        self._listeners.start(tasks)

    @property
    def revision(self) -> Revision | None:
        """The revision spoken, once the connection is set up."""
        return self._core.revision

    @property
    def protocol_version(self) -> str:
        return self._core.protocol_version

    @property
    def max_message_size(self) -> int:
        """The largest message read from the server (bytes)."""
        return self._core.max_message_size

    async def _start(self) -> None:
        """Choose the revision (discover or initialize), then open what it needs."""
        opening = discover.Opening(self._ask, self.notify, self._opened, self.client_capabilities)
        await discover.negotiate(opening, self._protocol, self._discover_timeout)
        if self.revision is not None and not self.revision.session_notifications:
            error = await self._listen.restart(self.capabilities)
            if error is not None:
                log.warning("no subscriptions/listen stream: %s", error)

    # --- constructors ----------------------------------------------------------------------

    @classmethod
    @contextlib.asynccontextmanager
    async def stdio(
        cls,
        command: str,
        *args: str,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        **options: Unpack[ClientOptions],
    ) -> AsyncIterator[Client]:
        """Spawn `command *args` as a stdio server and connect to it (see `ClientOptions`).

        `env` is added to this process's environment; the server's stderr goes to ours.
        """
        async with spawn(
            command, args, env, cwd, lambda core: cls(core, core.tasks, **options)
        ) as client:
            yield client

    @classmethod
    @contextlib.asynccontextmanager
    async def memory(
        cls, server: Server, *, principal: Any = None, **options: Unpack[ClientOptions]
    ) -> AsyncIterator[Client]:
        """A session with `server` in this process: no subprocess, no serialization shortcuts.

        `principal` is who the session is authenticated as (a `Principal`, as HTTP bearer auth
        gives tools and scope checks); None: nobody, as over stdio. The server's lifespan runs
        for the session (or is shared, when it runs already).
        """
        async with in_process(
            server, principal, lambda core: cls(core, core.tasks, **options)
        ) as client:
            yield client

    @classmethod
    @contextlib.asynccontextmanager
    async def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth: str | httpx2.Auth | None = None,
        listen: bool = True,
        timeout: float = 30.0,
        transport: httpx2.AsyncBaseTransport | None = None,
        **options: Unpack[ClientOptions],
    ) -> AsyncIterator[Client]:
        """A session with the Streamable HTTP endpoint at `url` (needs `plainmcp[client]`).

        `auth`: a bearer token (sent as `Authorization: Bearer ...`) or an httpx2 Auth.
        `listen`: open the GET stream for the server's own messages. `timeout`: seconds to
        connect and send (answers may take as long as they take). `transport`: an httpx2
        transport, e.g. `httpx2.ASGITransport(app.http_app())` to test in-process. Closing
        the client DELETEs the session; a 404 to it later raises SessionExpired. At 2026-07-28
        each request is a stateless POST with its headers (no session, no GET stream).
        """
        from plainmcp.client.http import connect

        async with connect(
            url,
            headers=headers,
            auth=auth,
            listen=listen,
            timeout=timeout,
            transport=transport,
            session=lambda core: cls(core, core.tasks, **options),
        ) as client:
            yield client

    # --- requests --------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_progress: OnProgress | None = None,
    ) -> dict[str, Any]:
        """Send one request and wait for its result; a JSON-RPC error raises McpError.

        `timeout`: seconds to wait for each answer (default: the client's `request_timeout`);
        past it the server is told to cancel and RequestTimeout is raised. `on_progress`:
        this request's progress notifications. An input-required result (2026-07-28) is
        answered by the client's callbacks and the request retried, so the result is final.
        """
        answers: dict[str, Any] = {}
        current = params
        for _ in range(MAX_INPUT_ROUNDS):
            result = await self._exchange(method, current, timeout, on_progress)
            asks = input_requests(self.revision, result)
            if asks is None:
                return result
            assert self.revision is not None
            answers.update(await questions.input_responses(self._callbacks, asks, self.revision))
            current = retry_params(params, answers, result.get("requestState"))
        raise McpError(
            INTERNAL_ERROR,
            f"The server asked for input {MAX_INPUT_ROUNDS} times in one {method}: giving up",
        )

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._core.send(jsonrpc.notification_message(method, params))

    async def ping(self) -> None:
        """Check the server answers: ping, or server/discover in a revision without ping."""
        rev = self.revision
        await self.request("server/discover" if rev and "ping" in rev.removed_methods else "ping")

    async def list_tools(self) -> list[ToolInfo]:
        """Every tool, following `nextCursor` across pages."""
        tools: list[ToolInfo] = await self._every("tools/list")
        rev = self.revision
        if rev is not None and not rev.handshake:
            tools = header_safe(tools)
        self._core.tool_schemas.update({t.name: t.input_schema for t in tools})
        self._task_support.update({t.name: t.task_support for t in tools})
        self._output_schemas.remember(tools)
        return tools

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        on_progress: OnProgress | None = None,
        result_type: Any = None,
        raise_on_error: bool = False,
    ) -> CallToolResult:
        """Call a tool. A failing tool gives `is_error=True` (or raises ToolCallError, with
        `raise_on_error`); protocol faults raise McpError. `data` is the structured value
        checked against the tool's output schema and hydrated (`result_type`: validated into
        that type with pydantic instead); McpError when it does not fit.

        `timeout` and `on_progress` as for `request`; `call_tool_stream` iterates progress."""
        if self._needs_schema(name):  # its x-mcp-header arguments go as headers
            await self.list_tools()
        params = {"name": name, "arguments": dict(arguments or {})}
        raw = await self.request("tools/call", params, timeout=timeout, on_progress=on_progress)
        era = self.task_era()
        if era is not None and is_task_result(era, raw):  # the server chose a task: its result
            return await self._task_handle(era, name, raw, result_type, raise_on_error).result()
        return await self._tool_result(name, raw, result_type, raise_on_error)

    async def _tool_result(
        self, name: str | None, raw: dict[str, Any], result_type: Any, raise_on_error: bool
    ) -> CallToolResult:
        """A tools/call result as call_tool gives it, however it came (a task's too)."""
        result = parse_call_result(raw)
        if result.is_error:
            if raise_on_error:
                raise ToolCallError(name or "", result)
            return result
        if result.structured is None or name is None:
            return result
        data = await self._output_schemas.data(name, result.structured, result_type)
        return dataclasses.replace(result, data=data)

    def call_tool_stream(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> AbstractAsyncContextManager[ToolCall]:
        """A call whose progress is iterated: `async for p in call: ...`, then
        `await call.result()`. Leaving the block before the call ends cancels it."""

        def call(on_progress: OnProgress) -> Awaitable[CallToolResult]:
            return self.call_tool(name, arguments, timeout=timeout, on_progress=on_progress)

        return stream_call(call, self._listeners.queue_call)

    async def set_log_level(self, level: str) -> None:
        """The least severe log message the server should send (`on_log` hears them). At
        2026-07-28 it goes in each request's `_meta`; before, as logging/setLevel."""
        if level not in LOG_LEVELS:
            raise ValueError(f"level must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
        rev = self.revision
        if rev is not None and "logging/setLevel" not in rev.removed_methods:
            await self.request("logging/setLevel", {"level": level})
        self._log_level = level

    async def subscribe(self, uri: str) -> None:
        """Hear `on_resource_updated(uri)` when the resource changes (resources/subscribe; at
        2026-07-28 the subscriptions/listen stream is reopened with the URI)."""
        if self.revision is not None and self.revision.session_notifications:
            await self.request("resources/subscribe", {"uri": uri})
            return
        await self._listen.change(self.capabilities, add=uri)

    async def unsubscribe(self, uri: str) -> None:
        if self.revision is not None and self.revision.session_notifications:
            await self.request("resources/unsubscribe", {"uri": uri})
            return
        await self._listen.change(self.capabilities, remove=uri)

    # --- plumbing --------------------------------------------------------------------------

    def _needs_schema(self, name: str) -> bool:
        """A stateless HTTP call of a tool whose input schema the client has not seen."""
        rev = self.revision
        return (
            self._core.mirrors
            and rev is not None
            and not rev.handshake
            and name not in self._core.tool_schemas
        )

    def client_capabilities(self, rev: Revision) -> dict[str, Any]:
        return self._callbacks.capabilities(rev)

    def _wanted_level(self) -> str | None:
        """The log level a stateless request asks for: the one set, else every message when
        someone listens (as a handshake server sends them all until told otherwise)."""
        if self._log_level is not None:
            return self._log_level
        return "debug" if self._listeners.on_log is not None else None

    def _stamp(self, rev: Revision, params: dict[str, Any] | None) -> dict[str, Any] | None:
        return envelope.stamp(
            params,
            rev,
            capabilities=self._callbacks.capabilities(rev),
            client_info=discover.client_info(),
            log_level=self._wanted_level(),
        )

    async def _exchange(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        on_progress: OnProgress | None,
        *,
        rev: Revision | None = None,
    ) -> dict[str, Any]:
        """One request and its answer. `rev` stamps the request for that revision (the
        discover probe's, before one is chosen); else the client's, once chosen."""
        rev = rev or self.revision
        wire = self._stamp(rev, params) if rev is not None else params
        sinks = [on_progress] if on_progress is not None else []
        token = bool(sinks) or (
            self._listeners.on_progress is not None and method in _PROGRESS_METHODS
        )
        limit = self._timeout if timeout is DEFAULT_TIMEOUT else timeout
        return await self._core.call(method, wire, limit, sinks, token=token)

    async def _ask(
        self, method: str, params: dict[str, Any] | None, rev: Revision | None, timeout: Any
    ) -> dict[str, Any]:
        """A request of the opening (discover.py): stamped for `rev`, else sent as it is."""
        return await self._exchange(method, params, timeout, None, rev=rev)

    def _opened(self, opened: discover.Opened) -> None:
        self._core.revision = rev = opened.revision
        self.server_info = opened.server_info
        self.capabilities = opened.capabilities
        self.instructions = opened.instructions
        if opened.discover_result is not None:
            self.discover_result = opened.discover_result
        if self._log_level is not None and "logging/setLevel" not in rev.removed_methods:
            self._tasks.start_soon(self._set_level_at_start, self._log_level)

    async def _set_level_at_start(self, level: str) -> None:
        with contextlib.suppress(McpError):
            await self.request("logging/setLevel", {"level": level})

    def _receive(self, data: bytes) -> None:
        """One message (or batch) from the server; ProtocolViolation when it is not MCP."""
        self._core.receive(data)

    def _notified(self, note: Notification) -> None:
        if note.method == ACKNOWLEDGED:
            self._listen.acknowledged(note.params)
        self._listeners.deliver(note)

    async def _answer(self, request: Request) -> None:
        """Requests from the server: ping, and those the callbacks answer."""
        rev = self.revision or REVISIONS[LATEST_HANDSHAKE]
        message = await questions.reply(self._callbacks, request, rev)
        with contextlib.suppress(McpError):
            await self._core.send(message)


def header_safe(tools: list[ToolInfo]) -> list[ToolInfo]:
    """The tools whose `x-mcp-header` markers keep the rules (2026-07-28): a client MUST
    exclude the others, since their arguments cannot be mirrored into headers."""
    kept: list[ToolInfo] = []
    for tool in tools:
        try:
            check_header_markers(tool.input_schema)
        except ValueError:
            continue
        kept.append(tool)
    return kept
