"""One tool call as one HTTP request (arguments put where the operation says), and its response
as what the model reads: JSON as a value, an HTTP error as an isError result with the status,
the reason and the start of the body."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from plainmcp.model.blocks import File
from plainmcp.model.results import ToolError, ToolResult
from plainmcp.openapi.document import Operation
from plainmcp.openapi.inputs import Inputs
from plainmcp.openapi.security import Placed

if TYPE_CHECKING:
    import httpx2

EXCERPT = 2000
"""Characters of an error response's body the model is shown."""


def request(
    client: httpx2.AsyncClient,
    operation: Operation,
    inputs: Inputs,
    arguments: Mapping[str, Any],
    headers: Mapping[str, str],
    placed: Placed,
) -> httpx2.Request:
    path = operation.path
    query: list[tuple[str, str | int | float | bool | None]] = list(placed.query.items())
    sent_headers = {**headers, **placed.headers}
    cookies = dict(placed.cookies)
    body: dict[str, Any] = {}
    for slot in inputs.slots:
        if slot.argument not in arguments:
            continue
        value = arguments[slot.argument]
        if slot.location == "path":
            path = path.replace("{" + slot.name + "}", quote(_text(value), safe=""))
        elif slot.location == "query":
            values = value if isinstance(value, list) else [value]
            query.extend((slot.name, _text(v)) for v in values)
        elif slot.location == "header":
            sent_headers[slot.name] = _text(value)
        elif slot.location == "cookie":
            cookies[slot.name] = _text(value)
        else:
            body = _body(operation, inputs, value)
    if cookies:
        sent_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    return client.build_request(
        operation.method, path, params=query or None, headers=sent_headers, **body
    )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _body(operation: Operation, inputs: Inputs, value: Any) -> dict[str, Any]:
    if operation.body_type == "application/json":
        return {"json": value}
    if not isinstance(value, dict):
        raise ToolError(f"body: a {operation.body_type} body is an object of fields")
    fields = {  # an array is one part (or pair) per item, as forms send them
        k: [_text(item) for item in v] if isinstance(v, list) else _text(v)
        for k, v in value.items()
        if k not in inputs.binary_fields
    }
    if operation.body_type == "application/x-www-form-urlencoded":
        return {"data": fields}
    files = {}
    for name, media_type in inputs.binary_fields.items():
        if name in value:
            try:
                data = base64.b64decode(str(value[name]), validate=True)
            except binascii.Error:
                raise ToolError(f"body.{name}: not base64 text") from None
            files[name] = (name, data, media_type)
    return {"data": fields, "files": files}


def result(operation: Operation, response: httpx2.Response) -> Any:
    """A 2xx response's value (JSON, text or a file); any other status an isError result."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if not response.is_success:
        excerpt = response.text[:EXCERPT]
        more = " (cut)" if len(response.text) > EXCERPT else ""
        head = f"HTTP {response.status_code} {response.reason_phrase}"
        where = f"{operation.method} {response.request.url.path}"
        return ToolResult(f"{head} from {where}{more}\n{excerpt}".rstrip("\n"), is_error=True)
    if not response.content:
        if operation.output_schema is not None:
            raise ToolError(f"HTTP {response.status_code}: the response has no JSON body")
        return f"HTTP {response.status_code} {response.reason_phrase}"
    if kind == "application/json" or kind.endswith("+json"):
        return response.json()
    if operation.output_schema is not None:
        raise ToolError(f"HTTP {response.status_code}: expected JSON, got {kind or 'no type'}")
    if not kind or kind.startswith("text/") or kind.endswith(("xml", "yaml")):
        return response.text
    return File(data=response.content, mime_type=kind)
