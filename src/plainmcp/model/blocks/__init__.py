"""Content blocks: what a tool result or a prompt message carries, one module per block type.

`BLOCKS` lists every type; render, the guards and the host adaptation go through it (and the
behaviour each type owns, base.py) rather than naming types. A new block type is its module,
its line here, its kind in the revision table (wire/revisions.py) and its tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plainmcp.model.blocks.annotations import (
    Annotations,
    AnnotationsArg,
    Icon,
    Role,
    annotations_of,
)
from plainmcp.model.blocks.audio import Audio
from plainmcp.model.blocks.base import Carries, ContentBlock
from plainmcp.model.blocks.image import Image
from plainmcp.model.blocks.link import ResourceLink
from plainmcp.model.blocks.media import Media, content_uri
from plainmcp.model.blocks.resource import EmbeddedResource, File
from plainmcp.model.blocks.text import Text
from plainmcp.model.errors import ContentError

BLOCKS: tuple[type[ContentBlock], ...] = (Text, Image, Audio, EmbeddedResource, ResourceLink)
"""Every block type, in the order the spec lists them."""

KINDS: dict[str, type[ContentBlock]] = {cls.kind: cls for cls in BLOCKS}
"""Each block type by its wire `type`."""

MEDIA: tuple[type[Media], ...] = tuple(cls for cls in BLOCKS if issubclass(cls, Media))


def as_media(data: bytes, mime_type: str) -> Media | None:
    """`data` as the media block of its MIME family (an image/* as Image...); None: no such
    block type, so the bytes go as an embedded resource."""
    for cls in MEDIA:
        if mime_type.startswith(cls.family + "/"):
            return cls(data, mime_type=mime_type)
    return None


def unseen_line(wire: Mapping[str, Any]) -> str:
    """One line naming what a rendered block holds, for a model that cannot see it (or its URI)."""
    return KINDS.get(wire.get("type", ""), ContentBlock).unseen_line(wire)


__all__ = [
    "BLOCKS",
    "KINDS",
    "MEDIA",
    "Annotations",
    "AnnotationsArg",
    "Audio",
    "Carries",
    "ContentBlock",
    "ContentError",
    "EmbeddedResource",
    "File",
    "Icon",
    "Image",
    "Media",
    "ResourceLink",
    "Role",
    "Text",
    "annotations_of",
    "as_media",
    "content_uri",
    "unseen_line",
]
