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
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Unpack

import anyio
import anyio.abc

from plainmcp.client.callbacks import (
    ELICIT,
    CallbackError,
    Callbacks,
    input_requests,
    retry_params,
)
from plainmcp.client.discover import negotiate
from plainmcp.client.errors import (
    ConnectionClosed,
    McpError,
    ProtocolViolation,
    RequestTimeout,
    ToolCallError,
    bad_reply,
    too_large,
)
from plainmcp.client.listen import ACKNOWLEDGED, Listen
from plainmcp.client.notifications import PROGRESS, Listeners, OnProgress, progress_of
from plainmcp.client.options import DEFAULT_MAX_MESSAGE, DISCOVER_TIMEOUT, ClientOptions
from plainmcp.client.results import (
    CallToolResult,
    ServerInfo,
    ToolInfo,
    parse_call_result,
)
from plainmcp.client.stream import ToolCall, stream_call
from plainmcp.client.structured import OutputSchemas
from plainmcp.client.surface import Surface
from plainmcp.lifespan import running
from plainmcp.transports.stdout import release_stdout
from plainmcp.wire import envelope, jsonrpc
from plainmcp.wire.jsonrpc import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    Notification,
    Request,
    RequestId,
    Response,
    RpcError,
)
from plainmcp.wire.meta import LOG_LEVELS, SERVER_INFO
from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE, REVISIONS, Revision

if TYPE_CHECKING:
    import httpx2

    from plainmcp.server import Server

log = logging.getLogger("plainmcp.client")

Send = Callable[[bytes], Awaitable[None]]


def client_info() -> dict[str, Any]:
    """Who is asking: clientInfo at initialize, `_meta` clientInfo at 2026-07-28."""
    from plainmcp import __version__

    return {"name": "plainmcp", "version": __version__}


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
    __slots__ = ("answered", "done", "error", "progress", "result")

    def __init__(self, progress: list[OnProgress]) -> None:
        self.done = anyio.Event()
        self.answered = False
        """The reply is in; `done` follows once the notifications before it are handled."""
        self.result: dict[str, Any] | None = None
        self.error: McpError | None = None
        self.progress = progress


class _Default:
    """The `timeout=` of a call that names none: the client's `request_timeout`."""


DEFAULT_TIMEOUT: Any = _Default()
MAX_INPUT_ROUNDS = 16
"""Input-required rounds one request may take before the client gives up on the server."""
_PROGRESS_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
"""Requests that carry a progress token when the client has an `on_progress` callback."""


class Client(Surface):
    """An MCP client session: `Client.stdio(...)`, `Client.memory(server)` or `Client.http(url)`.

    Every constructor takes the same options (`ClientOptions`): `protocol` ("auto", the
    default, or a revision), the callbacks answering the server's questions (`elicit`,
    `sample`, `roots`) and those hearing its notifications (`on_progress`, `on_log`,
    `on_list_changed`, `on_resource_updated`), `request_timeout` and `max_message_size`.
    """

    def __init__(
        self, send: Send, tasks: anyio.abc.TaskGroup, **options: Unpack[ClientOptions]
    ) -> None:
        release_stdout()  # a client's program prints to stdout, at once (transports/stdout.py)
        self._send_bytes = send
        self._tasks = tasks
        self._lock = anyio.Lock()
        self._next_id = 0
        self._pending: dict[RequestId, _Waiter] = {}
        self._closed: ConnectionClosed | None = None
        self.server_info = ServerInfo(name="", version="")
        self.protocol_version = ""
        self.revision: Revision | None = None
        """The revision spoken, once the connection is set up."""
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
            options.get("elicit"), options.get("sample"), options.get("roots")
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
        self.max_message_size = options.get("max_message_size", DEFAULT_MAX_MESSAGE)
        self._discover_timeout = options.get("discover_timeout", DISCOVER_TIMEOUT)
        self._stray: list[RequestId] = []
        self._abort: Callable[[RequestId], bool] | None = None
        """The transport's own way to cancel a request (closing its HTTP stream, 2026-07-28):
        True when it did, else the client sends notifications/cancelled."""
        self._tool_schemas: dict[str, dict[str, Any]] = {}
        self._mirrors = False
        """The transport mirrors tool arguments into headers (HTTP): it needs the schemas."""
        self._output_schemas = OutputSchemas(self.list_tools)
        self._listen = Listen(self)
        self._listeners.start(tasks)

    async def _start(self) -> None:
        """Choose the revision (discover or initialize), then open what it needs."""
        await negotiate(self, self._protocol, self._discover_timeout)
        if self.revision is not None and not self.revision.session_notifications:
            error = await self._listen.restart()
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
        full_env = {**os.environ, **env} if env is not None else None
        process = await anyio.open_process([command, *args], env=full_env, cwd=cwd, stderr=None)
        assert process.stdin is not None and process.stdout is not None
        stdin, stdout = process.stdin, process.stdout

        async def send(data: bytes) -> None:
            await stdin.send(data + b"\n")

        async with process, _single_errors(), anyio.create_task_group() as tasks:
            client = cls(send, tasks, **options)

            async def read() -> None:
                try:
                    await _read_lines(client, stdout)
                except ProtocolViolation as exc:
                    client._close(exc)
                    process.terminate()
                    return
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
                await client._start()
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
        cls, server: Server, *, principal: Any = None, **options: Unpack[ClientOptions]
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
                    try:
                        client._receive(data)
                    except ProtocolViolation as exc:
                        client._close(exc)

            conn = server.connect(to_client)
            conn.principal = principal
            conn.bind(tasks)
            client = cls(conn.receive, tasks, **options)
            try:
                await client._start()
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
            cls,
            url,
            headers=headers,
            auth=auth,
            listen=listen,
            timeout=timeout,
            transport=transport,
            options=options,
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
            answers.update(await self._input_responses(asks))
            current = retry_params(params, answers, result.get("requestState"))
        raise McpError(
            INTERNAL_ERROR,
            f"The server asked for input {MAX_INPUT_ROUNDS} times in one {method}: giving up",
        )

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        await self._send(jsonrpc.notification_message(method, params))

    async def ping(self) -> None:
        """Check the server answers: ping, or server/discover in a revision without ping."""
        rev = self.revision
        await self.request("server/discover" if rev and "ping" in rev.removed_methods else "ping")

    async def list_tools(self) -> list[ToolInfo]:
        """Every tool, following `nextCursor` across pages."""
        tools: list[ToolInfo] = await self._every("tools/list")
        self._tool_schemas.update({t.name: t.input_schema for t in tools})
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
        result = parse_call_result(
            await self.request(
                "tools/call",
                {"name": name, "arguments": dict(arguments or {})},
                timeout=timeout,
                on_progress=on_progress,
            )
        )
        if result.is_error:
            if raise_on_error:
                raise ToolCallError(name, result)
            return result
        if result.structured is None:
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
        return stream_call(self, name, arguments, timeout)

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
        await self._listen.change(add=uri)

    async def unsubscribe(self, uri: str) -> None:
        if self.revision is not None and self.revision.session_notifications:
            await self.request("resources/unsubscribe", {"uri": uri})
            return
        await self._listen.change(remove=uri)

    # --- plumbing --------------------------------------------------------------------------

    def _needs_schema(self, name: str) -> bool:
        """A stateless HTTP call of a tool whose input schema the client has not seen."""
        rev = self.revision
        return (
            self._mirrors
            and rev is not None
            and not rev.handshake
            and name not in self._tool_schemas
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
            client_info=client_info(),
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
        if self._closed is not None:
            raise self._closed
        self._next_id += 1
        request_id = self._next_id
        rev = rev or self.revision
        wire = self._stamp(rev, params) if rev is not None else params
        sinks = [on_progress] if on_progress is not None else []
        if sinks or (self._listeners.on_progress is not None and method in _PROGRESS_METHODS):
            wire = dict(wire or {})
            wire["_meta"] = {**(wire.get("_meta") or {}), "progressToken": request_id}
        waiter = _Waiter(sinks)
        self._pending[request_id] = waiter
        limit = self._timeout if isinstance(timeout, _Default) else timeout
        try:
            with anyio.fail_after(limit):
                await self._send(jsonrpc.request_message(request_id, method, wire))
                await waiter.done.wait()
        except TimeoutError:
            await self._cancel(request_id, "timed out")
            stray = f"; meanwhile it answered unknown ids {self._stray}" if self._stray else ""
            raise RequestTimeout(
                f"No answer to {method} (id {request_id}) within {limit} s{stray}"
            ) from None
        except anyio.get_cancelled_exc_class():
            await self._cancel(request_id, "cancelled by the client")
            raise
        finally:
            self._pending.pop(request_id, None)
        if waiter.error is not None:
            raise waiter.error
        assert waiter.result is not None
        return waiter.result

    async def _cancel(self, request_id: RequestId, reason: str) -> None:
        """Tell the server to stop `request_id`: by the transport's own means, else with
        notifications/cancelled."""
        if self._closed is not None:
            return
        with anyio.CancelScope(shield=True):
            if self._abort is not None and self._abort(request_id):
                return
            with contextlib.suppress(Exception):
                await self.notify(
                    "notifications/cancelled", {"requestId": request_id, "reason": reason}
                )

    async def _input_responses(self, asks: Mapping[str, Any]) -> dict[str, Any]:
        """The answers to an input-required result's inputRequests, from the callbacks."""
        rev = self.revision
        assert rev is not None
        answers: dict[str, Any] = {}
        for key, ask in asks.items():
            method = ask.get("method") if isinstance(ask, dict) else None
            params = ask.get("params") if isinstance(ask, dict) else None
            if not isinstance(method, str) or method not in rev.input_requests:
                raise bad_reply(f"inputRequests[{key!r}] is not a request this client answers")
            try:
                answers[key] = await self._callbacks.answer(method, params or {}, rev)
            except CallbackError as exc:
                if method != ELICIT:
                    raise McpError(INTERNAL_ERROR, str(exc)) from exc.__cause__
                # The user-facing question failed: as if the user dismissed it.
                log.warning("%s: answering cancel", exc)
                answers[key] = {"action": "cancel"}
        return answers

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
                "capabilities": self._callbacks.capabilities(REVISIONS[protocol_version]),
                "clientInfo": client_info(),
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
        self._opened(REVISIONS[version], info, result)
        await self.notify("notifications/initialized")

    def _adopt(self, rev: Revision, result: dict[str, Any]) -> None:
        """A discover result chose stateless `rev`: its serverInfo sits in `_meta`."""
        meta = result.get("_meta")
        info = meta.get(SERVER_INFO) if isinstance(meta, dict) else None
        self.discover_result = result
        self._opened(rev, info if isinstance(info, dict) else {}, result)

    def _opened(self, rev: Revision, info: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        self.revision = rev
        self.protocol_version = rev.version
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
        if self._log_level is not None and "logging/setLevel" not in rev.removed_methods:
            self._tasks.start_soon(self._set_level_at_start, self._log_level)

    async def _set_level_at_start(self, level: str) -> None:
        with contextlib.suppress(McpError):
            await self.request("logging/setLevel", {"level": level})

    async def _send(self, message: dict[str, Any]) -> None:
        data = jsonrpc.encode(message)
        try:
            async with self._lock:
                await self._send_bytes(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise self._closed or ConnectionClosed("The server closed the connection") from None

    def _receive(self, data: bytes) -> None:
        """One message (or batch) from the server; ProtocolViolation when it is not MCP."""
        if len(data) > self.max_message_size:
            raise too_large(self.max_message_size)
        parsed = jsonrpc.parse(data)
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, Response):
                waiter = self._pending.get(message.id)
                if waiter is None:
                    log.warning("ignored a response to unknown request %r", message.id)
                    self._stray.append(message.id)
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
                waiter.answered = True
                self._listeners.after(waiter.done.set)
            elif isinstance(message, Request):
                self._tasks.start_soon(self._answer, message)
            elif isinstance(message, Notification):
                self._notified(message)
            else:
                raise ProtocolViolation(
                    f"The server sent an invalid message ({message.error.message}): {data[:200]!r}"
                )

    def _notified(self, note: Notification) -> None:
        if note.method == PROGRESS:
            progress = progress_of(note.params)
            waiter = self._pending.get(progress.token) if progress and progress.token else None
            if waiter is not None and progress is not None:
                for sink in waiter.progress:
                    self._listeners._queue_call(sink, progress)
        elif note.method == ACKNOWLEDGED:
            self._listen.acknowledged(note.params)
        self._listeners.deliver(note)

    async def _answer(self, request: Request) -> None:
        """Requests from the server: ping, and those the callbacks answer."""
        rev = self.revision or REVISIONS[LATEST_HANDSHAKE]
        if request.method == "ping":
            reply = jsonrpc.result_message(request.id, {})
        elif self._callbacks.handles(request.method):
            try:
                result = await self._callbacks.answer(request.method, request.params, rev)
            except CallbackError as exc:
                log.warning("%s", exc)
                reply = jsonrpc.error_message(request.id, RpcError(INTERNAL_ERROR, str(exc)))
            else:
                reply = jsonrpc.result_message(request.id, result)
        else:
            reply = jsonrpc.error_message(
                request.id, RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            )
        with contextlib.suppress(McpError):
            await self._send(reply)

    def _fail(self, request_id: RequestId, error: McpError) -> None:
        """End a request the transport could not deliver (or got no reply to)."""
        waiter = self._pending.get(request_id)
        if waiter is not None and not waiter.answered:
            waiter.error = error
            waiter.answered = True
            waiter.done.set()

    def _close(self, reason: ConnectionClosed) -> None:
        if self._closed is None:
            self._closed = reason
        self._listeners.close()
        for waiter in self._pending.values():
            if not waiter.answered:
                waiter.error = reason
                waiter.answered = True
            waiter.done.set()


async def _read_lines(client: Client, stdout: anyio.abc.ByteReceiveStream) -> None:
    """The server's stdout, one message a line; a line over the client's limit is refused
    before it is whole (a server that never ends its line cannot fill the memory)."""
    buffer = bytearray()
    async for chunk in stdout:
        buffer += chunk
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            line = bytes(buffer[start:end]).strip()
            start = end + 1
            if line:
                client._receive(line)
        del buffer[:start]
        if len(buffer) > client.max_message_size:
            raise too_large(client.max_message_size)
