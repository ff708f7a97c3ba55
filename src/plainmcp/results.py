"""Tool results: the ToolResult a tool may return, and the ONE mapping from return values.

The mapping table lives in docs/results.md; tests/test_results.py has a test per row.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from plainmcp import encoding, mime
from plainmcp.content import (
    Audio,
    ContentBlock,
    EmbeddedResource,
    Image,
    Text,
    content_uri,
)
from plainmcp.options import ResultOptions


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


def error_result(message: str) -> CallResult:
    return CallResult(content=(Text(message),), is_error=True)


# --- the mapping ---------------------------------------------------------------------------


def bytes_block(raw: bytes, options: ResultOptions) -> ContentBlock:
    """Returned bytes: sniffed into an image/audio block, else an embedded blob."""
    if options.bytes_as == "base64_text":
        return Text(base64.b64encode(raw).decode("ascii"))
    sniffed = mime.sniff(raw)
    if options.bytes_as == "sniff" and sniffed is not None:
        if sniffed.startswith("image/"):
            return Image(raw, mime_type=sniffed)
        if sniffed.startswith("audio/"):
            return Audio(raw, mime_type=sniffed)
    # "blob" always embeds, but still under the type the bytes declare.
    return EmbeddedResource(
        uri=content_uri(raw), blob=raw, mime_type=sniffed or "application/octet-stream"
    )


def json_text(value: Any, options: ResultOptions) -> str:
    """A value as a text block's text: JSON, except that a JSON string reads as itself."""
    return encoding.as_text(encoding.dumps(value, options), options.json_indent)


_PLAIN = (str, int, float, bool, type(None), dict)


def has_block(value: Any) -> bool:
    """A content block is in `value` or its (nested) lists and tuples."""
    if isinstance(value, ContentBlock):
        return True
    if isinstance(value, list | tuple):
        # Rows of data (dicts, numbers, strings) are the common long list: skip them fast.
        for item in value:
            if type(item) not in _PLAIN and has_block(item):
                return True
    return False


def _flatten(value: Any, options: ResultOptions, out: list[ContentBlock]) -> None:
    if isinstance(value, ContentBlock):
        out.append(value)
    elif isinstance(value, list | tuple) and has_block(value):
        for item in value:
            _flatten(item, options, out)
    else:
        out.extend(value_content(value, options, position=len(out) + 1))


def _lift_blocks(value: Any, blocks: list[ContentBlock], position: int) -> Any:
    """Replace blocks nested in dicts by a reference, collecting them in order.

    `position` is where the JSON text block will sit in `content` (1-based); the blocks follow it.
    """
    if isinstance(value, ContentBlock):
        blocks.append(value)
        return f"<{value.kind} block {position + len(blocks)}>"
    if isinstance(value, dict):
        return {k: _lift_blocks(v, blocks, position) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_lift_blocks(v, blocks, position) for v in value]
    return value


def value_content(
    value: Any, options: ResultOptions, *, position: int = 1
) -> tuple[ContentBlock, ...]:
    """An ordinary return value as content blocks (the table in docs/results.md).

    `position` is where the first block will sit in the result's `content` (1-based), so that
    references to blocks lifted out of a dict name their real place.
    """
    if isinstance(value, str):
        return (Text(value),)
    if isinstance(value, ContentBlock):
        return (value,)
    if isinstance(value, bytes | bytearray | memoryview):
        return (bytes_block(bytes(value), options),)
    if isinstance(value, list | tuple) and has_block(value):
        out: list[ContentBlock] = []
        _flatten(value, options, out)
        return tuple(out) or (Text(""),)
    try:
        return (Text(json_text(value, options)),)
    except encoding.BlockInValue:
        blocks: list[ContentBlock] = []
        lifted = _lift_blocks(value, blocks, position)
        return (Text(json_text(lifted, options)), *blocks)
