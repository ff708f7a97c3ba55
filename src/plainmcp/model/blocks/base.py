"""Content blocks: what a tool result carries (text, image, audio, resources, resource links).

These are plain frozen objects with Python names. Binary data is held as raw bytes and
base64-encoded only when rendered, and every block is checked when it is built, so a block that
exists is a block that can go on the wire.
"""

from __future__ import annotations

import base64
import binascii
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeAlias, TypeGuard

from plainmcp.model import images, mime
from plainmcp.model.images import ImageObject

if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

Role = Literal["user", "assistant"]


class ContentError(ValueError):
    """A content block could not be built from what was given."""


@dataclass(frozen=True, slots=True)
class Icon:
    """An icon for a tool, resource or server (shown by hosts that support icons)."""

    src: str
    mime_type: str | None = None
    sizes: tuple[str, ...] | None = None
    theme: Literal["light", "dark"] | None = None


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: none to generate
class Annotations:
    """Hints for the host: who the block is for, how important it is, when it last changed."""

    audience: tuple[Role, ...] | None = None
    priority: float | None = None
    last_modified: str | None = None

    def __init__(
        self,
        audience: Role | tuple[Role, ...] | list[Role] | None = None,
        priority: float | None = None,
        last_modified: datetime | str | None = None,
    ) -> None:
        if isinstance(audience, str):
            audience = (audience,)
        if audience is not None:
            try:
                audience = tuple(audience)
            except TypeError:
                raise ContentError(
                    f"audience must be 'user', 'assistant' or a list of them, not {audience!r}"
                ) from None
            for role in audience:
                if role not in ("user", "assistant"):
                    raise ContentError(f"audience must be 'user' or 'assistant', not {role!r}")
        if priority is not None and (
            isinstance(priority, bool)
            or not isinstance(priority, int | float)
            or not 0 <= priority <= 1
        ):
            raise ContentError(f"priority must be a number between 0 and 1, not {priority!r}")
        if _is_datetime(last_modified):
            if last_modified.tzinfo is None:
                last_modified = last_modified.astimezone()
            last_modified = last_modified.isoformat()
        elif last_modified is not None and not _is_iso_8601(last_modified):
            raise ContentError(  # the spec's name, which the wire's mapping uses too
                f"lastModified must be an ISO 8601 date (str or datetime), not {last_modified!r}"
            )
        object.__setattr__(self, "audience", audience)
        object.__setattr__(self, "priority", priority)
        object.__setattr__(self, "last_modified", last_modified)


AnnotationsArg: TypeAlias = "Annotations | Mapping[str, Any]"
"""What a block's `annotations=` takes: an Annotations, or the wire's object (the spec's names:
`audience`, `priority`, `lastModified`), checked as Annotations checks its arguments."""

_WIRE_NAMES = {"audience": "audience", "priority": "priority", "lastModified": "last_modified"}


def annotations_of(value: AnnotationsArg | None) -> Annotations | None:
    """A block's `annotations=` as Annotations; what cannot be is a ContentError naming why
    (where the block is built, not when a reply fails to render)."""
    if value is None or isinstance(value, Annotations):
        return value
    if not isinstance(value, Mapping):
        raise ContentError(
            f"annotations must be an Annotations or a mapping, not {type(value).__name__}"
        )
    for key in value:
        if key not in _WIRE_NAMES:
            raise ContentError(
                f"annotations have no field {key!r} (the fields: audience, priority, lastModified)"
            )
    return Annotations(**{_WIRE_NAMES[key]: item for key, item in value.items()})


def _is_iso_8601(value: object) -> bool:
    if not isinstance(value, str):
        return False
    from datetime import datetime  # only for a string given: not at import

    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_datetime(value: object) -> TypeGuard[datetime]:
    # Asked through sys.modules: no datetime exists before the module is imported, and a
    # server that never uses one need not import it.
    module = sys.modules.get("datetime")
    return module is not None and isinstance(value, module.datetime)


class ContentBlock:
    """Base of every content block; `kind` is the block's wire `type`."""

    __slots__ = ()
    kind: ClassVar[str]
    annotations: Annotations | None
    meta: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: annotations converted
class Text(ContentBlock):
    kind: ClassVar[str] = "text"
    text: str
    annotations: Annotations | None = None
    meta: Mapping[str, Any] | None = None

    def __init__(
        self,
        text: str,
        annotations: AnnotationsArg | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(text, str):
            raise ContentError(f"Text needs a str, not {type(text).__name__}")
        # No valid UTF-8 holds a lone surrogate (os.fsdecode of a bad name makes them): refused
        # here, where a tool's result can still say so, not when the reply is written.
        if not text.isascii() and (found := _LONE_SURROGATE.search(text)):
            raise ContentError(
                f"the text holds a lone surrogate ({ascii(found.group())[1:-1]}) at index"
                f" {found.start()}, which is not a Unicode character"
            )
        object.__setattr__(self, "text", text)
        object.__setattr__(
            self, "annotations", None if annotations is None else annotations_of(annotations)
        )
        object.__setattr__(self, "meta", meta)


def _read_source(data: object, path: str | Path | None) -> bytes:
    """The bytes given as `data` or read from `path`; anything else given is a ContentError."""
    if (data is None) == (path is None):
        raise ContentError("give exactly one of data= or path=")
    if path is not None:
        from pathlib import Path  # only for files: the stdio start-up does without pathlib

        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise ContentError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if isinstance(data, str):
        raise ContentError("data must be bytes; for base64 text use from_base64()")
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ContentError(f"data must be bytes, not {type(data).__name__}")
    return bytes(data)


def _drawn(value: object) -> bytes:
    """A PIL image or matplotlib figure as PNG bytes; what fails to draw is a ContentError."""
    try:
        png = images.png_of(value)
    except Exception as exc:
        raise ContentError(f"cannot draw this {type(value).__name__} as a PNG: {exc}") from exc
    assert png is not None  # only image objects come here
    return png


def _decode_base64(text: str) -> bytes:
    try:
        # Line-wrapped base64 (MIME, PEM style) is common; whitespace carries no data.
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ContentError(f"not valid base64: {exc}") from exc


def _media_type(
    family: str, raw: bytes, given: str | None, path: str | Path | None, what: str
) -> str:
    """Pick the MIME type for an image/audio block, refusing any the bytes contradict."""
    sniffed = mime.sniff(raw)
    if given is not None:
        given = given.strip().lower()
        if not given.startswith(family + "/"):
            raise ContentError(f"{what} needs an {family}/* MIME type, not {given!r}")
        if sniffed is not None and sniffed != given and _ALIASES.get(given) != sniffed:
            raise ContentError(f"mime_type {given!r} does not match the data, which is {sniffed}")
        return given
    found = sniffed or (mime.from_path(path) if path is not None else None)
    if found is None:
        raise ContentError(
            f"cannot tell the type of this {what.lower()} data ({len(raw)} bytes);"
            f" pass mime_type='{family}/...'"
        )
    if not found.startswith(family + "/"):
        raise ContentError(
            f"the data is {found}, not {'an image' if family == 'image' else 'audio'}"
        )
    return found


_ALIASES = {
    "image/jpg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "audio/x-flac": "audio/flac",
    "audio/x-m4a": "audio/mp4",
    "audio/m4a": "audio/mp4",
}


class _Media(ContentBlock):
    """Shared shape of Image and Audio: raw bytes plus a checked MIME type."""

    __slots__ = ("annotations", "data", "meta", "mime_type")
    family: ClassVar[str]
    data: bytes
    mime_type: str

    def __init__(
        self,
        data: bytes | bytearray | memoryview | ImageObject | None = None,
        *,
        path: str | Path | None = None,
        mime_type: str | None = None,
        annotations: AnnotationsArg | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if self.family == "image" and data is not None and images.is_image_object(data):
            data = _drawn(data)
        raw = _read_source(data, path)
        if not raw:
            raise ContentError(f"{type(self).__name__} data is empty")
        checked = _media_type(self.family, raw, mime_type, path, type(self).__name__)
        object.__setattr__(self, "data", raw)
        object.__setattr__(self, "mime_type", checked)
        object.__setattr__(self, "annotations", annotations_of(annotations))
        object.__setattr__(self, "meta", meta)

    @classmethod
    def from_base64(cls, data: str, mime_type: str | None = None, **kwargs: Any) -> Any:
        """Build from base64 text (as APIs often return it), checking it decodes."""
        return cls(_decode_base64(data), mime_type=mime_type, **kwargs)

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Media)
        return (self.data, self.mime_type, self.annotations, self.meta) == (
            other.data,
            other.mime_type,
            other.annotations,
            other.meta,
        )

    def __hash__(self) -> int:
        return hash((type(self), self.data, self.mime_type))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(<{len(self.data)} bytes>, mime_type={self.mime_type!r})"


class Image(_Media):
    """An image block; `Image(path="chart.png")`, `Image(png_bytes)`, or `Image(figure)` for a
    matplotlib Figure or a PIL image (sent as PNG)."""

    __slots__ = ()
    kind: ClassVar[str] = "image"
    family: ClassVar[str] = "image"


class Audio(_Media):
    """An audio block; `Audio(path="clip.wav")` or `Audio(wav_bytes)`."""

    __slots__ = ()
    kind: ClassVar[str] = "audio"
    family: ClassVar[str] = "audio"


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: annotations converted
class EmbeddedResource(ContentBlock):
    """A resource's contents carried inside the result: text, or bytes sent as base64."""

    kind: ClassVar[str] = "resource"
    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None
    annotations: Annotations | None = None
    meta: Mapping[str, Any] | None = None
    resource_meta: Mapping[str, Any] | None = None

    def __init__(
        self,
        uri: str,
        text: str | None = None,
        blob: bytes | None = None,
        mime_type: str | None = None,
        annotations: AnnotationsArg | None = None,
        meta: Mapping[str, Any] | None = None,
        resource_meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not uri or not isinstance(uri, str):
            raise ContentError("EmbeddedResource needs a uri")
        if (text is None) == (blob is None):
            raise ContentError("EmbeddedResource needs exactly one of text= or blob=")
        if blob is not None and not isinstance(blob, bytes):
            raise ContentError(f"blob must be bytes, not {type(blob).__name__}")
        _set(self, uri=uri, text=text, blob=blob, mime_type=mime_type)
        _set(self, annotations=annotations_of(annotations), meta=meta, resource_meta=resource_meta)

    def __repr__(self) -> str:
        body = f"<{len(self.blob)} bytes>" if self.blob is not None else repr(self.text)[:60]
        return f"EmbeddedResource(uri={self.uri!r}, {body}, mime_type={self.mime_type!r})"


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: annotations converted
class ResourceLink(ContentBlock):
    """A pointer to a resource the client can read later instead of inlining it."""

    kind: ClassVar[str] = "resource_link"
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    icons: tuple[Icon, ...] | None = None
    meta: Mapping[str, Any] | None = None

    def __init__(
        self,
        uri: str,
        name: str,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: AnnotationsArg | None = None,
        icons: tuple[Icon, ...] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        if not uri or not isinstance(uri, str):
            raise ContentError("ResourceLink needs a uri")
        if not name or not isinstance(name, str):
            raise ContentError("ResourceLink needs a name")
        if size is not None and (not isinstance(size, int) or size < 0):
            raise ContentError(f"size must be a non-negative int, not {size!r}")
        _set(self, uri=uri, name=name, title=title, description=description)
        _set(self, mime_type=mime_type, size=size, annotations=annotations_of(annotations))
        _set(self, icons=icons, meta=meta)


def _set(block: ContentBlock, **fields: Any) -> None:
    """Fill fields of a frozen block (its own __init__)."""
    for name, value in fields.items():
        object.__setattr__(block, name, value)


def content_uri(raw: bytes) -> str:
    """A stable URI for bytes that have no address of their own."""
    import hashlib  # only for bytes without an address: not at import

    return "urn:plainmcp:sha256:" + hashlib.sha256(raw).hexdigest()[:32]


def File(
    data: bytes | bytearray | memoryview | None = None,
    *,
    path: str | Path | None = None,
    mime_type: str | None = None,
    uri: str | None = None,
    annotations: AnnotationsArg | None = None,
    meta: Mapping[str, Any] | None = None,
) -> EmbeddedResource:
    """A file as an embedded resource: text when it is text, base64 otherwise."""
    raw = _read_source(data, path)
    found = mime_type or mime.sniff(raw) or (mime.from_path(path) if path is not None else None)
    if found is None:
        found = "application/octet-stream"
    if uri is None and path is not None:
        from pathlib import Path

        uri = Path(path).resolve().as_uri()
    elif uri is None:
        uri = content_uri(raw)
    if mime.is_text(found):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return EmbeddedResource(
                uri=uri, text=text, mime_type=found, annotations=annotations, meta=meta
            )
    return EmbeddedResource(uri=uri, blob=raw, mime_type=found, annotations=annotations, meta=meta)
