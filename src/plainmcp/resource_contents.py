"""What a resource read returns: the `Contents` a static value or a function's return value
becomes, and `safe_join` for functions that serve files. No I/O besides `safe_join`'s
resolving of paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from plainmcp.errors import ResourceError
from plainmcp.model import encoding, mime
from plainmcp.model.answers import Contents
from plainmcp.model.blocks import EmbeddedResource, Media, Text
from plainmcp.model.options import ResultOptions
from plainmcp.wire.jsonrpc import INVALID_PARAMS

__all__ = ["Contents", "safe_join", "static_size", "static_type", "static_value", "to_contents"]

DEFAULT_TEXT_TYPE = "text/plain"
DEFAULT_JSON_TYPE = "application/json"
DEFAULT_BINARY_TYPE = "application/octet-stream"


def safe_join(root: Path | str, *parts: str) -> Path:
    """`root / parts`, resolved, refusing (ResourceError) anything that lands outside `root`.

    Symlinks are followed before the check, so a link pointing out of `root` is refused too.
    The message never shows `root`: the client should not learn where files live.
    """
    base = Path(root).resolve()
    shown = "/".join(parts)
    if any("\x00" in part for part in parts):
        raise ResourceError(f"invalid path {shown!r}", code=INVALID_PARAMS)
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base):
        raise ResourceError(f"path {shown!r} is outside the served directory", code=INVALID_PARAMS)
    return target


# --- static values ---------------------------------------------------------------------------


def static_value(value: Any, what: str) -> Any:
    """Check a static value once, at registration, so that reading it cannot fail."""
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str | bytes | Contents | EmbeddedResource | Text | Media):
        return value
    try:
        encoding.dumps(value, ResultOptions())
    except (encoding.EncodeError, encoding.BlockInValue) as exc:
        raise TypeError(f"{what}: a static value must be text, bytes or JSON-able: {exc}") from None
    return value


def static_size(value: Any) -> int | None:
    """The size a listing announces for a static value (None when it is not known)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, bytes | bytearray | memoryview):
        return len(bytes(value))
    if isinstance(value, EmbeddedResource):
        if value.blob is not None:
            return len(value.blob)
        return len((value.text or "").encode("utf-8"))
    return None


def static_type(value: Any) -> str | None:
    """The MIME type a listing announces for a static value given none."""
    if isinstance(value, str | Text):
        return DEFAULT_TEXT_TYPE
    if isinstance(value, bytes | bytearray | memoryview):
        return mime.sniff(bytes(value)) or DEFAULT_BINARY_TYPE
    if isinstance(value, EmbeddedResource | Contents):
        return value.mime_type
    if isinstance(value, Media):
        return value.mime_type
    return DEFAULT_JSON_TYPE


# --- a read's value --------------------------------------------------------------------------


def to_contents(
    value: Any, uri: str, declared: str | None, options: ResultOptions
) -> list[Contents]:
    """A read's value as contents; the declared MIME type wins, else a default by kind:

    | value                              | contents                                          |
    |------------------------------------|---------------------------------------------------|
    | str                                | one text item, `mime_type` or text/plain          |
    | bytes                              | one blob, `mime_type` or the sniffed type         |
    | Contents, or a list of Contents /  | as they are; embedded resources in a list keep    |
    | EmbeddedResource                   | their own URIs                                    |
    | EmbeddedResource (File), Text,     | one item at the requested URI                     |
    | Image, Audio                       |                                                   |
    | anything else JSON-able            | JSON text (`options`), `mime_type` or             |
    |                                    | application/json                                  |
    """
    if isinstance(value, str):
        return [Contents(uri, text=value, mime_type=declared or DEFAULT_TEXT_TYPE)]
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        found = declared or mime.sniff(raw) or DEFAULT_BINARY_TYPE
        return [Contents(uri, blob=raw, mime_type=found)]
    if isinstance(value, Contents):
        return [value]
    if isinstance(value, EmbeddedResource | Text | Media):
        # A single block stands for the resource being read, so it takes the requested URI.
        return [_from_block(value, uri, declared)]
    if isinstance(value, list | tuple) and any(_is_item(v) for v in value):
        if not all(_is_item(v) for v in value):
            raise TypeError("a list of contents may hold only Contents and EmbeddedResource")
        # In a list, each embedded resource is a resource of its own and keeps its URI.
        return [v if isinstance(v, Contents) else _from_block(v, None, None) for v in value]
    raw_json = encoding.dumps(value, options, indent=options.json_indent)
    return [Contents(uri, text=raw_json.decode(), mime_type=declared or DEFAULT_JSON_TYPE)]


def _is_item(value: Any) -> bool:
    return isinstance(value, Contents | EmbeddedResource)


def _from_block(
    value: EmbeddedResource | Text | Media, uri: str | None, declared: str | None
) -> Contents:
    if isinstance(value, EmbeddedResource):
        return Contents(
            uri or value.uri,
            text=value.text,
            blob=value.blob,
            mime_type=value.mime_type or declared,
            meta=value.resource_meta,
        )
    if uri is None:  # pragma: no cover - lists take only Contents and EmbeddedResource
        raise TypeError("a content block in a list needs its own URI")
    if isinstance(value, Text):
        return Contents(uri, text=value.text, mime_type=declared or DEFAULT_TEXT_TYPE)
    return Contents(uri, blob=value.data, mime_type=value.mime_type)
