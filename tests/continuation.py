"""Following the continuation the way a model would: find the one sentence that names the call
("call the tool read_more with arguments {...}.") with the regex every helper of issue 13
shares, and make that call."""

from __future__ import annotations

import json
import re
from typing import Any

SENTENCE = re.compile(r"call the tool ([A-Za-z0-9_.-]+) with arguments (\{[^\n]*?\})\.")
REF = re.compile(r'\{"ref":"[^"]+"\}')


def next_call(text: str) -> tuple[str, dict[str, Any]] | None:
    """The call `text` names (tool name, arguments), None when it names none; more than one
    sentence is a failure."""
    found = SENTENCE.findall(text)
    assert len(found) <= 1, f"more than one continuation sentence in:\n{text}"
    if not found:
        return None
    name, arguments = found[0]
    parsed = json.loads(arguments)
    assert isinstance(parsed, dict)
    return name, parsed


def as_documented(text: str) -> str:
    """`text` with each ref written `<ref>`, as docs/results.md shows it."""
    return REF.sub('{"ref":"<ref>"}', text)
