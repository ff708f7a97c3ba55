"""A proxy: any MCP server, in any language, served through plainmcp (docs/composition.md).

`proxy_server(upstream)` returns a plainmcp Server whose tools and resources are the
upstream's, registered in its own registries (the seam mount.py uses), so that a call goes
through the proxy's middleware, guards, read_more, cuts and host adaptation as a tool of its
own would. The upstream is reached with plainmcp's Client, over stdio or Streamable HTTP,
speaking its own revision; the proxy's clients speak theirs. What the upstream asks during a
call (elicitation, sampling, roots) is asked of the client of the oldest call in flight.

One connection is kept by a task of the proxy's lifespan. A call that finds it dead (the
upstream exited or broke the stream) fails with a clear isError, and the next call opens a
new one, re-listing the tools.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Literal, TypeAlias

import anyio
import anyio.abc

from plainmcp.client import (
    Client,
    ConnectionClosed,
    LogMessage,
    McpError,
    Progress,
    ResourceInfo,
    ToolInfo,
)
from plainmcp.client.callbacks import CallbackError, Elicitation, SamplingRequest
from plainmcp.client.options import ClientOptions
from plainmcp.context import Context, ElicitResult, Root, SampleResult
from plainmcp.errors import ResourceError
from plainmcp.model.answers import Contents
from plainmcp.model.results import NOTHING, ToolError, ToolResult
from plainmcp.server import Server
from plainmcp.tools import NAME_PATTERN
from plainmcp.wire.meta import LOG_LEVELS, SERVER_INFO
from plainmcp.wire.revisions import REVISIONS

log = logging.getLogger("plainmcp.proxy")

Connect: TypeAlias = Callable[..., AbstractAsyncContextManager[Client]]
"""`connect(**client_options)` opening a Client session with the upstream."""
Upstream: TypeAlias = str | Sequence[str] | Connect
"""A URL (Streamable HTTP), a command and its arguments (stdio), or a Connect."""

_ANNOTATIONS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def connector(upstream: Upstream) -> Connect:
    """How to open a session with `upstream` (ValueError for an empty command)."""
    if isinstance(upstream, str):
        url = upstream

        def http(**options: Any) -> AbstractAsyncContextManager[Client]:
            return Client.http(url, **options)

        return http
    if callable(upstream):
        return upstream
    command = list(upstream)
    if not command or not all(isinstance(part, str) for part in command):
        raise ValueError("a stdio upstream is a command and its arguments: ['node', 'server.js']")

    def stdio(**options: Any) -> AbstractAsyncContextManager[Client]:
        return Client.stdio(command[0], *command[1:], **options)

    return stdio


class _Attempt:
    """One connection to the upstream, from its opening to its loss."""

    def __init__(self) -> None:
        self.opened = anyio.Event()
        self.lost = anyio.Event()
        self.client: Client | None = None
        self.error: BaseException | None = None


class Proxy:
    """The upstream's session and the proxy Server's copies of its tools."""

    def __init__(self, server: Server, connect: Connect, label: str) -> None:
        self.server, self.connect, self.label = server, connect, label
        self.resources: dict[str, ResourceInfo] = {}
        """The upstream's resources registered in the proxy, by URI, as last listed."""
        self.tools: dict[str, ToolInfo] = {}
        """The upstream's tools registered in the proxy, by name, as last listed."""
        self.calls: list[Context] = []
        """The Contexts of the calls in flight, oldest first (where upstream logs go)."""
        self._attempt: _Attempt | None = None
        self._wanted: anyio.abc.ObjectSendStream[_Attempt] | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._listing = anyio.Lock()
        """One listing at a time: a slower one never undoes a newer one's registrations."""

    # --- the connection ------------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The proxy's lifespan: the connection keeper runs, the first session is open and its
        tools registered before the first request (a failing upstream fails the start-up)."""
        send, receive = anyio.create_memory_object_stream[_Attempt](1)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._keep, receive)
            self._wanted, self._tg = send, tg
            try:
                await self.client()
                yield
            finally:
                self._wanted = self._tg = None
                tg.cancel_scope.cancel()

    async def _keep(self, wanted: anyio.abc.ObjectReceiveStream[_Attempt]) -> None:
        """Open each session asked for and hold it until it is lost (one at a time)."""
        async for attempt in wanted:
            try:
                async with self.connect(**self._options()) as client:
                    await self._list_tools(client)
                    await self._list_resources(client)
                    attempt.client = client
                    attempt.opened.set()
                    await attempt.lost.wait()
            except Exception as exc:
                log.warning("upstream %s: %s", self.label, exc)
                attempt.error = exc
            finally:
                attempt.client = None
                attempt.lost.set()
                attempt.opened.set()

    def _options(self) -> ClientOptions:
        return ClientOptions(
            on_log=self._log,
            on_list_changed=self._changed,
            roots=self._roots,
            elicit=self._elicit,
            sample=self._sample,
        )

    async def client(self) -> Client:
        """The open session, opening one if there is none (ConnectionClosed if that fails)."""
        attempt = self._attempt
        if attempt is None or attempt.lost.is_set():
            if self._wanted is None:
                raise ConnectionClosed(f"the proxy of {self.label} is not running")
            attempt = self._attempt = _Attempt()
            await self._wanted.send(attempt)
        await attempt.opened.wait()
        if attempt.client is None:
            error = attempt.error
            reason = getattr(error, "message", error) if error is not None else "closed"
            raise ConnectionClosed(f"connecting failed: {reason}")
        return attempt.client

    def _lost(self, client: Client) -> None:
        """A call saw the session die: the next call opens another."""
        attempt = self._attempt
        if attempt is not None and attempt.client is client:
            attempt.lost.set()

    # --- what the upstream sends unasked -------------------------------------------------------

    async def _log(self, message: LogMessage) -> None:
        """An upstream log: to the client of the oldest call in flight, else to our logger. A
        level no revision has is relayed as info, rather than losing the message."""
        if self.calls:
            level: Any = message.level if message.level in LOG_LEVELS else "info"
            await self.calls[0].log(level, message.data, logger=message.logger)
        else:
            log.info("upstream %s [%s] %s", self.label, message.level, message.data)

    def _asker(self, what: str) -> Context | None:
        """Whose client answers the upstream's question: the oldest call in flight's (None:
        no call is). A 2026-07-28 client answers only in a retried request, which a call held
        upstream cannot wait for, so the upstream is refused."""
        if not self.calls:
            return None
        ctx = self.calls[0]
        if not REVISIONS[ctx.revision].handshake:
            raise CallbackError(
                f"the proxy's client speaks {ctx.revision}, which answers {what} only in a"
                " retried request: not relayed to an upstream"
            )
        return ctx

    async def _roots(self) -> list[Root]:
        ctx = self._asker("roots")
        return [] if ctx is None else await ctx.list_roots()

    async def _elicit(self, request: Elicitation) -> ElicitResult | None:
        """Form mode relayed (URL mode is refused: its outcome comes out of band)."""
        ctx = self._asker("elicitation")
        if request.mode != "form" or request.requested_schema is None:
            raise CallbackError("URL mode elicitation is not relayed by the proxy")
        if ctx is None:
            return None  # declined: nobody to ask
        return await ctx.elicit(request.message, request.requested_schema)

    async def _sample(self, request: SamplingRequest) -> SampleResult:
        ctx = self._asker("sampling")
        if ctx is None:
            raise CallbackError("no call in flight whose client could sample")
        return await ctx.sample(
            request.raw.get("messages") or [],
            max_tokens=request.max_tokens,
            system_prompt=request.system_prompt,
            temperature=request.temperature,
            stop_sequences=request.stop_sequences,
            model_preferences=request.model_preferences,
            include_context=_include(request.include_context),
        )

    def _changed(self, kind: str) -> None:
        """The upstream's tools changed: re-list them in a task of the proxy's own (a request
        made from a notification callback would wait behind it)."""
        attempt = self._attempt
        if kind in ("tools", "resources") and self._tg is not None and attempt is not None:
            client = attempt.client
            if client is not None:
                self._tg.start_soon(self._relist, client)

    async def _relist(self, client: Client) -> None:
        try:
            await self._list_tools(client)
            await self._list_resources(client)
        except Exception as exc:  # the session died meanwhile: the next call reconnects
            log.warning("upstream %s: cannot re-list its tools: %s", self.label, exc)
            self._lost(client)

    # --- tools ---------------------------------------------------------------------------------

    async def _list_tools(self, client: Client) -> None:
        """Register the upstream's tools (every page) and drop those gone; a changed definition
        replaces the copy. The proxy's clients hear one tools/list_changed per change."""
        async with self._listing:
            listed = {tool.name: tool for tool in await client.list_tools()}
            self._register(listed)

    def _register(self, listed: dict[str, ToolInfo]) -> None:
        for name in list(self.tools):
            if listed.get(name) != self.tools[name]:
                self.server.remove_tool(name)
                del self.tools[name]
        for name, tool in listed.items():
            if name in self.tools:
                continue
            try:
                self.server.add_tool(self._forward(name), **_settings(tool))
            except (TypeError, ValueError) as exc:
                log.warning("upstream %s: tool %r not served: %s", self.label, name, exc)
                continue
            self.tools[name] = tool

    # --- resources -----------------------------------------------------------------------------

    async def _list_resources(self, client: Client) -> None:
        """Register the upstream's resources (every page; none if it offers none), as its tools
        are: a read is forwarded."""
        if "resources" not in client.capabilities:
            return
        async with self._listing:
            listed = {item.uri: item for item in await client.list_resources()}
            resources = self.server.resources
            for uri in list(self.resources):
                if listed.get(uri) != self.resources[uri]:
                    resources.remove(uri)
                    del self.resources[uri]
            for uri, item in listed.items():
                if uri in self.resources:
                    continue
                try:
                    resources.add(
                        self._reader(uri),
                        uri,
                        name=item.name,
                        title=item.title,
                        description=item.description,
                        mime_type=item.mime_type,
                        size=item.size,
                        annotations=item.annotations,
                        icons=item.icons,
                        meta=item.meta,
                    )
                except (TypeError, ValueError) as exc:
                    log.warning("upstream %s: resource %r not served: %s", self.label, uri, exc)
                    continue
                self.resources[uri] = item

    def _reader(self, uri: str) -> Callable[[], Awaitable[list[Contents]]]:
        async def read() -> list[Contents]:
            return await self.read(uri)

        return read

    async def read(self, uri: str) -> list[Contents]:
        """Forward one read; its faults are JSON-RPC errors (ResourceError), as reads' are."""
        try:
            client = await self.client()
        except ConnectionClosed as exc:
            raise ResourceError(f"Upstream {self.label} is unavailable ({exc.message})") from None
        try:
            return (await client.read_resource(uri)).contents
        except ConnectionClosed as exc:
            self._lost(client)
            raise ResourceError(
                f"Upstream {self.label} closed the connection during the read ({exc.message})"
            ) from None
        except McpError as exc:
            raise ResourceError(exc.message, code=exc.code, data=exc.data) from None

    # --- calls -------------------------------------------------------------------------------

    def _forward(self, name: str) -> Callable[..., Any]:
        async def forward(_plainmcp_proxy_context: Context, **arguments: Any) -> ToolResult:
            return await self.call(name, arguments, _plainmcp_proxy_context)

        return forward

    async def call(self, name: str, arguments: dict[str, Any], ctx: Context) -> ToolResult:
        """Forward one call; its progress and the upstream's logs meanwhile reach `ctx`'s
        client, a cancellation of it is sent on (by the Client). Faults become ToolErrors."""
        try:
            client = await self.client()
        except ConnectionClosed as exc:
            raise ToolError(
                f"Upstream {self.label} is unavailable ({exc.message}); the next call tries again"
            ) from None

        async def progress(note: Progress) -> None:
            await ctx.report_progress(note.progress, note.total, note.message)

        self.calls.append(ctx)
        try:
            result = await client.call_tool(name, arguments, on_progress=progress)
        except ConnectionClosed as exc:
            self._lost(client)
            raise ToolError(
                f"Upstream {self.label} closed the connection during the call ({exc.message});"
                " the next call reconnects"
            ) from None
        except McpError as exc:
            raise ToolError(f"Upstream error {exc.code}: {exc.message}") from None
        finally:
            self.calls.remove(ctx)
        meta = {k: v for k, v in (result.meta or {}).items() if k != SERVER_INFO}
        return ToolResult(
            result.content,
            structured=NOTHING if result.structured is None else result.structured,
            is_error=result.is_error,
            meta=meta or None,  # the upstream's serverInfo is not the proxy's
        )


Include: TypeAlias = Literal["none", "thisServer", "allServers"]
_INCLUDE: dict[str, Include] = {
    "none": "none",
    "thisServer": "thisServer",
    "allServers": "allServers",
}


def _include(value: str | None) -> Include | None:
    return None if value is None else _INCLUDE.get(value)


def _settings(tool: ToolInfo) -> dict[str, Any]:
    """The registration of an upstream tool: its definition as listed (schemas verbatim)."""
    if not NAME_PATTERN.fullmatch(tool.name):
        raise ValueError("not 1-128 characters of [A-Za-z0-9_.-]")
    given = tool.annotations or {}
    annotations = {
        key: given[key]
        for key in _ANNOTATIONS
        if key in given and isinstance(given[key], str if key == "title" else bool)
    }
    return {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "annotations": annotations or None,
        "icons": tool.icons,
        "meta": tool.meta,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "structured": None if tool.output_schema is not None else False,
    }


def proxy_server(upstream: Upstream, *, name: str | None = None, **settings: Any) -> Server:
    """A Server serving `upstream`'s tools and resources as its own (`settings`: Server's
    keywords but `lifespan`, which is the proxy's connection).

    `upstream`: a URL (Streamable HTTP), a command and its arguments (stdio), or a function
    opening a Client with the options it is given. `name`: the proxy's name (default: "proxy").
    """
    connect = connector(upstream)
    label = upstream if isinstance(upstream, str) else getattr(upstream, "__name__", "upstream")
    if not isinstance(upstream, str) and not callable(upstream):
        label = " ".join(upstream)
    holder: list[Proxy] = []

    def lifespan(app: Server) -> AbstractAsyncContextManager[None]:
        return holder[0].running()

    server = Server(name or "proxy", lifespan=lifespan, **settings)
    holder.append(Proxy(server, connect, label))
    return server
