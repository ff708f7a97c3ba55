"""Tools: a Python function plus its MCP definition, argument validation and invocation."""

from __future__ import annotations

import functools
import inspect
import logging
import re
import secrets
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio

from plainmcp import encoding, images
from plainmcp.content import ContentBlock, ContentError, Icon
from plainmcp.context import ClientCapabilityError, context_params
from plainmcp.docstrings import parse_docstring
from plainmcp.headers import check_header_markers
from plainmcp.options import ResultOptions
from plainmcp.refusals import log_refusal
from plainmcp.resources import ResourceError
from plainmcp.results import (
    NOTHING,
    CallResult,
    ToolError,
    ToolResult,
    dumps_data,
    error_result,
    has_block,
    lifted,
    value_content,
)
from plainmcp.schema import (
    ArgumentError,
    InputSpec,
    OutputMismatch,
    OutputSpec,
    input_spec,
    output_spec,
    schema_input_spec,
    schema_output_spec,
)
from plainmcp.workers import run_in_worker

log = logging.getLogger("plainmcp")

NAME_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_ANNOTATION_KEYS = {
    "title": "title",
    "readOnlyHint": "readOnlyHint",
    "read_only_hint": "readOnlyHint",
    "destructiveHint": "destructiveHint",
    "destructive_hint": "destructiveHint",
    "idempotentHint": "idempotentHint",
    "idempotent_hint": "idempotentHint",
    "openWorldHint": "openWorldHint",
    "open_world_hint": "openWorldHint",
}


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """A registered tool. `fn` stays the user's ordinary callable."""

    name: str
    fn: Callable[..., Any]
    description: str | None
    title: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    """The natural schema; `render` wraps or drops it for revisions that need that."""
    annotations: Mapping[str, Any] | None
    icons: tuple[Icon, ...] | None
    meta: Mapping[str, Any] | None
    input: InputSpec
    output: OutputSpec | None
    is_async: bool
    context_params: tuple[str, ...] = ()
    """Parameters annotated `Context`: hidden from the schema, filled in per call."""
    timeout: float | None = None
    """Seconds this tool may run (None: the Server's tool_timeout applies)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """`x-mcp-header` markers: header name (`Mcp-Param-{name}`) -> JSON Pointer into the
    arguments; see plainmcp.headers. Empty when no parameter is mirrored."""


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"invalid tool name {name!r}: use 1-128 characters from A-Z, a-z, 0-9, '_', '-', '.'"
        )
    return name


def _tool_annotations(given: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not given:
        return None
    out: dict[str, Any] = {}
    for key, value in given.items():
        wire = _ANNOTATION_KEYS.get(key)
        if wire is None:
            known = ", ".join(k for k in _ANNOTATION_KEYS if k == _ANNOTATION_KEYS[k])
            raise ValueError(f"unknown tool annotation {key!r}; known: {known}")
        if wire != "title" and not isinstance(value, bool):
            raise ValueError(f"tool annotation {key!r} must be True or False")
        out[wire] = value
    return out


def _is_content_annotation(annotation: Any) -> bool:
    """Return types that are content, not data: they never get an output schema."""
    if isinstance(annotation, type) and (
        issubclass(annotation, ContentBlock | ToolResult) or images.is_image_class(annotation)
    ):
        return True
    return any(_is_content_annotation(arg) for arg in typing.get_args(annotation))


def make_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    title: str | None = None,
    description: str | None = None,
    annotations: Mapping[str, Any] | None = None,
    icons: Sequence[Icon] | None = None,
    meta: Mapping[str, Any] | None = None,
    output_schema: Mapping[str, Any] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    structured: bool | None = None,
    timeout: float | None = None,
) -> Tool:
    """Build a Tool from a function; raises at registration for anything that cannot work."""
    if not callable(fn):
        raise TypeError(f"a tool must be callable, not {type(fn).__name__}")
    name = check_name(name if name is not None else getattr(fn, "__name__", ""))
    doc = parse_docstring(inspect.getdoc(fn))
    if timeout is not None and timeout <= 0:
        raise ValueError(f"tool {name!r}: timeout must be positive, not {timeout!r}")
    hidden = context_params(fn)
    spec = (
        schema_input_spec(input_schema)
        if input_schema is not None
        else input_spec(fn, param_docs=doc.params, hidden=hidden)
    )
    try:
        headers = check_header_markers(spec.schema)
    except ValueError as exc:
        raise ValueError(f"tool {name!r}: {exc}") from None
    output: OutputSpec | None = None
    if output_schema is not None:
        if structured is False:
            raise ValueError("output_schema= and structured=False contradict each other")
        output = schema_output_spec(output_schema)
    elif structured is not False:
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except Exception as exc:  # unresolvable forward references
            raise TypeError(f"tool {name!r}: cannot read type hints: {exc}") from exc
        annotation = hints.get("return", inspect.Signature.empty)
        if not _is_content_annotation(annotation):
            output = output_spec(annotation)
        if structured is True and output is None:
            raise TypeError(
                f"tool {name!r}: structured=True, but no output schema follows from the return"
                " annotation; pass output_schema= or annotate a structured type"
            )
    target = inspect.unwrap(fn)
    return Tool(
        name=name,
        fn=fn,
        description=description if description is not None else (doc.description or None),
        title=title,
        input_schema=spec.schema,
        output_schema=output.schema if output is not None else None,
        annotations=_tool_annotations(annotations),
        icons=tuple(icons) if icons else None,
        meta=dict(meta) if meta else None,
        input=spec,
        output=output,
        is_async=inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(fn),
        context_params=hidden,
        timeout=timeout,
        headers=headers,
    )


# --- invocation ----------------------------------------------------------------------------


def invalid_arguments(tool: str) -> str:
    """The first line of the result for arguments that fail a tool's input schema (the
    command line reads it to exit 2)."""
    return f"Invalid arguments for tool '{tool}':"


def _field_lines(errors: Sequence[Any], whole: str = "(arguments)") -> str:
    return "\n".join(f"- {e.path or whole}: {e.message}" for e in errors)


async def call_tool(
    tool: Tool,
    arguments: Mapping[str, Any],
    options: ResultOptions,
    *,
    mask_errors: bool = False,
    context: Any = None,
    timeout: float | None = None,
) -> CallResult:
    """Validate, run and shape one call. Tool failures come back as isError results.

    `timeout` (seconds) bounds the run: an async tool is cancelled; a sync one cannot be
    interrupted, so its worker thread is abandoned and its result ignored.
    """
    try:
        kwargs = tool.input.validate(arguments)
    except ArgumentError as exc:
        return error_result(f"{invalid_arguments(tool.name)}\n{_field_lines(exc.errors)}")
    for param in tool.context_params:
        kwargs[param] = context
    try:
        if timeout is None:
            value = await _invoke(tool, kwargs)
        else:
            with anyio.move_on_after(timeout) as deadline:
                value = await _invoke(tool, kwargs)
            if deadline.cancelled_caught:
                log.warning("tool %r timed out after %g s", tool.name, timeout)
                return error_result(
                    f"Tool '{tool.name}' timed out after {timeout:g} seconds and was stopped."
                )
    except ToolError as exc:
        log_refusal(f"tool {tool.name!r}", exc)
        return error_result(exc.message)
    except (ClientCapabilityError, ResourceError) as exc:
        # Refusals written for the client (a missing capability, a safe_join refusal): the
        # message is sent even under mask_errors, and the log says it without a traceback.
        log_refusal(f"tool {tool.name!r}", exc)
        if isinstance(exc, ClientCapabilityError) and exc.required is not None:
            raise  # stateless: the server answers -32021
        return error_result(f"Tool '{tool.name}' failed: {type(exc).__name__}: {exc}")
    except Exception as exc:
        return unexpected_failure(tool.name, exc, mask_errors)
    return shape(value, tool, options)


async def _invoke(tool: Tool, kwargs: dict[str, Any]) -> Any:
    if tool.is_async:
        return await tool.fn(**kwargs)
    value = await run_in_worker(functools.partial(tool.fn, **kwargs))
    if inspect.isawaitable(value):
        value = await value
    return value


def unexpected_failure(name: str, exc: BaseException, mask: bool) -> CallResult:
    """The model reads the message; the traceback goes only to stderr."""
    if mask:
        error_id = secrets.token_hex(6)
        log.error("tool %r failed (error id %s)", name, error_id, exc_info=exc)
        return error_result(
            f"Tool '{name}' failed unexpectedly (error id {error_id}); the details are in the"
            " server log."
        )
    log.error("tool %r failed", name, exc_info=exc)
    return error_result(f"Tool '{name}' failed: {type(exc).__name__}: {exc}")


UNSENDABLE_HINT = (
    "; return a str, JSON-able data (dict, list, dataclass, pydantic model), bytes,"
    " or a content block such as Image(data=png_bytes) or File(data=..., mime_type=...)"
)


def shape(value: Any, tool: Tool, options: ResultOptions) -> CallResult:
    """A tool's return value as a CallResult (the table in docs/results.md)."""
    try:
        if isinstance(value, ToolResult):
            return _from_tool_result(value, tool, options)
        if tool.output is not None:
            return _structured(value, tool, options)
        return CallResult(content=value_content(value, options))
    except (encoding.EncodeError, ContentError) as exc:
        reason = f"{exc}{UNSENDABLE_HINT}" if isinstance(exc, encoding.UnknownType) else str(exc)
    except encoding.BlockInValue:  # only ToolResult.structured is encoded without lifting
        reason = "ToolResult.structured holds a content block; put blocks in content="
    log.error("tool %r returned a value that cannot be sent: %s", tool.name, reason)
    return error_result(f"Tool '{tool.name}' returned a value that cannot be sent: {reason}")


def _structured(value: Any, tool: Tool, options: ResultOptions) -> CallResult:
    """A value for a tool with an output schema. Bytes and images inside it are sent as blocks
    after its text, and the value holds a reference to each ("<image block 2>")."""
    if has_block(value, options):
        return error_result(
            f"Tool '{tool.name}' declares structured output but returned content blocks;"
            " return ToolResult(content=..., structured=...) to send both"
        )
    blocks: tuple[ContentBlock, ...] = ()
    try:
        raw = dumps_data(value, options)
    except encoding.BlockInValue:
        value, found = lifted(value, options, position=1)
        raw = encoding.dumps(value, options)
        blocks = tuple(found)
    mismatch = _check(tool, raw, value)
    if mismatch is not None:
        return mismatch
    return CallResult(content=blocks, structured_json=raw, lifted=bool(blocks))


def _from_tool_result(value: ToolResult, tool: Tool, options: ResultOptions) -> CallResult:
    raw = None if value.structured is NOTHING else encoding.dumps(value.structured, options)
    if tool.output is not None and not value.is_error:
        if raw is None:
            return error_result(
                f"Tool '{tool.name}' declares an output schema but returned no structured value"
            )
        mismatch = _check(tool, raw, value.structured)
        if mismatch is not None:
            return mismatch
    return CallResult(
        content=value.content,
        structured_json=raw,
        is_error=value.is_error,
        meta=value.meta,
    )


def _check(tool: Tool, raw: bytes, value: Any) -> CallResult | None:
    assert tool.output is not None
    try:
        tool.output.check_json(raw, value)
    except OutputMismatch as exc:
        log.error("tool %r: result does not match its output schema: %s", tool.name, exc)
        return error_result(
            f"Tool '{tool.name}' returned a value that does not match its output schema:\n"
            + _field_lines(exc.errors, "(return value)")
        )
    return None
