"""Result encoding options: chosen once per Server at start-up, documented in docs/results.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

TextMode = Literal["json", "summary", "pointer"]
"""What the text block of a structured result says (docs/results.md, "Results that reach the
model"): the value's JSON, a short digest of it (plainmcp.model.summary), or where the value is."""

TEXT_MODES: tuple[TextMode, ...] = ("json", "summary", "pointer")

TextFallback = TextMode | bool
"""A text mode, or the bool of the times before modes: True is "json", False "pointer"."""


def text_mode(value: object, owner: str = "text_fallback") -> TextMode:
    """`value` as a text mode; ValueError naming the choices for anything else."""
    if value is True:
        return "json"
    if value is False:
        return "pointer"
    if isinstance(value, str) and value in TEXT_MODES:
        return value
    raise ValueError(
        f'{owner} must be "json", "summary" or "pointer" (or True for "json", False for'
        f' "pointer"), not {value!r}'
    )


@dataclass(frozen=True, slots=True)
class ResultOptions:
    """How tool return values become content. Every field has a safe default."""

    text_fallback: TextFallback = "json"
    """The text block sent with a structured value, for hosts that read only `content`: its JSON
    ("json", the spec's fallback), a short digest ("summary"), or a sentence saying it is in
    structuredContent ("pointer"). A tool's own `text_fallback=` wins. True and False still work
    ("json", "pointer"); the field always holds the mode."""

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
        object.__setattr__(self, "text_fallback", text_mode(self.text_fallback))

    @property
    def text_mode(self) -> TextMode:
        """`text_fallback`, typed as the mode it always is once the options are built."""
        return cast(TextMode, self.text_fallback)


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
