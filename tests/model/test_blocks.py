"""What the ContentBlock base gives a block type, and what every type of BLOCKS defines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from plainmcp.model.blocks import BLOCKS, ContentBlock
from plainmcp.wire.revisions import REVISIONS


def test_every_block_type_defines_its_own_wire_form() -> None:
    assert [cls.__name__ for cls in BLOCKS if cls.wire is ContentBlock.wire] == []


@dataclass(frozen=True, slots=True)
class Unwritten(ContentBlock):
    kind: ClassVar[str] = "unwritten"
    annotations: None = None
    meta: None = None


def test_a_block_without_a_wire_form_is_refused_by_name() -> None:
    with pytest.raises(TypeError) as refused:
        Unwritten().wire(REVISIONS["2025-11-25"])
    assert str(refused.value) == "Unwritten defines no wire form: give it a wire() method"


def test_a_payload_without_its_own_words_is_named_by_its_kind() -> None:
    assert Unwritten().payload_what("1,024 bytes of video/mp4") == (
        "the unwritten block's payload (1,024 bytes of video/mp4)"
    )
