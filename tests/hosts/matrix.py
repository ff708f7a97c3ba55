"""The host matrix's script and checks, independent of the host: what a model that follows only
what it is shown makes of the matrix server's results (matrix_server.py).

One run calls each tool of the server once, following every continuation sentence to its end
(scripts.follow_continuation), so one host run answers every check. `check` returns, per
promise, None when it holds or the reason it does not: the same reasons name the failures of the
official SDK's and FastMCP's servers in docs/hosts.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from tests.hosts import matrix_server as mx
from tests.hosts.drivers import Seen
from tests.hosts.scripts import TRUNCATED, Part, Script, ToolUse, chains, follow_continuation

CALLS = ("log", "table", "table_plain", "both", "both_typed", "fails", "media")
"""The first call of each chain, in order."""

CHECKS = (
    "text rebuilt",
    "rows rebuilt (output schema)",
    "rows rebuilt (no output schema)",
    "text and value (no output schema)",
    "text and value (output schema)",
    "error recognisable",
    "image",
    "audio",
    "link",
    "embedded resource",
)


def script(name: Callable[[str], str]) -> Script:
    """Every matrix tool in turn, each followed to its last part; `name` gives the host's name
    of a server tool."""
    first, *more = (ToolUse(name(call)) for call in CALLS)
    return follow_continuation(first, *more, name=name)


def texts(parts: Sequence[Part]) -> list[str]:
    return [p.text for p in parts if p.kind in ("text", "json")]


def shown_text(parts: Sequence[Part]) -> str:
    return "\n".join(texts(parts))


PART_MARKER = re.compile(r"\n\n\[part: (characters|items) [\d,]+ to [\d,]+ of [\d,]+")
"""Where a part's marker starts when a host runs the text blocks together (the adaptation puts a
blank line between them)."""


def first_text(parts: Sequence[Part]) -> str:
    found = texts(parts)
    return found[0] if found else ""


def part_text(parts: Sequence[Part]) -> str:
    """The text of one read_more part: its first text block, up to the marker if a host ran the
    marker into it."""
    text = first_text(parts)
    found = PART_MARKER.search(text)
    return text[: found.start()] if found else text


def rebuilt_text(chain: Sequence[Sequence[Part]]) -> str:
    """The text a model rebuilds: the first result's text up to its marker (all of it when it
    was not cut), then each part."""
    head = first_text(chain[0])
    if TRUNCATED in head:
        head = head[: head.rindex(TRUNCATED)]
    return head + "".join(part_text(parts) for parts in chain[1:])


def json_values(parts: Sequence[Part]) -> list[Any]:
    """Every JSON document a result shows as text: a whole text block, or its first line."""
    found = []
    for text in texts(parts):
        for candidate in (text, text.split("\n\n", 1)[0]):
            try:
                found.append(json.loads(candidate))
                break
            except ValueError:
                continue
    return found


def rows_in(value: Any) -> list[Any] | None:
    """The rows a value holds: the list itself, a handshake revision's {"result": [...]}, or a
    read_more part's {"items": [...]}."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in ("result", "items"):
            if isinstance(value.get(key), list):
                return list(value[key])
    return None


def rebuilt_rows(chain: Sequence[Sequence[Part]]) -> list[Any] | None:
    rows: list[Any] = []
    for parts in chain:
        found = [r for r in (rows_in(v) for v in json_values(parts)) if r is not None]
        if not found:
            return None
        rows += found[0]
    return rows


def _text_check(chain: Sequence[Sequence[Part]]) -> str | None:
    got = rebuilt_text(chain)
    if got == mx.LONG:
        return None
    same = next((i for i, (a, b) in enumerate(zip(got, mx.LONG, strict=False)) if a != b), None)
    at = min(len(got), len(mx.LONG)) if same is None else same
    return f"{len(got):,} of {len(mx.LONG):,} characters rebuilt, the first difference at {at:,}"


def _rows_check(chain: Sequence[Sequence[Part]]) -> str | None:
    got = rebuilt_rows(chain)
    if got is None:
        return "no rows shown as JSON"
    if got == mx.ROWS:
        return None
    return f"{len(got):,} of {len(mx.ROWS):,} rows rebuilt"


VALUE = re.compile(r'"count"\s*:\s*2\b')


def _both_check(chain: Sequence[Sequence[Part]]) -> str | None:
    shown = shown_text(chain[0])
    lost = [
        what
        for what, there in (("the text", mx.BOTH_TEXT in shown), ("the value", VALUE.search(shown)))
        if not there
    ]
    return f"{' and '.join(lost)} lost" if lost else None


def _error_check(chain: Sequence[Sequence[Part]], failed: bool) -> str | None:
    shown = shown_text(chain[0])
    lost = [e.split(":")[0] for e in mx.ERRORS if e not in shown]
    if lost:
        return f"{', '.join(lost)} lost"
    if not failed and not shown.startswith("Error"):
        return "shown as a success"
    return None


def _media_checks(parts: Sequence[Part], saved: dict[str, bytes]) -> dict[str, str | None]:
    shown = shown_text(parts)
    kinds = {p.kind: p for p in parts if p.kind != "text"}
    image = kinds.get("image")
    audio = kinds.get("audio")
    return {
        "image": None
        if (image is not None and image.data == mx.PNG) or "image/png" in shown
        else "neither shown nor described",
        "audio": None
        if (audio is not None and audio.data == mx.WAV)
        or "audio/wav" in shown
        or any(data == mx.WAV for data in saved.values())
        else "neither shown, saved nor described",
        "link": None
        if mx.LINK_URI in shown or any(p.kind == "link" and p.text == mx.LINK_URI for p in parts)
        else "its URI lost",
        "embedded resource": None
        if mx.EMBEDDED_TEXT in shown and mx.EMBEDDED_URI in shown
        else ("its URI lost" if mx.EMBEDDED_TEXT in shown else "its text lost"),
    }


def check(seen: Seen) -> dict[str, str | None]:
    """Each promise of CHECKS: None when it holds, else why not."""
    found = chains(seen.results)
    if len(found) != len(CALLS):
        missing = {c: "not called (the run ended early)" for c in CHECKS}
        return missing
    starts = [sum(len(c) for c in found[:i]) for i in range(len(found))]
    log, table, plain, both, typed, fails, media = found
    failed = seen.failed[starts[5]] if len(seen.failed) > starts[5] else False
    return {
        "text rebuilt": _text_check(log),
        "rows rebuilt (output schema)": _rows_check(table),
        "rows rebuilt (no output schema)": _rows_check(plain),
        "text and value (no output schema)": _both_check(both),
        "text and value (output schema)": _both_check(typed),
        "error recognisable": _error_check(fails, failed),
        **_media_checks(media[0], seen.saved),
    }
