"""Result encoding options: chosen once per Server at start-up, documented in docs/results.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class ResultOptions:
    """How tool return values become content. Every field has a safe default."""

    text_fallback: bool = True
    """Send structured output's JSON as a text block too (the spec's fallback for hosts that
    read only `content`). When False, the text block says where the value is instead."""

    json_indent: int | None = None
    """Indentation of JSON text blocks; None is compact (fewest tokens)."""

    non_finite: Literal["null", "string", "error"] = "null"
    """NaN and ±Infinity, which JSON cannot carry: null (as JavaScript does), the strings
    "NaN"/"Infinity"/"-Infinity", or an isError result naming the problem."""

    datetimes: Literal["local", "utc"] = "local"
    """Naive datetimes are read as local time (what `datetime.now()` means); "utc" converts
    every datetime to UTC. Both write ISO 8601 with an explicit offset."""

    bytes_as: Literal["sniff", "blob", "base64_text"] = "sniff"
    """A returned `bytes`: "sniff" makes images image blocks, audio audio blocks and anything
    else an embedded blob; "blob" always embeds; "base64_text" sends the base64 as text."""

    text_limit: int | None = None
    """Longest text block, in characters; longer ones are cut at a line or word boundary
    with a marker saying how much was cut. None: no limit."""

    compat: Literal["fallback", "strict"] = "fallback"
    """What a client gets when its revision cannot carry part of a result
    (docs/compatibility.md)."""

    def __post_init__(self) -> None:
        if self.json_indent is not None and self.json_indent < 0:
            raise ValueError("json_indent must be None or >= 0")
        if self.text_limit is not None and self.text_limit < 100:
            raise ValueError("text_limit must be None or at least 100 characters")
