"""Servers from OpenAPI documents and ASGI apps (the openapi extra; docs/composition.md, "From
OpenAPI"): `from_openapi(document, include=[...])`, `from_asgi(app, include=[...])`."""

from plainmcp.openapi.build import from_asgi, from_openapi, tool_name
from plainmcp.openapi.document import OpenAPIError, Operation, Parameter
from plainmcp.openapi.reads import SAFE_GETS
from plainmcp.openapi.select import ALL, Rule

__all__ = [
    "ALL",
    "SAFE_GETS",
    "OpenAPIError",
    "Operation",
    "Parameter",
    "Rule",
    "from_asgi",
    "from_openapi",
    "tool_name",
]
