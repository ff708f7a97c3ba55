"""Content blocks: what a tool result carries (text, image, audio, resources, resource links).

These are plain frozen objects with Python names. Binary data is held as raw bytes and
base64-encoded only when rendered, and every block is checked when it is built, so a block that
exists is a block that can go on the wire.

Each block type owns its behaviour, so render, the guards and the host adaptation iterate over
blocks without naming their types: its wire form for one revision (`wire`), its stand-in where a
revision cannot carry it (`stand_in`), its size for the guards (`sized_text`, `sized_bytes`) and
the words for a payload linked instead (`payload_what`, `payload_name`), and its line for a host
that does not hand it on (`host_cell`, `unseen_when`, `unseen_line`). A block never sees the
wire's modules: a revision reaches it as `Carries`, the few facts its wire form depends on.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from plainmcp.model.blocks.annotations import Annotations


class Carries(Protocol):
    """What one protocol revision says about a block's wire form (wire.revisions.Revision)."""

    @property
    def block_meta(self) -> bool: ...
    @property
    def annotation_fields(self) -> frozenset[str]: ...
    @property
    def resource_link_icons(self) -> bool: ...


class ContentBlock:
    """Base of every content block; `kind` is the block's wire `type`."""

    __slots__ = ()
    kind: ClassVar[str]
    annotations: Annotations | None
    meta: Mapping[str, Any] | None

    host_cell: ClassVar[str | None] = None
    """The host profile's cell that says what a host does with this kind (hosts/profiles.py)."""

    unseen_when: ClassVar[frozenset[str]] = frozenset({"dropped", "refused"})
    """The values of that cell for which the model does not see the block (or its URI): the
    host adaptation adds `unseen_line` after it, or instead of it where the host refuses it."""

    def wire(self, rev: Carries) -> dict[str, Any]:
        """The block as `rev` writes it (`rev` carries this block's kind). Every type in
        `BLOCKS` defines it (tests/model/test_blocks.py); a subclass that does not is refused
        here, by name, rather than written as something it is not."""
        raise TypeError(f"{type(self).__name__} defines no wire form: give it a wire() method")

    def stand_in(self) -> ContentBlock | None:
        """The faithful stand-in where a revision cannot carry this kind; None: there is none."""
        return None

    @property
    def sized_text(self) -> str | None:
        """The text the guards count against the text limits (None: no text)."""
        return None

    @property
    def sized_bytes(self) -> bytes | None:
        """The bytes the guards count against the binary limits (None: no binary payload)."""
        return None

    @property
    def payload_type(self) -> str | None:
        """The MIME type of the payload, when a guard stores it and links it instead."""
        return None

    def payload_what(self, detail: str) -> str:
        """What the payload is, in a guard's marker ("an image/png image"); `detail`: its type,
        or its size and type, for blocks that name themselves by their URI."""
        return f"the {self.kind} block's payload ({detail})"

    def payload_name(self, position: int, mime_type: str) -> str:
        """A file-like name for the link to the stored payload of the block at `position`."""
        return file_name("", f"{self.kind}-{position}", mime_type)

    @staticmethod
    def unseen_line(wire: Mapping[str, Any]) -> str:
        """One line naming what the rendered block `wire` holds, for a model that cannot see
        it: by default its type, MIME type and size."""
        kind = wire.get("type", "media")
        mime = wire.get("mimeType", "unknown type")
        try:
            size = f"{len(base64.b64decode(wire.get('data', ''), validate=True)):,} bytes"
        except (binascii.Error, ValueError, TypeError):
            size = "unknown size"
        article = "An" if kind[:1] in "aeiou" else "A"
        return (
            f"[{article} {kind} block ({mime}, {size}) is part of this result; this client does"
            " not pass it to the model.]"
        )

    def _common(self, out: dict[str, Any], rev: Carries) -> dict[str, Any]:
        """`out` with the fields every block has, as far as `rev` carries them."""
        if self.annotations is not None:
            rendered = self.annotations.wire(rev.annotation_fields)
            if rendered is not None:
                out["annotations"] = rendered
        if self.meta and rev.block_meta:
            out["_meta"] = dict(self.meta)
        return out


def file_name(uri: str, fallback: str, mime_type: str) -> str:
    """A file-like name for a link: the last path segment of `uri`, else `fallback` + extension."""
    last = uri.rstrip("/").rsplit("/", 1)[-1] if "/" in uri else ""
    if last:
        return last
    import mimetypes  # only for a link without a name: not at import

    extension = mimetypes.guess_extension(mime_type.split(";")[0].strip()) or ".bin"
    return fallback + extension


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def fill(block: ContentBlock, **fields: Any) -> None:
    """Fill fields of a frozen block (its own __init__)."""
    for name, value in fields.items():
        object.__setattr__(block, name, value)
