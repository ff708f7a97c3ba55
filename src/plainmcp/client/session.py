"""A small async MCP client with typed results: in-memory, over a stdio subprocess or HTTP.

    async with Client.stdio(sys.executable, "server.py") as client:
        result = await client.call_tool("add", {"a": 2, "b": 3})
        print(result.text)

Results come back as plainmcp content objects (Text, Image, Audio, EmbeddedResource,
ResourceLink), so what a server sends can be compared with what its tools returned.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, overload

import anyio
import anyio.abc

from plainmcp.client.errors import ConnectionClosed, McpError, ToolCallError, bad_reply
from plainmcp.client.results import (
    CallToolResult,
    Completion,
    Page,
    PromptInfo,
    ReadResourceResult,
    ResourceInfo,
    ResourceTemplateInfo,
    ServerInfo,
    ToolInfo,
    parse_call_result,
    parse_completion,
    parse_prompt,
    parse_prompt_result,
    parse_read_result,
    parse_resource,
    parse_resource_template,
    parse_tool,
)
from plainmcp.client.structured import OutputSchemas
from plainmcp.lifespan import running
from plainmcp.transports.stdout import release_stdout
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE

if TYPE_CHECKING:
    import httpx2

    from plainmcp.prompts import PromptResult
    from plainmcp.server import Server

log = logging.getLogger("plainmcp.client")

Send = Callable[[bytes], Awaitable[None]]

ListMethod = Literal["tools/list", "resources/list", "resources/templates/list", "prompts/list"]
_LISTS: dict[str, tuple[str, Callable[[object], Any]]] = {
    "tools/list": ("tools", parse_tool),
    "resources/list": ("resources", parse_resource),
    "resources/templates/list": ("resourceTemplates", parse_resource_template),
    "prompts/list": ("prompts", parse_prompt),
}
"""Each list method: the result's key for its items, and how one item is read."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("plainmcp")
    except PackageNotFoundError:
        return "0"


# --- the client ------------------------------------------------------------------------------


async def _closed_send(data: bytes) -> None:
    raise anyio.ClosedResourceError


@contextlib.asynccontextmanager
async def _single_errors() -> AsyncIterator[None]:
    """Raise a lone exception from a task group as itself, not as an ExceptionGroup of one."""
    try:
        yield
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


class _Waiter:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.result: dict[str, Any] | None = None
        self.error: McpError | None = None


class Client:
    """An MCP client session: `Client.stdio(...)`, `Client.memory(server)` or `Client.http(url)`."""

    def __init__(self, send: Send, tasks: anyio.abc.TaskGroup) -> None:
        release_stdout()  # a client's program prints to stdout, at once (transports/stdout.py)
        self._send_bytes = send
        self._tasks = tasks
        self._lock = anyio.Lock()
        self._next_id = 0
        self._pending: dict[RequestId, _Waiter] = {}
        self._closed: ConnectionClosed | None = None
        self.server_info = ServerInfo(name="", version="")
        self.protocol_version = ""
        self.capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self._output_schemas = OutputSchemas(self.list_tools)

    # --- constructors ----------------------------------------------------------------------

    @classmethod
    @contextlib.asynccontextmanager
    async def stdio(
        cls,
        command: str,
        *args: str,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        protocol_version: str = LATEST_HANDSHAKE,
    ) -> AsyncIterator[Client]:
        """Spawn `command *args` as a stdio server and initialize a session with it.

        `env` is added to this process's environment; the server's stderr goes to ours.
        """
        full_env = {**os.environ, **env} if env is not None else None
        process = await anyio.open_process([command, *args], env=full_env, cwd=cwd, stderr=None)
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        async def send(data: bytes) -> None:
            await stdin.send(data + b"\n")

        async with process, _single_errors(), anyio.create_task_group() as tasks:
            client = cls(send, tasks)

            async def read() -> None:
                buffer = bytearray()
                try:
                    async for chunk in stdout:
                        buffer += chunk
                        start = 0
                        while (end := buffer.find(b"\n", start)) >= 0:
                            line = bytes(buffer[start:end]).strip()
                            start = end + 1
                            if line:
                                client._receive(line)
                        del buffer[:start]
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    pass
                returncode = None
                with anyio.move_on_after(2):
                    returncode = await process.wait()
                how = f"exit code {returncode}" if returncode is not None else "still running"
                client._close(
                    ConnectionClosed(f"The server closed the connection ({how})", returncode)
                )

            tasks.start_soon(read)
            try:
                await client._initialize(protocol_version)
                yield client
            finally:
                with anyio.CancelScope(shield=True):
                    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                        await stdin.aclose()
                    with anyio.move_on_after(5):
                        await process.wait()
                    if process.returncode is None:
                        process.terminate()
                        with anyio.move_on_after(2):
                            await process.wait()
                        if process.returncode is None:
                            process.kill()
                    tasks.cancel_scope.cancel()

    @classmethod
    @contextlib.asynccontextmanager
    async def memory(
        cls, server: Server, *, protocol_version: str = LATEST_HANDSHAKE, principal: Any = None
    ) -> AsyncIterator[Client]:
        """A session with `server` in this process: no subprocess, no serialization shortcuts.

        `principal` is who the session is authenticated as (a `Principal`, as HTTP bearer auth
        gives tools and scope checks); None: nobody, as over stdio. The server's lifespan runs
        for the session (or is shared, when it runs already).
        """
        async with running(server), _single_errors(), anyio.create_task_group() as tasks:
            client: Client | None = None

            async def to_client(data: bytes) -> None:
                if client is not None:
                    client._receive(data)

            conn = server.connect(to_client)
            conn.principal = principal
            conn.bind(tasks)
            client = cls(conn.receive, tasks)
            try:
                await client._initialize(protocol_version)
                yield client
            finally:
                client._close(ConnectionClosed("The client closed the session"))
                # Drop the client -> connection reference so the server forgets this session
                # now, not at the next garbage collection (it would still post to it).
                client._send_bytes = _closed_send
                conn.close()
                tasks.cancel_scope.cancel()

    @classmethod
    @contextlib.asynccontextmanager
    async def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        auth: str | httpx2.Auth | None = None,
        protocol_version: str = LATEST_HANDSHAKE,
        listen: bool = True,
        timeout: float = 30.0,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> AsyncIterator[Client]:
        """A session with the Streamable HTTP endpoint at `url` (needs `plainmcp[client]`).

        `auth`: a bearer token (sent as `Authorization: Bearer ...`) or an httpx2 Auth.
        `listen`: open the GET stream for the server's own messages. `timeout`: seconds to
        connect and send (answers may take as long as they take). `transport`: an httpx2
        transport, e.g. `httpx2.ASGITransport(app.http_app())` to test in-process. Closing
        the client DELETEs the session; a 404 to it later raises SessionExpired.
        """
        from plainmcp.client.http import connect

        async with connect(
            cls,
            url,
            headers=headers,
            auth=auth,
            protocol_version=protocol_version,
            listen=listen,
            timeout=timeout,
            transport=transport,
        ) as client:
            yield client

    # --- requests --------------------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request and wait for its result; a JSON-RPC error raises McpError."""
        if self._closed is not None:
            raise self._closed
        self._next_id += 1
        request_id = self._next_id
        waiter = _Waiter()
        self._pending[request_id] = waiter
        try:
            await self._send(jsonrpc.request_message(request_id, method, params))
            await waiter.done.wait()
        except anyio.get_cancelled_exc_class():
            if self._closed is None:
                with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await self.notify(
                        "notifications/cancelled",
                        {"requestId": request_id, "reason": "cancelled by the client"},
                    )
            raise
        finally:
            self._pending.pop(request_id, None)
        if waiter.error is not None:
            raise waiter.error
        assert waiter.result is not None
        return waiter.result

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._send(jsonrpc.notification_message(method, params))

    async def ping(self) -> None:
        await self.request("ping")

    async def list_tools(self) -> list[ToolInfo]:
        """Every tool, following `nextCursor` across pages."""
        tools: list[ToolInfo] = await self._every("tools/list")
        self._output_schemas.remember(tools)
        return tools

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        result_type: Any = None,
        raise_on_error: bool = False,
    ) -> CallToolResult:
        """Call a tool. A failing tool gives `is_error=True` (or raises ToolCallError, with
        `raise_on_error`); protocol faults raise McpError. `data` is the structured value
        checked against the tool's output schema and hydrated (`result_type`: validated into
        that type with pydantic instead); McpError when it does not fit."""
        result = parse_call_result(
            await self.request("tools/call", {"name": name, "arguments": dict(arguments or {})})
        )
        if result.is_error:
            if raise_on_error:
                raise ToolCallError(name, result)
            return result
        if result.structured is None:
            return result
        data = await self._output_schemas.data(name, result.structured, result_type)
        return dataclasses.replace(result, data=data)

    async def list_resources(self) -> list[ResourceInfo]:
        return await self._every("resources/list")

    async def list_resource_templates(self) -> list[ResourceTemplateInfo]:
        return await self._every("resources/templates/list")

    async def list_prompts(self) -> list[PromptInfo]:
        return await self._every("prompts/list")

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """The resource's contents: text, or bytes in `blob` (base64 on the wire)."""
        return parse_read_result(await self.request("resources/read", {"uri": uri}))

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> PromptResult:
        """The prompt's messages, as the plainmcp `PromptResult` a prompt function returns."""
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        return parse_prompt_result(await self.request("prompts/get", params))

    async def complete(
        self,
        argument: str,
        value: str,
        *,
        prompt: str | None = None,
        resource_template: str | None = None,
        context: Mapping[str, str] | None = None,
    ) -> Completion:
        """Suggestions for one argument of a prompt or a resource template (name exactly one);
        `context`: the arguments already filled in."""
        if (prompt is None) == (resource_template is None):
            raise TypeError("complete() needs exactly one of prompt= or resource_template=")
        ref = (
            {"type": "ref/prompt", "name": prompt}
            if prompt is not None
            else {"type": "ref/resource", "uri": resource_template}
        )
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        return parse_completion(await self.request("completion/complete", params))

    async def subscribe(self, uri: str) -> None:
        """Ask for `notifications/resources/updated` of `uri` (revisions that have it)."""
        await self.request("resources/subscribe", {"uri": uri})

    async def unsubscribe(self, uri: str) -> None:
        await self.request("resources/unsubscribe", {"uri": uri})

    @overload
    async def page(
        self, method: Literal["tools/list"], cursor: str | None = None
    ) -> Page[ToolInfo]: ...
    @overload
    async def page(
        self, method: Literal["resources/list"], cursor: str | None = None
    ) -> Page[ResourceInfo]: ...
    @overload
    async def page(
        self, method: Literal["resources/templates/list"], cursor: str | None = None
    ) -> Page[ResourceTemplateInfo]: ...
    @overload
    async def page(
        self, method: Literal["prompts/list"], cursor: str | None = None
    ) -> Page[PromptInfo]: ...
    async def page(self, method: ListMethod, cursor: str | None = None) -> Page[Any]:
        """One page of a list, for walking it yourself: `cursor` is the last page's
        `next_cursor` (None: the first page). The `list_*` methods read every page."""
        if method not in _LISTS:
            raise ValueError(f"page() lists one of {', '.join(_LISTS)}, not {method!r}")
        key, parse = _LISTS[method]
        result = await self.request(method, {"cursor": cursor} if cursor is not None else None)
        items = result.get(key)
        if not isinstance(items, list):
            raise bad_reply(f"{method} result without a {key} array")
        next_cursor = result.get("nextCursor")
        if next_cursor is not None and not isinstance(next_cursor, str):
            raise bad_reply(f"{method} returned an invalid cursor {next_cursor!r}")
        return Page([parse(item) for item in items], next_cursor or None)

    async def _every(self, method: ListMethod) -> list[Any]:
        """Every item of a list, following `nextCursor` across pages."""
        items: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await self.page(method, cursor)
            items.extend(page.items)
            cursor = page.next_cursor
            if cursor is None:
                return items
            if cursor in seen:
                raise bad_reply(f"{method} returned a repeated cursor {cursor!r}")
            seen.add(cursor)

    # --- plumbing --------------------------------------------------------------------------

    async def _initialize(self, protocol_version: str) -> None:
        if protocol_version not in HANDSHAKE_VERSIONS:
            raise ValueError(
                f"protocol_version must be one of {', '.join(HANDSHAKE_VERSIONS)},"
                f" not {protocol_version!r}"
            )
        result = await self.request(
            "initialize",
            {
                "protocolVersion": protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "plainmcp", "version": _version()},
            },
        )
        version = result.get("protocolVersion")
        if version not in HANDSHAKE_VERSIONS:
            raise McpError(
                INTERNAL_ERROR, f"The server chose protocol version {version!r}, not supported here"
            )
        info = result.get("serverInfo")
        if not isinstance(info, dict):
            raise bad_reply("initialize result without serverInfo")
        self.protocol_version = version
        self.server_info = ServerInfo(
            name=str(info.get("name", "")),
            version=str(info.get("version", "")),
            title=info.get("title"),
            description=info.get("description"),
            website_url=info.get("websiteUrl"),
        )
        capabilities = result.get("capabilities")
        self.capabilities = capabilities if isinstance(capabilities, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        await self.notify("notifications/initialized")

    async def _send(self, message: dict[str, Any]) -> None:
        data = jsonrpc.encode(message)
        try:
            async with self._lock:
                await self._send_bytes(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise self._closed or ConnectionClosed("The server closed the connection") from None

    def _receive(self, data: bytes) -> None:
        parsed = jsonrpc.parse(data)
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, Response):
                waiter = self._pending.get(message.id)
                if waiter is None:
                    log.warning("ignored a response to unknown request %r", message.id)
                    continue
                if message.error is not None:
                    error = message.error
                    code = error.get("code")
                    waiter.error = McpError(
                        code if isinstance(code, int) else INTERNAL_ERROR,
                        str(error.get("message", "")),
                        error.get("data"),
                    )
                else:
                    waiter.result = message.result or {}
                waiter.done.set()
            elif isinstance(message, Request):
                self._tasks.start_soon(self._answer, message)
            elif isinstance(message, Notification):
                log.debug("notification from the server: %s", message.method)
            else:
                log.warning("ignored an invalid message from the server: %s", message.error)

    async def _answer(self, request: Request) -> None:
        """Requests from the server: ping is answered, anything else is not offered."""
        if request.method == "ping":
            reply = jsonrpc.result_message(request.id, {})
        else:
            reply = jsonrpc.error_message(
                request.id, RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            )
        with contextlib.suppress(McpError):
            await self._send(reply)

    def _fail(self, request_id: RequestId, error: McpError) -> None:
        """End a request the transport could not deliver (or got no reply to)."""
        waiter = self._pending.get(request_id)
        if waiter is not None and not waiter.done.is_set():
            waiter.error = error
            waiter.done.set()

    def _close(self, reason: ConnectionClosed) -> None:
        if self._closed is None:
            self._closed = reason
        for waiter in self._pending.values():
            if not waiter.done.is_set():
                waiter.error = reason
                waiter.done.set()
