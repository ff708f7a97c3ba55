"""A tool's structured value as the caller wants it (`CallToolResult.data`): checked against the
tool's output schema, unwrapped from the `{"result": ...}` that carries a non-object value to
revisions whose structuredContent must be an object, and hydrated (or validated into the
caller's own type), so the same test reads the same value at every revision."""

from __future__ import annotations

import functools
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from plainmcp.client.errors import ConnectionClosed, McpError
from plainmcp.client.hydrate import hydrate
from plainmcp.client.results import ToolInfo
from plainmcp.schema.errors import FieldError
from plainmcp.schema.refs import inline_refs
from plainmcp.schema.validation import field_errors, jsonschema_check
from plainmcp.wire.jsonrpc import INTERNAL_ERROR

__all__ = ["OutputSchemas", "is_wrapped", "unwrap"]

Fetch = Callable[[], Awaitable[list[ToolInfo]]]
_NO_SCHEMA = object()


def is_wrapped(schema: Mapping[str, Any] | None) -> bool:
    """The schema of an object whose one (required) property is `result`: how plainmcp, the
    official SDK and FastMCP carry a non-object value where structuredContent is an object."""
    if schema is None or schema.get("type") != "object":
        return False
    properties = schema.get("properties")
    return (
        isinstance(properties, Mapping)
        and list(properties) == ["result"]
        and schema.get("required") == ["result"]
    )


def unwrap(value: Any, schema: Mapping[str, Any] | None) -> tuple[Any, Mapping[str, Any] | None]:
    """The value a structured result carries, and the schema of that value."""
    if is_wrapped(schema) and isinstance(value, dict) and list(value) == ["result"]:
        assert schema is not None
        inner = schema["properties"]["result"]
        return value["result"], inner if isinstance(inner, Mapping) else None
    return value, schema


class OutputSchemas:
    """The output schemas of a session's tools, from `tools/list`: fetched when a structured
    result needs one, and again when a result does not fit the schema remembered (the tool may
    have changed since)."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._known: dict[str, Mapping[str, Any] | None] | None = None

    def remember(self, tools: list[ToolInfo]) -> None:
        self._known = {t.name: t.output_schema for t in tools}

    async def data(self, tool: str, structured: Any, result_type: Any = None) -> Any:
        """`structured` checked, unwrapped and hydrated; McpError when it does not fit."""
        fetched = False
        if self._known is None or tool not in self._known:
            await self._refresh()
            fetched = True
        schema = self._schema(tool)
        errors = _check(schema, structured)
        if errors and not fetched:
            await self._refresh()
            schema = self._schema(tool)
            errors = _check(schema, structured)
        if errors:
            raise _mismatch(
                f"the structured content of tool {tool!r} does not match its output schema", errors
            )
        # Refs inlined first: the wrapped value's schema may refer into the wrapper's $defs.
        value, value_schema = unwrap(structured, _inlined(schema))
        if result_type is not None:
            try:
                return _adapter(result_type).validate_python(value)
            except ValidationError as exc:
                raise _mismatch(
                    f"the structured content of tool {tool!r} is no {_name(result_type)}",
                    field_errors(exc),
                ) from None
        return hydrate(value, value_schema, tool)

    def _schema(self, tool: str) -> Mapping[str, Any] | None:
        return (self._known or {}).get(tool)

    async def _refresh(self) -> None:
        try:
            self.remember(await self._fetch())
        except ConnectionClosed:
            raise
        except McpError:  # a server that cannot list its tools: the values stay unchecked
            self._known = {}


def _check(schema: Mapping[str, Any] | None, value: Any) -> list[FieldError]:
    if schema is None:
        return []
    check = _checker(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS))
    return check(value) if check is not None else []


@functools.lru_cache(maxsize=256)
def _checker(schema_json: bytes) -> Callable[[Any], list[FieldError]] | None:
    """The jsonschema check of a schema (none without the `validation` extra, or when the
    server's schema is itself invalid: that is no reason to refuse its results)."""
    try:
        return jsonschema_check(orjson.loads(schema_json), "output")
    except ValueError:
        return None


def _inlined(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if schema is None:
        return None
    return _cached_inline(orjson.dumps(schema))  # key order kept: the fields' order


@functools.lru_cache(maxsize=256)
def _cached_inline(schema_json: bytes) -> Mapping[str, Any]:
    return inline_refs(orjson.loads(schema_json))


def _adapter(result_type: Any) -> TypeAdapter[Any]:
    try:
        return _cached_adapter(result_type)
    except TypeError:  # an unhashable type (Annotated with a list in it, say): not cached
        return TypeAdapter(result_type)


@functools.lru_cache(maxsize=256)
def _cached_adapter(result_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(result_type)


def _name(result_type: Any) -> str:
    if typing.get_origin(result_type) is None and isinstance(result_type, type):
        return result_type.__name__
    return repr(result_type)  # list[str], not list


def _mismatch(what: str, errors: list[FieldError]) -> McpError:
    detail = "; ".join(str(e) for e in errors)
    return McpError(
        INTERNAL_ERROR,
        f"Invalid response from server: {what}: {detail}",
        {"errors": [{"path": e.path, "message": e.message} for e in errors]},
    )
