"""ResourceLink: a pointer to a resource the client can read later instead of inlining it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from plainmcp.model.blocks.annotations import Annotations, AnnotationsArg, Icon, annotations_of
from plainmcp.model.blocks.base import Carries, ContentBlock, fill
from plainmcp.model.blocks.text import Text
from plainmcp.model.errors import ContentError


@dataclass(frozen=True, slots=True, init=False)  # its own __init__: annotations converted
class ResourceLink(ContentBlock):
    """A pointer to a resource the client can read later instead of inlining it."""

    kind: ClassVar[str] = "resource_link"
    host_cell: ClassVar[str | None] = "links"
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
        fill(self, uri=uri, name=name, title=title, description=description)
        fill(self, mime_type=mime_type, size=size, annotations=annotations_of(annotations))
        fill(self, icons=icons, meta=meta)

    def wire(self, rev: Carries) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, field in (
            ("title", self.title),
            ("description", self.description),
            ("mimeType", self.mime_type),
            ("size", self.size),
        ):
            if field is not None:
                out[key] = field
        if self.icons and rev.resource_link_icons:
            out["icons"] = [i.wire() for i in self.icons]
        return self._common(out, rev)

    def stand_in(self) -> ContentBlock | None:
        """Its fields as text, for revisions before resource links."""
        parts = [f"Resource link: {self.uri}", f"name: {self.name}"]
        if self.title:
            parts.append(f"title: {self.title}")
        if self.mime_type:
            parts.append(f"type: {self.mime_type}")
        if self.size is not None:
            parts.append(f"size: {self.size} bytes")
        if self.description:
            parts.append(f"description: {self.description}")
        return Text("\n".join(parts), annotations=self.annotations)

    @staticmethod
    def unseen_line(wire: Mapping[str, Any]) -> str:
        name = wire.get("title") or wire.get("name", "")
        about = f": {wire['description']}" if wire.get("description") else ""
        return f"[Resource link {name}: {wire.get('uri', '')}{about}]"
