"""Cutting a text at a clean boundary so that it and its truncation marker fit a ceiling.

The payload guards (guards.py) cut text blocks at a paragraph, line or word, and JSON previews
at a line, the end of an object or array in a list, or a comma; sans-I/O and pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# (boundary, how many of its characters stay): paragraph, line, word; for JSON, line, the end
# of an object or array in a list, then any comma.
Boundaries = Sequence[tuple[str, int]]
TEXT_BOUNDARIES: Boundaries = (("\n\n", 0), ("\n", 0), (" ", 0))
JSON_BOUNDARIES: Boundaries = (("\n", 0), ("},", 1), ("],", 1), (",", 0))


def cut(text: str, cap: int, marker: Callable[[int], str], boundaries: Boundaries) -> str:
    """`text` cut at a clean boundary so that it and its marker fit in `cap` characters."""
    # The marker for the full length is the longest it can be (kept <= total has no more digits).
    room = max(cap - len(marker(len(text))), 0)
    kept = text[: cut_point(text, room, boundaries)].rstrip()
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
