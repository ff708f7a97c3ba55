"""EmbeddedResource: a resource's contents carried inside the result; File builds one from
bytes or a file (text when it is text, base64 otherwise)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from plainmcp.model import mime
from plainmcp.model.blocks.annotations import Annotations, AnnotationsArg, annotations_of
from plainmcp.model.blocks.base import Carries, ContentBlock, file_name, fill
from plainmcp.model.blocks.media import content_uri, read_source
from plainmcp.model.errors import ContentError

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: annotations converted
class EmbeddedResource(ContentBlock):
    """A resource's contents carried inside the result: text, or bytes sent as base64."""

    kind: ClassVar[str] = "resource"
    host_cell: ClassVar[str | None] = "embedded"
    unseen_when: ClassVar[frozenset[str]] = frozenset({"dropped", "refused", "bare"})
    """"bare": the host hands on the resource's text without its URI."""
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
        fill(self, uri=uri, text=text, blob=blob, mime_type=mime_type)
        fill(self, annotations=annotations_of(annotations), meta=meta, resource_meta=resource_meta)

    def wire(self, rev: Carries) -> dict[str, Any]:
        contents = contents_wire(
            self.uri, self.mime_type, self.text, self.blob, self.resource_meta, rev
        )
        return self._common({"type": "resource", "resource": contents}, rev)

    @property
    def sized_text(self) -> str | None:
        return self.text

    @property
    def sized_bytes(self) -> bytes | None:
        return None if self.text is not None else self.blob or b""

    @property
    def payload_type(self) -> str | None:
        return self.mime_type

    def payload_what(self, detail: str) -> str:
        return f"the resource {self.uri} ({detail})"

    def payload_name(self, position: int, mime_type: str) -> str:
        return file_name(self.uri, f"resource-{position}", mime_type)

    @staticmethod
    def unseen_line(wire: Mapping[str, Any]) -> str:
        resource = wire.get("resource", {})
        mime = f" ({resource['mimeType']})" if resource.get("mimeType") else ""
        return f"[The resource {resource.get('uri', '')}{mime} is embedded in this result.]"

    def __repr__(self) -> str:
        body = f"<{len(self.blob)} bytes>" if self.blob is not None else repr(self.text)[:60]
        return f"EmbeddedResource(uri={self.uri!r}, {body}, mime_type={self.mime_type!r})"


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
    raw = read_source(data, path)
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


def contents_wire(
    uri: str,
    mime_type: str | None,
    text: str | None,
    blob: bytes | None,
    meta: Mapping[str, Any] | None,
    rev: Carries,
) -> dict[str, Any]:
    """A TextResourceContents or BlobResourceContents: inside an embedded resource, and each
    item of a resources/read result (wire/render.py)."""
    contents: dict[str, Any] = {"uri": uri}
    if mime_type is not None:
        contents["mimeType"] = mime_type
    if text is not None:
        contents["text"] = text
    else:
        assert blob is not None
        contents["blob"] = base64.b64encode(blob).decode("ascii")
    if meta and rev.block_meta:
        contents["_meta"] = dict(meta)
    return contents
