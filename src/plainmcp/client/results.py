"""Typed results: the server's wire dicts as plainmcp content objects and small dataclasses."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from plainmcp.client.errors import bad_reply
from plainmcp.model.answers import Contents, Message, PromptResult
from plainmcp.model.blocks import (
    Annotations,
    Audio,
    ContentBlock,
    ContentError,
    EmbeddedResource,
    Icon,
    Image,
    ResourceLink,
    Text,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ServerInfo:
    name: str
    version: str
    title: str | None = None
    description: str | None = None
    website_url: str | None = None


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool as `tools/list` described it."""

    name: str
    input_schema: dict[str, Any]
    title: str | None = None
    description: str | None = None
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    icons: tuple[Icon, ...] | None = None
    meta: dict[str, Any] | None = None
    task_support: str | None = None
    """Its `execution.taskSupport` (2025-11-25): "forbidden", "optional" or "required"; None
    when it names none (the same as forbidden)."""


@dataclass(frozen=True, slots=True)
class UnknownContent(ContentBlock):
    """A content block of a type this client does not know; `data` is the wire object."""

    kind: ClassVar[str] = "unknown"
    type: str
    data: Mapping[str, Any]
    annotations: Annotations | None = None
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class CallToolResult:
    """A `tools/call` result. `structured` is the structuredContent as sent (None: none sent);
    `data` is the value it carries, checked against the tool's output schema, unwrapped from a
    `{"result": ...}` wrapper and hydrated (client/structured.py), the same at every revision."""

    content: list[ContentBlock]
    structured: Any = None
    is_error: bool = False
    meta: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    data: Any = field(default=None, compare=False)

    @property
    def text(self) -> str:
        """The text blocks joined with newlines."""
        return "\n".join(b.text for b in self.content if isinstance(b, Text))


class ToolCallError(Exception):
    """A tool's own failure (a result with isError), raised only when the caller asked for it
    (`call_tool(..., raise_on_error=True)`); `result` is the whole result."""

    def __init__(self, tool: str, result: CallToolResult) -> None:
        super().__init__(f"Tool {tool!r} failed: {result.text}")
        self.tool = tool
        self.result = result


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """One resource as `resources/list` described it."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: tuple[Icon, ...] | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ResourceTemplateInfo:
    """One resource template as `resources/templates/list` described it."""

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    annotations: Annotations | None = None
    icons: tuple[Icon, ...] | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PromptArgumentInfo:
    name: str
    title: str | None = None
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, slots=True)
class PromptInfo:
    """One prompt as `prompts/list` described it."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArgumentInfo, ...] = ()
    icons: tuple[Icon, ...] | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ReadResourceResult:
    """A `resources/read` result: each item's text or bytes (`blob`), as plainmcp Contents."""

    contents: list[Contents]
    meta: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """The text items joined with newlines."""
        return "\n".join(c.text for c in self.contents if c.text is not None)


@dataclass(frozen=True, slots=True)
class Completion:
    """A `completion/complete` result; `total` is None when the server did not say."""

    values: list[str]
    total: int | None = None
    has_more: bool = False


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list: its items and the cursor of the next page (None: the last)."""

    items: list[T]
    next_cursor: str | None = None


def _b64(value: object, where: str) -> bytes:
    if not isinstance(value, str):
        raise bad_reply(f"{where} must be base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise bad_reply(f"{where} is not valid base64 ({exc})") from None


def _annotations(block: Mapping[str, Any]) -> Annotations | None:
    raw = block.get("annotations")
    if not isinstance(raw, dict):
        return None
    try:
        return Annotations(
            audience=raw.get("audience"),
            priority=raw.get("priority"),
            last_modified=raw.get("lastModified"),
        )
    except (ContentError, TypeError):
        return None


def _meta(obj: Mapping[str, Any]) -> dict[str, Any] | None:
    meta = obj.get("_meta")
    return meta if isinstance(meta, dict) else None


def _icons(value: object) -> tuple[Icon, ...] | None:
    if not isinstance(value, list):
        return None
    icons = []
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("src"), str):
            sizes = item.get("sizes")
            icons.append(
                Icon(
                    src=item["src"],
                    mime_type=item.get("mimeType"),
                    sizes=tuple(sizes) if isinstance(sizes, list) else None,
                    theme=item.get("theme"),
                )
            )
    return tuple(icons) or None


def _media(cls: type[Image] | type[Audio], block: Mapping[str, Any]) -> Image | Audio:
    raw = _b64(block.get("data"), f"{block['type']} data")
    mime_type = block.get("mimeType")
    if not isinstance(mime_type, str):
        raise bad_reply(f"{block['type']} block without mimeType")
    annotations, meta = _annotations(block), _meta(block)
    try:
        return cls(raw, mime_type=mime_type, annotations=annotations, meta=meta)
    except ContentError:
        # Keep what the server sent, even when its declared type and the bytes disagree.
        media = object.__new__(cls)
        for name, value in (
            ("data", raw),
            ("mime_type", mime_type),
            ("annotations", annotations),
            ("meta", meta),
        ):
            object.__setattr__(media, name, value)
        return media


def parse_block(block: object) -> ContentBlock:
    """One wire content block to its plainmcp object."""
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        raise bad_reply("a content block must be an object with a type")
    kind = block["type"]
    try:
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise bad_reply("text block without text")
            return Text(text, annotations=_annotations(block), meta=_meta(block))
        if kind == "image":
            return _media(Image, block)
        if kind == "audio":
            return _media(Audio, block)
        if kind == "resource":
            res = block.get("resource")
            if not isinstance(res, dict):
                raise bad_reply("resource block without resource")
            blob = _b64(res["blob"], "resource blob") if "blob" in res else None
            return EmbeddedResource(
                uri=res.get("uri"),  # type: ignore[arg-type]
                text=res.get("text"),
                blob=blob,
                mime_type=res.get("mimeType"),
                annotations=_annotations(block),
                meta=_meta(block),
                resource_meta=_meta(res),
            )
        if kind == "resource_link":
            return ResourceLink(
                uri=block.get("uri"),  # type: ignore[arg-type]
                name=block.get("name"),  # type: ignore[arg-type]
                title=block.get("title"),
                description=block.get("description"),
                mime_type=block.get("mimeType"),
                size=block.get("size"),
                annotations=_annotations(block),
                icons=_icons(block.get("icons")),
                meta=_meta(block),
            )
    except ContentError as exc:
        raise bad_reply(f"{kind} block: {exc}") from None
    return UnknownContent(kind, block, _annotations(block), _meta(block))


def parse_call_result(result: Mapping[str, Any]) -> CallToolResult:
    """A wire CallToolResult to its typed form."""
    content = result.get("content")
    if not isinstance(content, list):
        raise bad_reply("tools/call result without a content array")
    return CallToolResult(
        content=[parse_block(b) for b in content],
        structured=result.get("structuredContent"),
        is_error=result.get("isError") is True,
        meta=_meta(result),
        raw=dict(result),
    )


def parse_tool(tool: object) -> ToolInfo:
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        raise bad_reply("a tool must be an object with a name")
    schema = tool.get("inputSchema")
    output = tool.get("outputSchema")
    annotations = tool.get("annotations")
    return ToolInfo(
        name=tool["name"],
        input_schema=schema if isinstance(schema, dict) else {"type": "object"},
        title=tool.get("title"),
        description=tool.get("description"),
        output_schema=output if isinstance(output, dict) else None,
        annotations=annotations if isinstance(annotations, dict) else None,
        icons=_icons(tool.get("icons")),
        meta=_meta(tool),
        task_support=_task_support(tool.get("execution")),
    )


def _task_support(execution: object) -> str | None:
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if isinstance(support, str) else None


def _str(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _named(obj: object, what: str, key: str = "name") -> Mapping[str, Any]:
    if not isinstance(obj, dict) or not isinstance(obj.get(key), str):
        raise bad_reply(f"a {what} must be an object with a {key}")
    return obj


def parse_resource(resource: object) -> ResourceInfo:
    res = _named(resource, "resource")
    if not isinstance(res.get("uri"), str):
        raise bad_reply("a resource must have a uri")
    size = res.get("size")
    return ResourceInfo(
        uri=res["uri"],
        name=res["name"],
        title=_str(res, "title"),
        description=_str(res, "description"),
        mime_type=_str(res, "mimeType"),
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
        annotations=_annotations(res),
        icons=_icons(res.get("icons")),
        meta=_meta(res),
    )


def parse_resource_template(template: object) -> ResourceTemplateInfo:
    res = _named(template, "resource template")
    if not isinstance(res.get("uriTemplate"), str):
        raise bad_reply("a resource template must have a uriTemplate")
    return ResourceTemplateInfo(
        uri_template=res["uriTemplate"],
        name=res["name"],
        title=_str(res, "title"),
        description=_str(res, "description"),
        mime_type=_str(res, "mimeType"),
        annotations=_annotations(res),
        icons=_icons(res.get("icons")),
        meta=_meta(res),
    )


def parse_prompt(prompt: object) -> PromptInfo:
    raw = _named(prompt, "prompt")
    arguments = raw.get("arguments")
    return PromptInfo(
        name=raw["name"],
        title=_str(raw, "title"),
        description=_str(raw, "description"),
        arguments=tuple(
            PromptArgumentInfo(
                name=arg["name"],
                title=_str(arg, "title"),
                description=_str(arg, "description"),
                required=arg.get("required") is True,
            )
            for arg in (_named(a, "prompt argument") for a in arguments or [])
        )
        if isinstance(arguments, list)
        else (),
        icons=_icons(raw.get("icons")),
        meta=_meta(raw),
    )


def parse_contents(item: object) -> Contents:
    raw = _named(item, "resource contents item", "uri")
    blob = _b64(raw["blob"], "resource blob") if "blob" in raw else None
    try:
        return Contents(
            uri=raw["uri"],
            text=raw.get("text") if blob is None else None,
            blob=blob,
            mime_type=_str(raw, "mimeType"),
            meta=_meta(raw),
        )
    except (TypeError, ValueError) as exc:
        raise bad_reply(f"resource contents of {raw['uri']!r}: {exc}") from None


def parse_read_result(result: Mapping[str, Any]) -> ReadResourceResult:
    contents = result.get("contents")
    if not isinstance(contents, list):
        raise bad_reply("resources/read result without a contents array")
    return ReadResourceResult([parse_contents(c) for c in contents], _meta(result))


def parse_prompt_result(result: Mapping[str, Any]) -> PromptResult:
    """A `prompts/get` result as the PromptResult a prompt function could have returned."""
    messages = result.get("messages")
    if not isinstance(messages, list):
        raise bad_reply("prompts/get result without a messages array")
    parsed = []
    for message in messages:
        if not isinstance(message, dict):
            raise bad_reply("a prompt message must be an object")
        try:
            role = message.get("role")
            parsed.append(Message(role, parse_block(message.get("content"))))  # type: ignore[arg-type]
        except (TypeError, ValueError) as exc:
            raise bad_reply(str(exc)) from None
    return PromptResult(tuple(parsed), _str(result, "description"), _meta(result))


def parse_completion(result: Mapping[str, Any]) -> Completion:
    completion = result.get("completion")
    values = completion.get("values") if isinstance(completion, dict) else None
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise bad_reply("completion/complete result without a completion.values string array")
    assert isinstance(completion, dict)
    total = completion.get("total")
    return Completion(
        values=values,
        total=total if isinstance(total, int) and not isinstance(total, bool) else None,
        has_more=completion.get("hasMore") is True,
    )
