"""Cuts at element boundaries (item_cuts.py): the longest valid prefix of the value's list."""

from __future__ import annotations

import orjson

from plainmcp.item_cuts import ItemCut, cut_items


def test_a_list_is_cut_after_the_last_element_that_fits() -> None:
    raw = orjson.dumps(list(range(1000, 2000)))  # 4 bytes an element, a comma between
    cut = cut_items(raw, 60, None)
    assert cut == ItemCut(
        "", 11, 1000, list(range(1000, 1011)), orjson.dumps(list(range(1000, 1011)))
    )
    assert len(cut.raw) == 56 <= 60 < len(orjson.dumps(list(range(1000, 1012))))


def test_an_object_is_cut_in_its_largest_list_and_keeps_every_other_field() -> None:
    value = {"query": "x", "tags": ["a", "b"], "rows": list(range(100)), "count": 100}
    cut = cut_items(orjson.dumps(value), 60, None)
    assert cut is not None
    assert cut.path == "rows"
    assert cut.value == {
        "query": "x",
        "tags": ["a", "b"],
        "rows": list(range(cut.sent)),
        "count": 100,
    }
    assert list(cut.value) == list(value)  # the fields keep their order
    assert len(cut.raw) <= 60 < len(cut.raw) + len(f",{cut.sent}")


def test_min_items_that_do_not_fit_mean_no_cut() -> None:
    raw = orjson.dumps({"rows": list(range(1000))})
    schema = {"type": "object", "properties": {"rows": {"type": "array", "minItems": 500}}}
    assert cut_items(raw, 1000, schema) is None
    relaxed = {"type": "object", "properties": {"rows": {"type": "array", "minItems": 10}}}
    assert cut_items(raw, 1000, relaxed) is not None


def test_no_cut_without_a_list_or_when_the_rest_alone_is_too_large() -> None:
    assert cut_items(orjson.dumps({"text": "x" * 5000}), 1000, None) is None
    assert cut_items(orjson.dumps("x" * 5000), 1000, None) is None
    assert cut_items(orjson.dumps({"text": "x" * 5000, "rows": [1, 2, 3]}), 1000, None) is None


def test_json_that_would_not_come_back_identical_is_not_cut() -> None:
    # Indented JSON, and integers orjson cannot read: a rebuilt value would differ.
    assert (
        cut_items(orjson.dumps(list(range(1000)), option=orjson.OPT_INDENT_2), 1000, None) is None
    )
    assert (
        cut_items(b"[" + b",".join([b"123456789012345678901234567890"] * 100) + b"]", 1000, None)
        is None
    )
