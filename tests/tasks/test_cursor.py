"""Task list cursors: opaque positions, refused when not ours."""

from __future__ import annotations

import pytest

from plainmcp.tasks import BadCursor
from plainmcp.tasks.cursor import make_cursor, read_cursor


def test_a_cursor_names_the_position_it_was_made_for() -> None:
    assert read_cursor(make_cursor(12.5, "abc")) == (12.5, "abc")


@pytest.mark.parametrize("bad", ["", "!!", "WzEsIDJd", "bnVsbA=="])
def test_anything_else_is_a_bad_cursor(bad: str) -> None:
    with pytest.raises(BadCursor):
        read_cursor(bad)
