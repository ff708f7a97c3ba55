"""Rules on one tool result as a revision carries it, read the way one host reads it.

A host profile (hosts/profiles.py) says what of a result reaches the model; these rules say
where that loses something: over the host's size limit, an error whose later blocks are not
read, images a host drops with no text beside them, text that says something else than the
structured value the host shows instead, a cut whose rest only a resource read could reach.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from plainmcp.hosts.profiles import HostProfile, known
from plainmcp.lint.problems import Problem
from plainmcp.model.truncate import size as size_in

CONTINUATION = re.compile(r"call the tool ([A-Za-z0-9_.-]+) with arguments (\{[^\n]*?\})\.")
"""The sentence every marker of a cut carries when the rest is reachable by a tool call."""
BLOB_PREFIX = "plainmcp://blob/"
CHARS_PER_TOKEN = 4
"""The estimate of tokens: characters / 4 (what tokenizers give English text and JSON, roughly;
hosts count tokens with their model's tokenizer)."""

_KIND_CELL = {"image": "images", "audio": "audio"}


def _texts(result: Mapping[str, Any]) -> list[str]:
    return [
        str(b.get("text", ""))
        for b in result.get("content") or []
        if isinstance(b, Mapping) and b.get("type") == "text"
    ]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def model_chars(result: Mapping[str, Any], profile: HostProfile) -> int:
    """The size of the result the host hands its model, in the unit it counts (text blocks, and
    the structured value as compact JSON where the host shows it; binary blocks not counted)."""
    reads = known(profile, "reads")
    unit = known(profile, "limit_unit")
    has_structured = "structuredContent" in result
    texts = sum(size_in(t, unit) for t in _texts(result))
    structured = size_in(_compact(result["structuredContent"]), unit) if has_structured else 0
    if not has_structured or reads == "content":
        return texts
    if reads == "structured":
        return structured
    return texts + structured


def _agrees(text: str, structured: Any) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    wrapped = isinstance(structured, Mapping) and structured.keys() == {"result"}
    return bool(value == structured or (wrapped and value == structured["result"]))


def result_problems(result: Mapping[str, Any], profile: HostProfile, subject: str) -> list[Problem]:
    """Where `profile`'s host loses part of `result` (a CallToolResult as the wire has it)."""
    host = profile.key
    found: list[Problem] = []

    def add(code: str, message: str) -> None:
        found.append(Problem(code, subject, message, hosts=(host,)))

    limit = known(profile, "limit")
    unit = known(profile, "limit_unit")
    size = model_chars(result, profile)
    if isinstance(limit, int) and size > limit:
        how = known(profile, "limit_raise")
        add(
            "over-limit",
            f"{size} {unit} reach the model, about {math.ceil(size / CHARS_PER_TOKEN)}"
            f" tokens ({unit}/{CHARS_PER_TOKEN}), over {profile.title}'s limit of {limit}"
            f" {unit} (about {limit // CHARS_PER_TOKEN} tokens)"
            + (f"; raise it with {how}, or" if how else ";")
            + f" return less, or hold the tool to the host's limit"
            f" (@app.tool(limits=PayloadLimits(text_result={limit}))) so that plainmcp cuts it"
            " and the model reads the rest with read_more",
        )

    blocks = [b for b in result.get("content") or [] if isinstance(b, Mapping)]
    if result.get("isError") and len(blocks) > 1 and known(profile, "error_blocks") == "first":
        add(
            "first-block-only",
            f"the error has {len(blocks)} content blocks; the host hands its model only the"
            " first: say everything the model needs in one block (raise ToolError with the"
            " whole message)",
        )

    texts = [t for t in _texts(result) if t.strip()]
    kinds = sorted({str(b.get("type")) for b in blocks if b.get("type") in _KIND_CELL})
    dropped = [k for k in kinds if known(profile, _KIND_CELL[k]) == "dropped"]
    if dropped and not texts and "structuredContent" not in result:
        add(
            "image-only",
            f"the result is {' and '.join(dropped)} content with no text, which the host"
            " drops: its model gets nothing; add a text block that describes it",
        )

    reads = known(profile, "reads")
    if "structuredContent" in result and texts and reads in ("structured", "content"):
        joined = "\n".join(texts)
        if not _agrees(joined, result["structuredContent"]):
            shown, lost = (
                ("structuredContent", "text")
                if reads == "structured"
                else (
                    "text",
                    "structuredContent",
                )
            )
            add(
                "text-differs",
                f"the text and structuredContent differ; the host hands its model only the"
                f" {shown}, so what only the {lost} says is lost; put every fact in both,"
                " or return the value alone and let plainmcp write the text",
            )

    linked = [
        str(b.get("uri"))
        for b in blocks
        if b.get("type") == "resource_link" and str(b.get("uri", "")).startswith(BLOB_PREFIX)
    ]
    linked += [m.group(0) for t in texts for m in re.finditer(r"plainmcp://blob/\S+", t)]
    readable = known(profile, "reads_resources") is True
    if linked and not readable and not _continued(result, blocks, texts, profile):
        add(
            "rest-lost",
            f"the result was cut and the rest is only at {linked[0]}; the host cannot (or is"
            " not known to) read resources, and no text it shows says which tool call returns"
            " the rest; say it in the text (`call the tool NAME with arguments {...}.`), as"
            " plainmcp's own cuts do while its continuation tool is on (read_more, the default)",
        )
    return found


def _continued(
    result: Mapping[str, Any], blocks: list[Mapping[str, Any]], texts: list[str], p: HostProfile
) -> bool:
    """Whether what the host shows its model names the continuation: the text, unless the host
    shows structuredContent in its place; the links' descriptions, unless it drops links
    (hosts/adapt.py puts the sentence there for a host that shows only structuredContent)."""
    shown = [] if "structuredContent" in result and known(p, "reads") == "structured" else texts
    if known(p, "links") != "dropped":
        shown += [str(b.get("description", "")) for b in blocks if b.get("type") == "resource_link"]
    return any(CONTINUATION.search(t) for t in shown)
