"""Cutting a text at a clean boundary so that it and its truncation marker fit a ceiling.

The payload guards (guards.py) cut text blocks at a paragraph, line or word, and JSON previews
at a line, the end of an object or array in a list, or a comma; sans-I/O and pure. A ceiling is
counted in a `Unit`: characters for the server's own limits, and for a host the unit it cuts
in (Codex counts UTF-8 bytes, Gemini CLI JavaScript's UTF-16 code units).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple

Unit = Literal["characters", "bytes", "UTF-16 units"]
"""What a size counts: Python characters, UTF-8 bytes, or UTF-16 code units."""


def size(text: str, unit: Unit = "characters") -> int:
    """`text`'s length in `unit`."""
    if unit == "characters" or text.isascii():
        return len(text)
    if unit == "bytes":
        return len(text.encode())
    return len(text.encode("utf-16-le")) // 2


def fitting(text: str, room: int, unit: Unit = "characters") -> int:
    """How many characters of `text`, from its start, fit in `room` of `unit`."""
    if room <= 0:
        return 0
    if unit == "characters" or len(text) * 4 <= room:
        return min(len(text), room)
    head = text[:room]  # every unit counts a character as at least one
    if head.isascii():
        return len(head)
    if unit == "bytes":
        return len(head.encode()[:room].decode("utf-8", "ignore"))
    return len(head.encode("utf-16-le")[: room * 2].decode("utf-16-le", "ignore"))


class Counting(NamedTuple):
    """How one host counts a result against its limit: in `unit`, and, when `shared`, the
    structured value's JSON in the same budget as the text (the host shows both as text)."""

    unit: Unit
    shared: bool


PLAIN = Counting("characters", shared=False)
"""The server's own limits: characters, the text and the structured value apart."""

# (boundary, how many of its characters stay): paragraph, line, word; for JSON, line, the end
# of an object or array in a list, then any comma.
Boundaries = Sequence[tuple[str, int]]
TEXT_BOUNDARIES: Boundaries = (("\n\n", 0), ("\n", 0), (" ", 0))
JSON_BOUNDARIES: Boundaries = (("\n", 0), ("},", 1), ("],", 1), (",", 0))


def cut(
    text: str,
    cap: int,
    marker: Callable[[int], str],
    boundaries: Boundaries,
    unit: Unit = "characters",
) -> str:
    """`text` cut at a clean boundary so that it and its marker fit in `cap` of `unit`."""
    # The marker for the full length is the longest it can be (kept <= total has no more digits).
    room = max(cap - size(marker(len(text)), unit), 0)
    kept = text[: cut_point(text, fitting(text, room, unit), boundaries)].rstrip()
    return kept + marker(len(kept))


def cut_point(text: str, room: int, boundaries: Boundaries = TEXT_BOUNDARIES) -> int:
    """Where to cut to keep at most `room` characters: the first boundary kind found in the
    last fifth of the room (paragraph, then line, then word), else exactly at `room`."""
    if len(text) <= room:
        return len(text)
    floor = room - room // 5
    for boundary, kept in boundaries:
        at = text.rfind(boundary, floor, room - kept + len(boundary))
        if at >= 0:
            return at + kept
    return room
