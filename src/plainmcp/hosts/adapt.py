"""A rendered result and tool list adapted to what one host hands its model (profiles.py).

Sans-I/O, on the wire dicts `wire.render` and `wire.definitions` produce, and only where the
profile changes what the model gets: the handlers skip this module for GENERIC, whose results
stay byte-identical. docs/hosts.md lists the adaptations.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from plainmcp.continuation import SENTENCE
from plainmcp.hosts.profiles import HostProfile, known
from plainmcp.options import PayloadLimits
from plainmcp.results import CallResult
from plainmcp.wire.render import STRUCTURED_ELSEWHERE

MAX_RESULT_SIZE = "anthropic/maxResultSizeChars"
MAX_RESULT_SIZE_CEILING = 500_000
"""Claude Code honours the key up to this many characters (anthropics/claude-code#42869)."""


def call_result(
    out: dict[str, Any],
    result: CallResult,
    profile: HostProfile,
    output_schema: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """`out` (a rendered CallToolResult) as `profile`'s host should get it; `out` is changed."""
    if known(profile, "reads") == "structured":
        if output_schema is None:
            _content_over_structured(out, result)
        if "structuredContent" in out:
            _continuation_in_links(out)
    if out.get("isError") and known(profile, "error_blocks") == "first":
        _merge_text(out)
    images, audio = known(profile, "images"), known(profile, "audio")
    if images in _UNSEEN or audio in _UNSEEN:
        _describe_media(out, {"image": images, "audio": audio})
    if known(profile, "text_join") == "run together":
        _merge_text(out)
    if out.get("isError") and not known(profile, "error_marked"):
        _mark_error(out)
    return out


_UNSEEN = frozenset({"dropped", "refused"})


def _content_over_structured(out: dict[str, Any], result: CallResult) -> None:
    """For a host that shows only structuredContent: where the text says more than the value
    and no schema requires the value, leave it out so the host shows the content; and make sure
    the content carries the value too."""
    if "structuredContent" not in out or result.structured_json is None:
        return
    value = orjson.loads(result.structured_json)
    texts = [b["text"] for b in out["content"] if b.get("type") == "text"]
    if texts == [STRUCTURED_ELSEWHERE]:
        return  # no text of its own: the value is the whole result
    mirrors = [t for t in texts if _is_json_of(t, value)]
    if mirrors and len(out["content"]) == 1:
        return  # the text is only the value's JSON: nothing is lost either way
    del out["structuredContent"]
    if not mirrors:
        mirror = orjson.dumps(value).decode()
        out["content"] = [
            b
            for b in out["content"]
            if not (b.get("type") == "text" and b["text"] == STRUCTURED_ELSEWHERE)
        ] + [{"type": "text", "text": mirror}]


_SENTENCE = re.compile(SENTENCE)


def _continuation_in_links(out: dict[str, Any]) -> None:
    """For a host that shows only structuredContent, where it must stay (an output schema):
    the markers in the text never reach the model, so the continuation sentence of each goes
    into the description of the link that follows it, which such a host shows as text
    (Claude Code: `[Resource link: NAME] URI (DESCRIPTION)`)."""
    sentence: str | None = None
    blocks = out["content"]
    for index, block in enumerate(blocks):
        if block.get("type") == "text":
            found = _SENTENCE.search(block["text"])
            sentence = found.group(0) if found else sentence
        elif block.get("type") == "resource_link" and sentence is not None:
            said = block.get("description", "")
            told = f"For the rest, {sentence}"
            blocks[index] = {**block, "description": f"{said} {told}" if said else told}
            sentence = None


def _is_json_of(text: str, value: Any) -> bool:
    try:
        return bool(orjson.loads(text) == value)
    except orjson.JSONDecodeError:
        return False


def _merge_text(out: dict[str, Any]) -> None:
    """The text blocks as one, a blank line between each two, where the first: for a host that
    reads only the first block of an error, or one that runs the blocks together; any other
    blocks follow."""
    blocks = out["content"]
    texts = [b for b in blocks if b.get("type") == "text"]
    if len(texts) < 2:
        return
    merged = {"type": "text", "text": "\n\n".join(b["text"] for b in texts)}
    out["content"] = [merged] + [b for b in blocks if b.get("type") != "text"]


ERROR_PREFIX = "Error: "
NO_TEXT_ERROR = "Error: the call failed."


def _mark_error(out: dict[str, Any]) -> None:
    """For a host that hands an isError result on as it would a success: its first text block
    says it failed (a text block saying so comes first when it has none)."""
    blocks = out["content"]
    for index, block in enumerate(blocks):
        if block.get("type") == "text":
            blocks[index] = {**block, "text": ERROR_PREFIX + block["text"]}
            return
    out["content"] = [{"type": "text", "text": NO_TEXT_ERROR}, *blocks]


def _describe_media(out: dict[str, Any], carried: Mapping[str, str]) -> None:
    """A text line describing each image or audio block the host does not hand on: after the
    block where the host drops it, instead of it where the host fails the call on it."""
    blocks: list[dict[str, Any]] = []
    for b in out["content"]:
        what = carried.get(b.get("type", ""))
        if what not in _UNSEEN:
            blocks.append(b)
            continue
        if what == "dropped":
            blocks.append(b)
        blocks.append({"type": "text", "text": describe(b)})
    out["content"] = blocks


def describe(block: Mapping[str, Any]) -> str:
    """One line naming what an image or audio block holds, for a model that cannot see it."""
    kind = block.get("type", "media")
    mime = block.get("mimeType", "unknown type")
    try:
        size = f"{len(base64.b64decode(block.get('data', ''), validate=True)):,} bytes"
    except (binascii.Error, ValueError, TypeError):
        size = "unknown size"
    article = "An" if kind[:1] in "aeiou" else "A"
    return (
        f"[{article} {kind} block ({mime}, {size}) is part of this result; this client does not"
        " pass it to the model.]"
    )


# --- tools/list ----------------------------------------------------------------------------


def advertised_limit(profile: HostProfile, limits: PayloadLimits) -> int | None:
    """The `maxResultSizeChars` to advertise to `profile`'s host, or None: only to a host that
    honours it, and only above the host's own limit (below it the host already inlines the
    whole result; a smaller value could only lower what it inlines)."""
    if not known(profile, "max_result_size_meta"):
        return None
    sizes = [n for n in (limits.text_result, limits.structured) if n is not None]
    if not sizes:
        return None
    limit = min(max(sizes), MAX_RESULT_SIZE_CEILING)
    own = known(profile, "limit_chars")
    if own is not None and limit <= own:
        return None
    return limit


def tool_definitions(
    rendered: list[dict[str, Any]], limits: Sequence[int | None], meta_allowed: bool
) -> list[dict[str, Any]]:
    """Copies of rendered tool definitions that advertise each tool's limit (None: none) in
    `_meta` (where the revision has `_meta` on tools)."""
    if not meta_allowed:
        return rendered
    out = []
    for tool, limit in zip(rendered, limits, strict=True):
        if limit is None:
            out.append(tool)
            continue
        copy = dict(tool)
        copy["_meta"] = {**tool.get("_meta", {}), MAX_RESULT_SIZE: limit}
        out.append(copy)
    return out
