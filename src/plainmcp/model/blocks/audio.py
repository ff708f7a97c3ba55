"""Audio: an audio block, sent from 2025-03-26 on and as an embedded resource before."""

from __future__ import annotations

from typing import ClassVar

from plainmcp.model.blocks.base import ContentBlock
from plainmcp.model.blocks.media import Media, content_uri
from plainmcp.model.blocks.resource import EmbeddedResource


class Audio(Media):
    """An audio block; `Audio(path="clip.wav")` or `Audio(wav_bytes)`."""

    __slots__ = ()
    kind: ClassVar[str] = "audio"
    family: ClassVar[str] = "audio"
    noun: ClassVar[str] = "recording"
    host_cell: ClassVar[str | None] = "audio"

    def stand_in(self) -> ContentBlock | None:
        """The same bytes as an embedded blob, for revisions without audio."""
        return EmbeddedResource(
            uri=content_uri(self.data),
            blob=self.data,
            mime_type=self.mime_type,
            annotations=self.annotations,
        )
