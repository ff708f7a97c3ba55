"""A small async MCP client with typed results: in-memory, over a stdio subprocess or HTTP.

    async with Client.stdio(sys.executable, "server.py") as client:
        result = await client.call_tool("add", {"a": 2, "b": 3})
        print(result.text)

Results come back as plainmcp content objects (Text, Image, Audio, EmbeddedResource,
ResourceLink), so what a server sends can be compared with what its tools returned.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from plainmcp.client.errors import ConnectionClosed, McpError, bad_reply
from plainmcp.client.results import (
    CallToolResult,
    ServerInfo,
    ToolInfo,
    parse_call_result,
    parse_tool,
)
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

    from plainmcp.server import Server

log = logging.getLogger("plainmcp.client")

Send = Callable[[bytes], Awaitable[None]]


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
        tools: list[ToolInfo] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            result = await self.request("tools/list", {"cursor": cursor} if cursor else None)
            page = result.get("tools")
            if not isinstance(page, list):
                raise bad_reply("tools/list result without a tools array")
            tools.extend(parse_tool(t) for t in page)
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
            if not isinstance(cursor, str) or cursor in seen:
                raise bad_reply(f"tools/list returned a repeated or invalid cursor {cursor!r}")
            seen.add(cursor)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> CallToolResult:
        """Call a tool. A failing tool gives `is_error=True`; protocol faults raise McpError."""
        result = await self.request(
            "tools/call", {"name": name, "arguments": dict(arguments or {})}
        )
        return parse_call_result(result)

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
