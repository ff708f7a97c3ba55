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

    compat: Literal["fallback", "strict"] = "fallback"
    """What a client gets when its revision cannot carry part of a result
    (docs/compatibility.md)."""

    def __post_init__(self) -> None:
        if self.json_indent is not None and self.json_indent < 0:
            raise ValueError("json_indent must be None or >= 0")


@dataclass(frozen=True, slots=True)
class PayloadLimits:
    """How much one tool result may carry before the payload guards step in (guards.py).

    The defaults keep a result inline in Claude Code, the strictest common host: it stores any
    result over 50,000 characters in a file (the model sees a short preview) and refuses one over
    25,000 tokens. docs/results.md ("Payload guards") explains each number. None disables a limit.
    """

    text_block: int | None = 40_000
    """Longest text block, in characters; a longer one is cut at a clean boundary."""

    text_result: int | None = 40_000
    """All text of one result together, in characters; earlier blocks keep priority."""

    structured: int | None = 40_000
    """Longest structuredContent, in characters of compact JSON (hosts show it to the model)."""

    binary_block: int | None = 1024 * 1024
    """Largest image, audio or embedded blob sent inline, in raw bytes (1 MiB)."""

    binary_result: int | None = 4 * 1024 * 1024
    """All inline binary data of one result together, in raw bytes (4 MiB)."""

    offload: bool = True
    """Put what does not fit into the blob store and link to it (False: cut or leave out)."""

    ttl: float = 3600.0
    """Seconds an offloaded payload stays readable through `resources/read`."""

    def __post_init__(self) -> None:
        for name in ("text_block", "text_result", "structured"):
            value = getattr(self, name)
            if value is not None and value < 1000:
                # Below this, the marker that explains the cut would crowd out the text.
                raise ValueError(f"{name} must be None or at least 1000 characters")
        for name in ("binary_block", "binary_result"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must be None or at least 0 bytes")
        if not self.ttl > 0:
            raise ValueError("ttl must be positive")
