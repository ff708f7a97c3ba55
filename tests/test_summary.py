"""The "summary" text mode's digest: exact texts over the shapes values take, and its bound."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from plainmcp.model import summary
from plainmcp.model.encoding import as_text
from plainmcp.model.summary import CLOSING, LIMIT, LINE, summarize


def digest(value: Any, indent: int | None = None) -> str:
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return summarize(raw, indent)


def lines(*rows: str) -> str:
    return "\n".join(rows)


def test_an_array_of_objects_shows_its_count_and_the_first_rows() -> None:
    rows = {
        "rows": [{"id": i, "name": f"row {i}", "tags": ["a"]} for i in range(10_000)],
        "total": 10_000,
        "source": "db",
    }
    assert digest(rows) == lines(
        "Summary of the structured result (427,818 characters of JSON in structuredContent):",
        "$: an object with 3 keys: rows, total, source",
        "$.rows: an array of 10,000 objects",
        "$.total: 10000",
        '$.source: "db"',
        '$.rows[0]: {"id":0,"name":"row 0","tags":["a"]}',
        '$.rows[1]: {"id":1,"name":"row 1","tags":["a"]}',
        '$.rows[2]: {"id":2,"name":"row 2","tags":["a"]}',
        "$.rows: … and 9,997 more objects",
    )


def test_rows_too_large_to_inline_are_opened_breadth_first() -> None:
    issues = [
        {"id": i, "title": f"Issue {i}", "labels": ["bug"] if i % 2 else [], "body": "b" * 120}
        for i in range(500)
    ]
    body = '"' + "b" * 80 + '…" (120 characters)'
    assert digest(issues) == lines(
        "Summary of the structured result (87,531 characters of JSON in structuredContent):",
        "$: an array of 500 objects",
        "$[0]: an object with 4 keys: id, title, labels, body",
        "$[1]: an object with 4 keys: id, title, labels, body",
        "$[2]: an object with 4 keys: id, title, labels, body",
        "$: … and 497 more objects",
        "$[0].id: 0",
        '$[0].title: "Issue 0"',
        "$[0].labels: []",
        f"$[0].body: {body}",
        "$[1].id: 1",
        '$[1].title: "Issue 1"',
        '$[1].labels: ["bug"]',
        f"$[1].body: {body}",
        "$[2].id: 2",
        '$[2].title: "Issue 2"',
        "$[2].labels: []",
        f"$[2].body: {body}",
    )


def test_nested_objects_are_opened_three_levels_deep() -> None:
    pad = "q" * 200
    value = {"l1": {"l2": {"l3": {"l4": {"l5": "deep"}, "pad": pad}, "pad": pad}}, "pad": pad}
    cut = '"' + "q" * 80 + '…" (200 characters)'
    assert digest(value) == lines(
        "Summary of the structured result (668 characters of JSON in structuredContent):",
        "$: an object with 2 keys: l1, pad",
        "$.l1: an object with 1 key: l2",
        f"$.pad: {cut}",
        "$.l1.l2: an object with 2 keys: l3, pad",
        # depth 3: described with its keys, not opened
        "$.l1.l2.l3: an object with 2 keys: l4, pad",
        f"$.l1.l2.pad: {cut}",
    )


def test_scalars_and_small_values_are_their_json_text() -> None:
    assert digest(5) == "5"
    assert digest(0.1) == "0.1"
    assert digest(True) == "true"
    assert digest(None) == "null"
    assert digest("Sunny, 21 °C") == "Sunny, 21 °C"  # a JSON string reads as itself, as in "json"
    assert digest(2**70) == "1180591620717411303424"  # wide integers keep every digit
    assert digest({"result": 5}) == '{"result":5}'
    assert digest({"sunny": 3, "rainy": 4}, indent=2) == '{\n  "sunny": 3,\n  "rainy": 4\n}'


def test_empty_values() -> None:
    assert digest({}) == "{}"
    assert digest([]) == "[]"
    assert digest("") == ""
    value = {"a": {}, "b": [], "c": "", "d": None, "e": [[]], "f": "x" * 300}
    assert digest(value) == lines(
        "Summary of the structured result (347 characters of JSON in structuredContent):",
        "$: an object with 6 keys: a, b, c, d, e, f",
        "$.a: {}",
        "$.b: []",
        '$.c: ""',
        "$.d: null",
        "$.e: [[]]",
        '$.f: "' + "x" * 80 + '…" (300 characters)',
    )


def test_a_huge_string_is_cut_and_counted() -> None:
    assert digest("x" * 1_000_000) == lines(
        "Summary of the structured result (1,000,002 characters of JSON in structuredContent):",
        '$: "' + "x" * 80 + '…" (1,000,000 characters)',
    )


def test_an_object_with_many_keys_names_the_next_ten() -> None:
    value = {f"key{i:03}": i for i in range(250)}
    assert digest(value) == lines(
        "Summary of the structured result (3,141 characters of JSON in structuredContent):",
        "$: an object with 250 keys: key000, key001, key002, key003, key004, key005, key006,"
        " key007, key008, key009, …",
        *(f"$.key{i:03}: {i}" for i in range(10)),
        "$: … and 240 more keys: key010, key011, key012, key013, key014, key015, key016, key017,"
        " key018, key019, …",
    )


def test_arrays_of_scalars_and_mixed_arrays() -> None:
    value = [list(range(100)), ["s" * 120] * 2, [1, "a", None, True, {"a": 1}, [1]] * 20]
    cut = '"' + "s" * 80 + '…" (120 characters)'
    strings = f"$[1]: an array of 2 strings: {cut}, {cut}"  # two items: no ellipsis after them
    assert len(strings) == 231
    assert digest(value) == lines(
        "Summary of the structured result (1,103 characters of JSON in structuredContent):",
        "$: an array of 3 arrays",
        "$[0]: an array of 100 numbers: 0, 1, 2, …",
        strings[:199] + "…",  # cut at LINE characters
        "$[2]: an array of 120 items (20 numbers, 20 strings, 20 nulls, 20 booleans, 20 objects,"
        ' 20 arrays): 1, "a", null, …',
    )


def test_keys_that_are_not_names_are_quoted_and_long_ones_cut() -> None:
    value = {"first name": 1, "k" * 60: 2, "ok_key": "v" * 300}
    long_key = '"' + "k" * 40 + '…"'
    assert digest(value) == lines(
        "Summary of the structured result (393 characters of JSON in structuredContent):",
        f'$: an object with 3 keys: "first name", {long_key}, ok_key',
        '$["first name"]: 1',
        f"$[{long_key}]: 2",
        '$.ok_key: "' + "v" * 80 + '…" (300 characters)',
    )


def test_a_long_digest_stops_at_the_limit_with_a_closing_line() -> None:
    inner = {f"s{j}": {"a": list(range(50)), "b": "y" * 300} for j in range(12)}
    value = {f"k{i}": inner for i in range(12)}
    out = digest(value)
    assert len(out) <= LIMIT
    assert out.splitlines()[-1] == CLOSING == "… (more in structuredContent)"
    assert out.splitlines()[:4] == [
        "Summary of the structured result (66,351 characters of JSON in structuredContent):",
        "$: an object with 12 keys: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, …",
        "$.k0: an object with 12 keys: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, …",
        "$.k1: an object with 12 keys: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, …",
    ]
    assert out.splitlines()[-2] == "$.k2.s6: an object with 2 keys: a, b"
    # Without the limit the listing would go on: the digest is a prefix of it.
    assert out.removesuffix("\n" + CLOSING) in _unbounded(value)


def _unbounded(value: Any) -> str:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(summary, "LIMIT", 10**9)
        return digest(value)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 4 else 5)
    if kind == 0:
        return rng.randrange(-(10**30), 10**30)
    if kind == 1:
        return rng.random() * 10 ** rng.randrange(-5, 20)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind in (3, 4):
        return "".join(rng.choice('ab "\\\n€😀') for _ in range(rng.randrange(0, 400)))
    if kind == 5:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(0, 25))]
    return {
        "".join(rng.choice("ab_- é") for _ in range(rng.randrange(0, 70))): _random_value(
            rng, depth + 1
        )
        for _ in range(rng.randrange(0, 15))
    }


@pytest.mark.parametrize("seed", range(100))
def test_every_digest_is_bounded_deterministic_and_never_longer_than_the_json(seed: int) -> None:
    value = _random_value(random.Random(seed))
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    whole = as_text(raw)  # what the "json" mode writes
    out = summarize(raw)
    assert len(out) <= min(LIMIT, len(whole))
    if out != whole:
        assert out.startswith("Summary of the structured result (")
        assert all(len(line) <= LINE for line in out.splitlines())
    assert summarize(raw) == out


def test_the_docs_state_these_bounds() -> None:
    docs = " ".join(
        (Path(__file__).resolve().parents[1] / "docs" / "results.md").read_text("utf-8").split()
    )
    assert (summary.LIMIT, summary.LINE, summary.INLINE, summary.STRING) == (2000, 200, 100, 80)
    assert (summary.KEYS, summary.ITEMS, summary.DEPTH) == (10, 3, 3)
    for stated in (
        "a digest is at most 2,000 characters (each line at most 200, cut with `…`)",
        "whose compact JSON is at most 100 characters",
        "shows its first 80 characters and its length",
        "(up to 10 keys named, then `…`), and its first 10 values get lines of their own",
        "its first 3 items get lines of their own",
        "Containers three levels deep are described, not opened.",
        f"it ends with `{CLOSING}`",
    ):
        assert stated in docs, stated
