"""A Server whose tools call an HTTP API: one tool per chosen operation of an OpenAPI document,
each calling it with httpx2; `from_asgi` does the same for a FastAPI or Starlette app in this
process, through httpx2's ASGITransport."""

from __future__ import annotations

import inspect
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, TypeAlias

from plainmcp.errors import ResourceError
from plainmcp.model.results import ToolError
from plainmcp.openapi import calls, reads, security
from plainmcp.openapi.document import OpenAPIError, Operation, operations, validate
from plainmcp.openapi.inputs import Inputs, inputs
from plainmcp.openapi.select import Rule, chosen, matches, rules
from plainmcp.server import Server

if TYPE_CHECKING:
    import httpx2

Headers: TypeAlias = (
    Mapping[str, str]
    | Callable[[Operation], Mapping[str, str] | Awaitable[Mapping[str, str]]]
    | None
)
"""Headers sent with every request: a mapping, or a callable given the operation per call."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
NAME_LENGTH = 64
"""Tool names are cut here: the longest every known host accepts."""


def tool_name(operation: Operation) -> str:
    """The operationId made a valid tool name; without one, `method_path`."""
    if operation.operation_id:
        name = _UNSAFE.sub("_", operation.operation_id).strip("_")
    else:
        parts = [part for part in _UNSAFE.sub("_", operation.path).split("_") if part]
        name = "_".join([operation.method.lower(), *parts])
    return name[:NAME_LENGTH] or operation.method.lower()


def description(operation: Operation) -> str | None:
    parts = [p.strip() for p in (operation.summary, operation.description) if p and p.strip()]
    return "\n\n".join(dict.fromkeys(parts)) or None


def hints(operation: Operation) -> dict[str, bool]:
    safe = operation.method in ("GET", "HEAD", "OPTIONS")
    out = {"readOnlyHint": safe, "openWorldHint": True}
    if not safe:
        out["destructiveHint"] = operation.method == "DELETE"
        out["idempotentHint"] = operation.method in ("PUT", "DELETE")
    return out


class _Connection:
    """The httpx2 client the tools share: the caller's, or one made on first use and closed
    when the server's lifespan ends."""

    def __init__(self, client: httpx2.AsyncClient | None, base_url: str | None) -> None:
        self.given, self.base_url = client, base_url
        self.made: httpx2.AsyncClient | None = None

    def client(self) -> httpx2.AsyncClient:
        if self.given is not None:
            return self.given
        if self.made is None:
            import httpx2

            self.made = httpx2.AsyncClient(base_url=self.base_url or "")
        return self.made

    def base(self) -> str:
        """The URL the paths are joined to (resources' URIs start with it)."""
        return str(self.given.base_url) if self.given is not None else self.base_url or ""

    async def close(self) -> None:
        made, self.made = self.made, None
        if made is not None:
            await made.aclose()


def from_openapi(
    document: Mapping[str, Any],
    *,
    include: Rule | Iterable[Rule],
    exclude: Rule | Iterable[Rule] = (),
    resources: Rule | Iterable[Rule] = (),
    client: httpx2.AsyncClient | None = None,
    base_url: str | None = None,
    headers: Headers = None,
    credentials: Mapping[str, security.Secret] | None = None,
    name: str | None = None,
    server: Server | None = None,
) -> Server:
    """A Server with one tool per operation `include` chooses (and `exclude` does not).

    `include` has no default: an API's every operation is never exposed by accident ("*"
    says so). Calls go to `client` (its base_url), else to `base_url`, else to the document's
    first server URL. `credentials` supplies the document's security schemes by name.
    `resources` chooses, among those, the GETs served as resources (reads.SAFE_GETS: every
    GET that needs no argument but its path's); none by default. With `server=`, the tools
    are added to that server; a client made here (no `client=`) is then never closed.
    """
    return _serve(
        document,
        include=include,
        exclude=exclude,
        resources=resources,
        client=client,
        base_url=base_url,
        headers=headers,
        credentials=credentials,
        name=name,
        server=server,
        running=None,
    )


def _serve(
    document: Mapping[str, Any],
    *,
    include: Rule | Iterable[Rule],
    exclude: Rule | Iterable[Rule],
    resources: Rule | Iterable[Rule],
    client: httpx2.AsyncClient | None,
    base_url: str | None,
    headers: Headers,
    credentials: Mapping[str, security.Secret] | None,
    name: str | None,
    server: Server | None,
    running: Callable[[], AbstractAsyncContextManager[None]] | None,
) -> Server:
    """from_openapi's work; `running`: what the made server's lifespan enters too (an ASGI
    app's own lifespan)."""
    validate(document)
    credentials = dict(credentials or {})
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    picked = chosen(operations(document), include, exclude)
    as_resources = rules(resources, "resources")
    if not picked:
        raise OpenAPIError("include= chose no operation of the document")
    if client is None and base_url is None:
        base_url = server_url(document)
    connection = _Connection(client, base_url)
    if server is None:
        lifespan = _closing(connection, running)
        server = Server(name or str(document["info"]["title"]), lifespan=lifespan)
    names: set[str] = set(server.tools)
    # the headers known now, which may carry a scheme (None: a function's, known per call)
    static = headers if isinstance(headers, Mapping) else ({} if headers is None else None)
    for operation in picked:
        alternative = security.requirement(operation, schemes, credentials, static)
        unique, n = tool_name(operation), 2
        while unique in names:
            unique, n = f"{tool_name(operation)[: NAME_LENGTH - 3]}_{n}", n + 1
        names.add(unique)
        shape = inputs(operation)
        send = _sender(operation, shape, connection, headers, alternative, schemes, credentials)
        if any(matches(rule, operation) for rule in as_resources):
            _add_resource(server, unique, operation, connection.base(), send)
        else:
            _add_tool(server, unique, operation, shape, send)
    return server


def server_url(document: Mapping[str, Any]) -> str:
    """The document's first server URL, its `{variables}` given their defaults."""
    servers = document.get("servers") or [{}]
    url = str(servers[0].get("url", ""))
    for variable, spec in (servers[0].get("variables") or {}).items():
        url = url.replace("{" + variable + "}", str(spec.get("default", "")))
    if not url.startswith(("http://", "https://")):
        raise OpenAPIError("the document names no absolute server URL: pass base_url=")
    return url


def from_asgi(
    app: Any,
    *,
    include: Rule | Iterable[Rule],
    exclude: Rule | Iterable[Rule] = (),
    resources: Rule | Iterable[Rule] = (),
    document: Mapping[str, Any] | None = None,
    headers: Headers = None,
    credentials: Mapping[str, security.Secret] | None = None,
    name: str | None = None,
    server: Server | None = None,
) -> Server:
    """`from_openapi` for a FastAPI or Starlette app in this process: its document from
    `app.openapi()` (or `document=`), its calls through httpx2.ASGITransport. The server's
    lifespan runs the app's (its startup before the first call; its state in every request),
    unless `server=` is given: then run the app's lifespan yourself."""
    import httpx2

    from plainmcp.openapi.asgi import InProcess

    if document is None:
        if not callable(getattr(app, "openapi", None)):
            raise TypeError("from_asgi: the app has no openapi(); pass document=")
        document = app.openapi()
    in_process = InProcess(app)
    transport = httpx2.ASGITransport(app=in_process)
    return _serve(
        document,
        include=include,
        exclude=exclude,
        resources=resources,
        client=httpx2.AsyncClient(transport=transport, base_url="http://asgi"),
        base_url=None,
        headers=headers,
        credentials=credentials,
        name=name,
        server=server,
        running=in_process.running,
    )


def _closing(
    connection: _Connection, running: Callable[[], AbstractAsyncContextManager[None]] | None
) -> Callable[[Server], Any]:
    async def lifespan(app: Server) -> AsyncIterator[None]:
        try:
            if running is None:
                yield None
            else:
                async with running():
                    yield None
        finally:
            await connection.close()

    return lifespan


def _sender(
    operation: Operation,
    shape: Inputs,
    connection: _Connection,
    headers: Headers,
    alternative: Mapping[str, Any] | None,
    schemes: Mapping[str, Any],
    credentials: Mapping[str, security.Secret],
) -> Callable[[Mapping[str, Any]], Awaitable[httpx2.Response]]:
    """The request of one call, sent: its arguments placed, credentials and headers added."""

    async def send(arguments: Mapping[str, Any]) -> httpx2.Response:
        import httpx2

        client = connection.client()
        placed = await security.place(alternative, schemes, credentials)
        extra = await _headers(headers, operation)
        request = calls.request(client, operation, shape, arguments, extra, placed)
        try:
            return await client.send(request)
        except httpx2.HTTPError as exc:
            where = f"{operation.method} {request.url}"
            raise ToolError(f"{where}: the request failed: {type(exc).__name__}: {exc}") from None

    return send


def _add_tool(
    server: Server,
    name: str,
    operation: Operation,
    shape: Inputs,
    send: Callable[[Mapping[str, Any]], Awaitable[httpx2.Response]],
) -> None:
    async def call(**arguments: Any) -> Any:
        return calls.result(operation, await send(arguments))

    server.add_tool(
        call,
        name=name,
        description=description(operation),
        annotations=hints(operation),
        input_schema=shape.schema,
        output_schema=operation.output_schema,
        structured=None if operation.output_schema is not None else False,
    )


def _add_resource(
    server: Server,
    name: str,
    operation: Operation,
    base: str,
    send: Callable[[Mapping[str, Any]], Awaitable[httpx2.Response]],
) -> None:
    variables = reads.check(operation)

    async def fetch(arguments: Mapping[str, Any]) -> Any:
        try:
            response = await send(arguments)
        except ToolError as exc:
            raise ResourceError(exc.message) from None
        return reads.value(operation, response)

    server.add_resource(
        reads.reader(variables, fetch),
        base.rstrip("/") + operation.path,
        name=name,
        description=description(operation),
        mime_type="application/json" if operation.output_schema is not None else None,
    )


async def _headers(headers: Headers, operation: Operation) -> Mapping[str, str]:
    if headers is None:
        return {}
    if isinstance(headers, Mapping):
        return headers
    value = headers(operation)
    if inspect.isawaitable(value):
        value = await value
    return value
