"""Content blocks: what a tool result or a prompt message carries."""

from plainmcp.model.blocks.base import (
    Annotations,
    AnnotationsArg,
    Audio,
    ContentBlock,
    ContentError,
    EmbeddedResource,
    File,
    Icon,
    Image,
    ResourceLink,
    Role,
    Text,
    annotations_of,
    content_uri,
)

__all__ = [
    "Annotations",
    "AnnotationsArg",
    "Audio",
    "ContentBlock",
    "ContentError",
    "EmbeddedResource",
    "File",
    "Icon",
    "Image",
    "ResourceLink",
    "Role",
    "Text",
    "annotations_of",
    "content_uri",
]
