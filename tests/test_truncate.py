"""Text cutting (truncate.py): where a text is cut, and a cut text with its marker fits."""

from __future__ import annotations

from plainmcp.model.truncate import JSON_BOUNDARIES, TEXT_BOUNDARIES, cut, cut_point, fitting, size

TEXT = "aaaa bbbb\ncccc dddd\n\neeee ffff gggg"


def test_a_text_within_the_room_is_not_cut() -> None:
    assert cut_point(TEXT, 100) == len(TEXT)
    assert cut_point(TEXT, len(TEXT)) == len(TEXT)


def test_the_cut_is_at_a_boundary_in_the_last_fifth_of_the_room() -> None:
    # Room 30: no paragraph or line break after 24, so the last space (at 30) is the cut.
    assert TEXT[: cut_point(TEXT, 30)] == "aaaa bbbb\ncccc dddd\n\neeee ffff"
    # Room 16: a line break (at 14) comes before a word boundary.
    assert TEXT[: cut_point(TEXT, 16)] == "aaaa bbbb\ncccc"
    # Room 22: the paragraph break (at 19) wins over the later line break and space.
    assert TEXT[: cut_point(TEXT, 22, TEXT_BOUNDARIES)] == "aaaa bbbb\ncccc dddd"


def test_without_a_boundary_the_cut_is_exactly_at_the_room() -> None:
    assert cut_point("abcdefghij" * 3, 12) == 12


def test_json_is_cut_after_an_object_in_a_list() -> None:
    data = '[{"a": 1}, {"a": 2}, {"a": 3}]'
    assert data[: cut_point(data, 22, JSON_BOUNDARIES)] == '[{"a": 1}, {"a": 2}'


def test_a_cut_text_and_its_marker_fit_the_cap() -> None:
    text = "x" * 40 + " " + "y" * 40

    def marker(kept: int) -> str:
        return f" [{kept} kept]"

    result = cut(text, 60, marker, ())
    assert result == "x" * 40 + " " + "y" * 9 + " [50 kept]"
    assert len(result) <= 60
    # With word boundaries the cut falls at the space, and the trailing space is dropped.
    assert cut(text, 60, marker, TEXT_BOUNDARIES) == "x" * 40 + " [40 kept]"


def test_sizes_count_in_each_unit() -> None:
    text = "aé€𝄞"
    assert [size(text, u) for u in ("characters", "bytes", "UTF-16 units")] == [4, 10, 5]


def test_fitting_keeps_the_longest_start_within_the_room_in_each_unit() -> None:
    text = "aé€𝄞" * 3
    for unit in ("characters", "bytes", "UTF-16 units"):
        for room in range(size(text, unit) + 2):
            n = fitting(text, room, unit)
            assert size(text[:n], unit) <= room
            assert n == len(text) or size(text[: n + 1], unit) > room
    # Never half a character: a 4-byte letter does not fit in 3 bytes, nor in 1 UTF-16 unit.
    assert fitting("𝄞", 3, "bytes") == 0
    assert fitting("𝄞", 1, "UTF-16 units") == 0


def test_a_cut_in_bytes_fits_the_cap_in_bytes() -> None:
    text = "é" * 100

    def marker(kept: int) -> str:
        return f" [{kept} kept]"

    result = cut(text, 60, marker, (), "bytes")
    # Room is kept for the longest marker (" [100 kept]", 11 bytes): 24 letters of 2 bytes.
    assert result == "é" * 24 + " [24 kept]"
    assert size(result, "bytes") == 58
