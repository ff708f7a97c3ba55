"""What image and audio blocks share: raw bytes from data or a file, a checked MIME type.

Also the sourcing every binary block uses (bytes given or read from a path, base64 decoded)
and `content_uri`, the address of bytes that have none of their own.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from plainmcp.model import images, mime
from plainmcp.model.blocks.annotations import AnnotationsArg, annotations_of
from plainmcp.model.blocks.base import Carries, ContentBlock, article
from plainmcp.model.errors import ContentError
from plainmcp.model.images import ImageObject

if TYPE_CHECKING:
    from pathlib import Path


def read_source(data: object, path: str | Path | None) -> bytes:
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


class Media(ContentBlock):
    """Shared shape of Image and Audio: raw bytes plus a checked MIME type."""

    __slots__ = ("annotations", "data", "meta", "mime_type")
    family: ClassVar[str]
    """The MIME family of the kind's data ("image" for image/png)."""
    noun: ClassVar[str]
    """What one is called in a guard's marker ("an image/png image")."""
    draws: ClassVar[bool] = False
    """A PIL image or matplotlib figure given as data is drawn as PNG."""
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
        if self.draws and data is not None and images.is_image_object(data):
            data = _drawn(data)
        raw = read_source(data, path)
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

    def wire(self, rev: Carries) -> dict[str, Any]:
        return self._common(
            {"type": self.kind, "data": self.base64, "mimeType": self.mime_type}, rev
        )

    @property
    def sized_bytes(self) -> bytes | None:
        return self.data

    @property
    def payload_type(self) -> str | None:
        return self.mime_type

    def payload_what(self, detail: str) -> str:
        return f"{article(self.mime_type)} {self.mime_type} {self.noun}"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Media)
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


def content_uri(raw: bytes) -> str:
    """A stable URI for bytes that have no address of their own."""
    import hashlib  # only for bytes without an address: not at import

    return "urn:plainmcp:sha256:" + hashlib.sha256(raw).hexdigest()[:32]
