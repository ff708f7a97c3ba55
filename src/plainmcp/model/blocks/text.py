"""Text: the block every revision carries, and the one the guards cut at a clean boundary."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from plainmcp.model.blocks.annotations import Annotations, AnnotationsArg, annotations_of
from plainmcp.model.blocks.base import Carries, ContentBlock
from plainmcp.model.errors import ContentError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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

    def wire(self, rev: Carries) -> dict[str, Any]:
        return self._common({"type": "text", "text": self.text}, rev)

    @property
    def sized_text(self) -> str | None:
        return self.text
