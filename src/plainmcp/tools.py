"""Tools: a Python function plus its MCP definition, and the mapping of its return value to a
result. It is called through `invoke.invoke`; its failures are isError results."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, Unpack

from plainmcp import agreement, paging
from plainmcp.context import ClientCapabilityError
from plainmcp.docstrings import parse_docstring
from plainmcp.errors import Failures, ResourceError, field_lines
from plainmcp.invoke import Around, FunctionSpec, function_spec, invoke
from plainmcp.model import encoding, images
from plainmcp.model.blocks import ContentBlock, ContentError, Icon
from plainmcp.model.options import PayloadLimits, ResultOptions, TextFallback, TextMode, text_mode
from plainmcp.model.results import (
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
    InputSpec,
    OutputMismatch,
    OutputSpec,
    input_spec,
    output_spec,
    schema_input_spec,
    schema_output_spec,
)
from plainmcp.scopes import scope_set
from plainmcp.wire.jsonrpc import INTERNAL_ERROR
from plainmcp.wire.param_headers import check_header_markers

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

TaskSupport = Literal["optional", "required"]
"""`@app.tool(task=...)`: whether a call may, or must, run as a task (docs/tasks.md)."""


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Tool:
    """A registered tool. `fn` stays the user's ordinary callable."""

    name: str
    description: str | None
    title: str | None
    annotations: Mapping[str, Any] | None
    icons: tuple[Icon, ...] | None
    meta: Mapping[str, Any] | None
    spec: FunctionSpec
    """How it is called: the function, its Context parameters, validator and timeout."""
    input: InputSpec
    output: OutputSpec | None
    headers: Mapping[str, str] = field(default_factory=dict)
    """`x-mcp-header` markers: header name (`Mcp-Param-{name}`) -> JSON Pointer into the
    arguments; see plainmcp.wire.param_headers. Empty when no parameter is mirrored."""
    scopes: frozenset[str] = frozenset()
    """OAuth scopes a caller's token must hold (plainmcp.scopes); empty: none."""
    limits: PayloadLimits | None = None
    """This tool's payload limits; None: the server's `payload_limits` apply."""
    text_fallback: TextMode | None = None
    """The text block of this tool's structured values; None: the server's ResultOptions say."""
    examples: tuple[dict[str, Any], ...] = ()
    """Sample arguments (`examples=[{...}]`) that `plainmcp check` calls the tool with. No
    revision has a field for them, so they are sent nowhere."""
    paged: bool = False
    """Its return annotation is an iterator: its items are sent as a list, in parts if need be
    (plainmcp.paging)."""
    task: TaskSupport | None = None
    """"optional": a call may run as a task; "required": it always does (a client that cannot
    take a task is refused); None: never (docs/tasks.md)."""

    @property
    def fn(self) -> Callable[..., Any]:
        return self.spec.fn

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.input.schema

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The natural schema; `wire.definitions` wraps or drops it for revisions that need that."""
        return self.output.schema if self.output is not None else None

    @property
    def context_params(self) -> tuple[str, ...]:
        """Parameters annotated `Context`: hidden from the schema, filled in per call."""
        return self.spec.context_params

    @property
    def is_async(self) -> bool:
        return self.spec.is_async

    @property
    def timeout(self) -> float | None:
        """Seconds this tool may run (None: the Server's tool_timeout applies)."""
        return self.spec.timeout

    @property
    def inline(self) -> bool:
        """A plain def run on the event loop (`@app.tool(inline=True)`), not in a worker thread."""
        return self.spec.inline


class ToolFailures(Failures):
    """A tool's failures are isError results the model reads, carried out of `invoke` as a
    ToolError; a ToolError the tool raised is sent as it says."""

    noun = "tool"
    refusals = (ToolError, ClientCapabilityError, ResourceError)

    def error(self, message: str, code: int = INTERNAL_ERROR) -> Exception:
        return ToolError(message)

    def invalid(self, name: str, errors: Sequence[Any]) -> Exception:
        return ToolError(f"{invalid_arguments(name)}\n{field_lines(errors)}")

    def refused(self, name: str, exc: Exception) -> Exception:
        return exc if isinstance(exc, ToolError) else super().refused(name, exc)


FAILURES = ToolFailures()


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


class ToolSettings(TypedDict, total=False):
    """What `@app.tool(...)` takes besides the function (the one list of its settings;
    docs/tools.md says what each does)."""

    name: str | None
    title: str | None
    description: str | None
    annotations: Mapping[str, Any] | None
    icons: Sequence[Icon] | None
    meta: Mapping[str, Any] | None
    output_schema: Mapping[str, Any] | None
    input_schema: Mapping[str, Any] | None
    structured: bool | None
    timeout: float | None
    scopes: Iterable[str] | None
    limits: PayloadLimits | None
    text_fallback: TextFallback | None
    examples: Iterable[Mapping[str, Any]] | None
    inline: bool
    task: TaskSupport | None


def unknown_settings(settings: Mapping[str, Any], known: type, what: str) -> None:
    """TypeError for a keyword the settings do not have (as a Python signature refuses it)."""
    for key in settings:
        if key not in known.__annotations__:
            raise TypeError(f"{what}() got an unexpected keyword argument {key!r}")


def make_tool(fn: Callable[..., Any], **settings: Unpack[ToolSettings]) -> Tool:
    """Build a Tool from a function; raises at registration for anything that cannot work."""
    unknown_settings(settings, ToolSettings, "make_tool")
    name, title, description = (
        settings.get("name"),
        settings.get("title"),
        settings.get("description"),
    )
    annotations, icons, meta = (
        settings.get("annotations"),
        settings.get("icons"),
        settings.get("meta"),
    )
    output_schema, input_schema = settings.get("output_schema"), settings.get("input_schema")
    structured, timeout, scopes = (
        settings.get("structured"),
        settings.get("timeout"),
        settings.get("scopes"),
    )
    limits, text_fallback = settings.get("limits"), settings.get("text_fallback")
    examples, inline = settings.get("examples"), settings.get("inline", False)
    task = settings.get("task")
    if not callable(fn):
        raise TypeError(f"a tool must be callable, not {type(fn).__name__}")
    name = check_name(name if name is not None else getattr(fn, "__name__", ""))
    doc = parse_docstring(inspect.getdoc(fn))
    if task not in (None, "optional", "required"):
        raise ValueError(f"tool {name!r}: task= is 'optional', 'required' or None, not {task!r}")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"tool {name!r}: timeout must be positive, not {timeout!r}")
    if limits is not None and not isinstance(limits, PayloadLimits):
        raise TypeError(
            f"tool {name!r}: limits= takes a PayloadLimits, not {type(limits).__name__}"
        )
    mode = (
        None if text_fallback is None else text_mode(text_fallback, f"tool {name!r}: text_fallback")
    )
    call = function_spec(fn, name, FAILURES, timeout=timeout, inline=inline)
    spec = (
        schema_input_spec(input_schema)
        if input_schema is not None
        else input_spec(fn, param_docs=doc.params, hidden=call.context_params)
    )
    try:
        headers = check_header_markers(spec.schema)
    except ValueError as exc:
        raise ValueError(f"tool {name!r}: {exc}") from None
    output: OutputSpec | None = None
    paged = False
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
        paged, annotation = paging.item_annotation(annotation)
        if not _is_content_annotation(annotation):
            output = output_spec(annotation)
        if structured is True and output is None:
            raise TypeError(
                f"tool {name!r}: structured=True, but no output schema follows from the return"
                " annotation; pass output_schema= or annotate a structured type"
            )
    return Tool(
        name=name,
        description=description if description is not None else (doc.description or None),
        title=title,
        annotations=_tool_annotations(annotations),
        icons=tuple(icons) if icons else None,
        meta=dict(meta) if meta else None,
        spec=dataclasses.replace(call, validate=spec.validate),
        input=spec,
        output=output,
        headers=headers,
        scopes=scope_set(scopes, f"tool {name!r}"),
        limits=limits,
        text_fallback=mode,
        examples=_examples(examples, name),
        paged=paged,
        task=task,
    )


def _examples(given: Iterable[Mapping[str, Any]] | None, name: str) -> tuple[dict[str, Any], ...]:
    """Each example is the arguments of one call: an object with string keys."""
    if given is None:
        return ()
    if isinstance(given, Mapping | str | bytes):
        raise TypeError(f"tool {name!r}: examples= is a list of argument objects, e.g. [{{...}}]")
    out = []
    for example in given:
        if not isinstance(example, Mapping) or not all(isinstance(k, str) for k in example):
            raise TypeError(
                f"tool {name!r}: each example is an object of arguments by name, not {example!r}"
            )
        out.append(dict(example))
    return tuple(out)


# --- invocation ----------------------------------------------------------------------------


def invalid_arguments(tool: str) -> str:
    """The first line of the result for arguments that fail a tool's input schema (the
    command line reads it to exit 2)."""
    return f"Invalid arguments for tool '{tool}':"


async def call_tool(
    tool: Tool,
    arguments: Mapping[str, Any],
    options: ResultOptions,
    *,
    mask_errors: bool = False,
    context: Any = None,
    timeout: float | None = None,
    around: Around | None = None,
) -> CallResult:
    """Validate, run and shape one call. Tool failures come back as isError results.

    `timeout` (seconds) bounds a tool that sets none of its own (see `invoke.invoke`).
    """
    try:
        value = await invoke(tool.spec, arguments, context, mask_errors, timeout, around)  # hot
    except ToolError as exc:
        return error_result(exc.message)
    if type(value) not in _VALUES and paging.is_paged(value):
        return await _paged(value, tool, options, mask_errors)
    return shape(value, tool, options)


_VALUES = (str, dict, list, int, float, bool, type(None), ToolResult)
"""Return values that are never iterators (the common ones, skipped by type alone)."""


async def _paged(value: Any, tool: Tool, options: ResultOptions, mask_errors: bool) -> CallResult:
    """An iterator's items as a list: the structured value (a JSON array even without an output
    schema, so that the guards can cut it at an item)."""
    try:
        items = await paging.drain(value, tool.name, inline=tool.spec.inline)
    except ToolError as exc:
        return error_result(exc.message)
    except Exception as exc:
        failure = FAILURES.unexpected(tool.name, exc, mask_errors)
        return error_result(failure.message if isinstance(failure, ToolError) else str(failure))
    if tool.output is not None:
        return shape(items, tool, options)
    try:
        return CallResult(content=(), structured_json=dumps_data(items, options))
    except (encoding.BlockInValue, encoding.EncodeError):
        return shape(items, tool, options)


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
    if value.content and raw is not None:
        agreement.check(tool, value.content, raw, options)
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
            + field_lines(exc.errors, "(return value)")
        )
    return None
