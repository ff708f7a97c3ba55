"""Safe GETs as resources: an operation the `resources=` rules choose is read, not called.
Its URI is the URL it GETs (`{name}` for each path parameter: a template); a status other
than 2xx fails the read with the status, the reason and the start of the body (a 4xx as
invalid params: the URI asked for what the API refuses)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any

from plainmcp.errors import ResourceError
from plainmcp.openapi.calls import EXCERPT
from plainmcp.openapi.document import OpenAPIError, Operation
from plainmcp.wire.jsonrpc import INVALID_PARAMS

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def SAFE_GETS(operation: Operation) -> bool:
    """The rule `resources=SAFE_GETS`: a GET that needs no argument besides its path
    parameters (a resource's only arguments are its URI's variables)."""
    return operation.method == "GET" and all(
        p.location == "path" or not p.required for p in operation.parameters
    )


def check(operation: Operation) -> tuple[str, ...]:
    """The path parameters that become the template's variables; OpenAPIError when the
    operation cannot be a resource."""
    name = operation.operation_id or f"{operation.method} {operation.path}"
    if operation.method != "GET":
        raise OpenAPIError(f"operation {name!r}: only a GET can be a resource")
    needed = [p.name for p in operation.parameters if p.required and p.location != "path"]
    if needed or operation.body_required:
        raise OpenAPIError(
            f"operation {name!r} needs {', '.join(needed) or 'a body'}: a resource is read with"
            " its URI's variables only; serve it as a tool"
        )
    variables = tuple(p.name for p in operation.parameters if p.location == "path")
    for variable in variables:
        if not _VARIABLE.fullmatch(variable):
            raise OpenAPIError(f"operation {name!r}: {variable!r} cannot be a URI variable")
    return variables


def reader(
    variables: tuple[str, ...], fetch: Callable[[dict[str, Any]], Awaitable[Any]]
) -> Callable[..., Awaitable[Any]]:
    """A read function whose keyword parameters are the template's variables."""

    async def read(**arguments: Any) -> Any:
        return await fetch(arguments)

    parameters = [inspect.Parameter(v, inspect.Parameter.KEYWORD_ONLY) for v in variables]
    read.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    read.__annotations__ = {v: str for v in variables}
    return read


def value(operation: Operation, response: Any) -> str | bytes:
    """A 2xx response's body as the read's value: text for text and JSON, else bytes."""
    if not response.is_success:
        head = f"HTTP {response.status_code} {response.reason_phrase}"
        where = f"{operation.method} {response.request.url.path}"
        message = f"{head} from {where}\n{response.text[:EXCERPT]}".rstrip("\n")
        if response.is_client_error:  # the URI asked for what the API refuses
            raise ResourceError(message, code=INVALID_PARAMS)
        raise ResourceError(message)
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if not kind or kind.startswith("text/") or "json" in kind or kind.endswith(("xml", "yaml")):
        return str(response.text)
    return bytes(response.content)
