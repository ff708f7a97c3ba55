"""Tool results: the ToolResult a tool may return, and the ONE mapping from return values.

The mapping table lives in docs/results.md; tests/test_results.py has a test per row.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from plainmcp.model import encoding, images, mime
from plainmcp.model.blocks import (
    ContentBlock,
    EmbeddedResource,
    Image,
    Text,
    as_media,
    content_uri,
)
from plainmcp.model.options import ResultOptions


class _Nothing:
    """Marks 'no structured value' (None is a legitimate structured value)."""

    _instance: _Nothing | None = None

    def __new__(cls) -> _Nothing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOTHING"

    def __bool__(self) -> bool:
        return False


NOTHING: Final = _Nothing()

ContentLike = str | ContentBlock | Iterable[str | ContentBlock]


@dataclass(frozen=True, slots=True, init=False)
class ToolResult:
    """A complete tool result, when a plain return value is not enough.

    `content` takes a string, a block, or a list of them; `structured` any JSON-able value.
    """

    content: tuple[ContentBlock, ...]
    structured: Any
    is_error: bool
    meta: Mapping[str, Any] | None

    def __init__(
        self,
        content: ContentLike | None = None,
        *,
        structured: Any = NOTHING,
        is_error: bool = False,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        object.__setattr__(self, "content", _blocks(content))
        object.__setattr__(self, "structured", structured)
        object.__setattr__(self, "is_error", bool(is_error))
        object.__setattr__(self, "meta", meta)


def _blocks(content: ContentLike | None) -> tuple[ContentBlock, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (Text(content),)
    if isinstance(content, ContentBlock):
        return (content,)
    blocks: list[ContentBlock] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(Text(item))
        elif isinstance(item, ContentBlock):
            blocks.append(item)
        else:
            raise TypeError(
                f"ToolResult content takes strings and content blocks, not {type(item).__name__}"
            )
    return tuple(blocks)


class ToolError(Exception):
    """Raise it in a tool to fail with a message the model reads (an isError result)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(slots=True)
class CallResult:
    """A result ready to render: content blocks plus the structured value as JSON bytes.
    Built once per call and not changed afterwards (not frozen: that costs on the hot path)."""

    content: tuple[ContentBlock, ...]
    structured_json: bytes | None = None
    is_error: bool = False
    meta: Mapping[str, Any] | None = None
    lifted: bool = False
    """`content` holds the blocks lifted out of the structured value (bytes, images): they
    follow its text block, which the renderer writes first as for any structured value."""


def error_result(message: str) -> CallResult:
    return CallResult(content=(Text(message),), is_error=True)


# --- the mapping ---------------------------------------------------------------------------


def bytes_block(raw: bytes, options: ResultOptions) -> ContentBlock:
    """Returned bytes: sniffed into an image/audio block, else an embedded blob."""
    if options.bytes_as == "base64_text":
        return Text(base64.b64encode(raw).decode("ascii"))
    sniffed = mime.sniff(raw)
    if options.bytes_as == "sniff" and sniffed is not None:
        media = as_media(raw, sniffed)
        if media is not None:
            return media
    # "blob" always embeds, but still under the type the bytes declare.
    return EmbeddedResource(
        uri=content_uri(raw), blob=raw, mime_type=sniffed or "application/octet-stream"
    )


def json_text(value: Any, options: ResultOptions) -> str:
    """A value as a text block's text: JSON, except that a JSON string reads as itself."""
    return encoding.as_text(encoding.dumps(value, options), options.json_indent)


_PLAIN = (str, int, float, bool, type(None), dict)
_BINARY = (bytes, bytearray, memoryview)


def is_media(value: Any, options: ResultOptions) -> bool:
    """Content rather than data: a block, bytes (unless sent as base64 text) or an image
    object (a PIL image, a matplotlib Figure or Axes)."""
    if isinstance(value, ContentBlock):
        return True
    if isinstance(value, _BINARY):
        return options.bytes_as != "base64_text"
    return images.is_image_object(value)


def media_block(value: Any, options: ResultOptions) -> ContentBlock:
    """The block for a value `is_media` accepts: bytes are sniffed, image objects drawn as PNG."""
    if isinstance(value, ContentBlock):
        return value
    if isinstance(value, _BINARY):
        return bytes_block(bytes(value), options)
    return Image(value)


def has_block(value: Any, options: ResultOptions) -> bool:
    """`value` is media, or a list or tuple with media in it or in its nested lists."""
    if type(value) in _PLAIN:
        return False
    if isinstance(value, list | tuple):
        # Rows of data are the common long list: plain values and rows of one class (a
        # dataclass, a model) are skipped by their type alone, in a plain loop (any() would
        # cost a generator frame per row).
        for item in value:
            cls = type(item)
            if cls in _PLAIN:
                continue
            may = _MAY_HOLD.get(cls)
            if may is None:
                may = _may_hold(cls)
            if may and has_block(item, options):
                return True
        return False
    return is_media(value, options)


_MAY_HOLD: dict[type, bool] = {}


def _may_hold(cls: type) -> bool:
    """Whether instances of `cls` can be media or lists holding it (cached per class)."""
    if len(_MAY_HOLD) >= 1024:  # classes made on the fly must not grow the cache without end
        _MAY_HOLD.clear()
    may = _MAY_HOLD[cls] = issubclass(
        cls, ContentBlock | list | tuple | bytes | bytearray | memoryview
    ) or images.is_image_class(cls)
    return may


def _flatten(value: Any, options: ResultOptions, out: list[ContentBlock]) -> None:
    if isinstance(value, list | tuple) and has_block(value, options):
        for item in value:
            _flatten(item, options, out)
    elif type(value) not in _PLAIN and is_media(value, options):
        out.append(media_block(value, options))
    else:
        out.extend(value_content(value, options, position=len(out) + 1))


def _detect(value: Any) -> Any:
    raise encoding.BlockInValue


def lifted(value: Any, options: ResultOptions, position: int) -> tuple[Any, list[ContentBlock]]:
    """`value` as plain JSON data in which each block, bytes value and image object is replaced
    by a reference such as "<image block 2>", and the blocks they become, in order.

    `position` is where the JSON text block will sit in `content` (1-based); the blocks follow it.
    """
    blocks: list[ContentBlock] = []

    def lift(media: Any) -> str:
        block = media_block(media, options)
        blocks.append(block)
        return f"<{block.kind} block {position + len(blocks)}>"

    return encoding.to_jsonable(value, options, lift), blocks


def dumps_data(value: Any, options: ResultOptions) -> bytes:
    """JSON of a value that holds no media; BlockInValue when it does (then use `lifted`)."""
    return encoding.dumps(value, options, lift=_detect)


def value_content(
    value: Any, options: ResultOptions, *, position: int = 1
) -> tuple[ContentBlock, ...]:
    """An ordinary return value as content blocks (the table in docs/results.md).

    `position` is where the first block will sit in the result's `content` (1-based), so that
    references to blocks lifted out of a dict name their real place.
    """
    # The common values (text, numbers, dicts of data) pay a few type checks here and one orjson
    # call; media inside a dict is found by that call (its `default` hook), at no cost otherwise.
    if isinstance(value, str):
        return (Text(value),)
    if isinstance(value, ContentBlock):
        return (value,)
    if isinstance(value, _BINARY):
        return (bytes_block(bytes(value), options),)
    if isinstance(value, list | tuple) and has_block(value, options):
        out: list[ContentBlock] = []
        _flatten(value, options, out)
        return tuple(out) or (Text(""),)
    try:
        return (Text(encoding.as_text(dumps_data(value, options), options.json_indent)),)
    except encoding.BlockInValue:
        if images.is_image_object(value):
            return (media_block(value, options),)
        plain, blocks = lifted(value, options, position)
        return (Text(json_text(plain, options)), *blocks)
