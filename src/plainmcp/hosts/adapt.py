"""A rendered result and tool list adapted to what one host hands its model (profiles.py).

Sans-I/O, on the wire dicts `wire.render` and `wire.definitions` produce, and only where the
profile changes what the model gets: the handlers skip this module for GENERIC, whose results
stay byte-identical. docs/hosts.md lists the adaptations.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import orjson

from plainmcp.hosts.profiles import GENERIC, HostProfile, known
from plainmcp.model.blocks import BLOCKS, unseen_line
from plainmcp.model.options import PayloadLimits
from plainmcp.model.results import CallResult
from plainmcp.wire.render import STRUCTURED_ELSEWHERE
from plainmcp.wire.revisions import StructuredShape

MAX_RESULT_SIZE = "anthropic/maxResultSizeChars"
MAX_RESULT_SIZE_CEILING = 500_000
"""Claude Code honours the key up to this many characters (anthropics/claude-code#42869)."""


def call_result(
    out: dict[str, Any],
    result: CallResult,
    profile: HostProfile,
    structured: StructuredShape = "object",
) -> dict[str, Any]:
    """`out` (a rendered CallToolResult) as `profile`'s host should get it; `out` is changed.
    `structured`: which structuredContent values the request's revision carries."""
    if profile is GENERIC:
        return out
    plan = _plan(profile)
    reads = plan.reads
    if reads is not None and "structuredContent" in out and result.structured_json is not None:
        _value_as_content(out, result.structured_json, reads)
    elif plan.json_text_parsed and structured != "none":
        _json_text_as_object(out, structured)
    if plan.error_first and out.get("isError"):
        _merge_text(out)
    if plan.describes:
        _describe_unseen(out, plan.carried)
    if plan.run_together:
        _merge_text(out)
    if plan.mark_errors and out.get("isError"):
        _mark_error(out)
    return out


_CARRIED = {cls.kind: cls.host_cell for cls in BLOCKS if cls.host_cell is not None}
"""Each block kind, and the profile cell that says what the host does with it."""
_UNSEEN = {cls.kind: cls.unseen_when for cls in BLOCKS}
"""Each block kind, and the values of its cell for which the model does not see it."""


class _Plan(NamedTuple):
    """What `call_result` does for one profile, read off its cells once."""

    reads: str | None
    json_text_parsed: bool
    error_first: bool
    carried: dict[str, str]
    describes: bool
    run_together: bool
    mark_errors: bool


@functools.lru_cache(maxsize=64)
def _plan(profile: HostProfile) -> _Plan:
    carried = {kind: known(profile, cell) for kind, cell in _CARRIED.items()}
    return _Plan(
        reads=profile.reads.value,  # unknown: the result as sent
        json_text_parsed=bool(known(profile, "json_text_parsed")),
        error_first=known(profile, "error_blocks") == "first",
        carried=carried,
        describes=any(what in _UNSEEN[kind] for kind, what in carried.items()),
        run_together=known(profile, "text_join") == "run together",
        mark_errors=not known(profile, "error_marked"),
    )


def shows_one_part(profile: HostProfile) -> bool:
    """The host shows only the structured value when there is one (or both in one text): such a
    host is listed every tool without its output schema, and sent the tool's text and the
    value's JSON in `content` (structuredContent, then optional, left out), so the model gets
    both within one budget."""
    return profile is not GENERIC and profile.reads.value in ("structured", "both")


def _value_as_content(out: dict[str, Any], structured: bytes, reads: str) -> None:
    """Make sure `content` carries the value's JSON; for a host that does not show `content`
    beside structuredContent, leave structuredContent out unless `content` is exactly that JSON
    (then the model gets the same either way and the result stays what the spec describes)."""
    blocks = out["content"]
    raw = structured.decode()
    texts = [b["text"] for b in blocks if b.get("type") == "text"]
    if raw not in texts:  # the common case, the value's own JSON text, needs no parsing
        mirror = {"type": "text", "text": raw}
        if STRUCTURED_ELSEWHERE in texts:
            at = next(i for i, b in enumerate(blocks) if b.get("text") == STRUCTURED_ELSEWHERE)
            blocks[at] = mirror
        else:
            value = orjson.loads(structured)
            if not any(_is_json_of(t, value) for t in texts):
                blocks.append(mirror)
    if reads == "content":
        return
    if reads == "structured" and len(blocks) == 1:
        return
    del out["structuredContent"]


def _json_text_as_object(out: dict[str, Any], structured: StructuredShape) -> None:
    """For a host that parses a first text block of JSON into the structured value and fails the
    call when that is not an object (Gemini CLI): send that value as structuredContent, wrapped
    the way the revision carries a value that is not an object."""
    blocks = out["content"]
    if not blocks or blocks[0].get("type") != "text":
        return
    text = blocks[0]["text"]
    if text.lstrip()[:1] not in _JSON_STARTS:
        return
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return
    if isinstance(value, dict):
        return
    out["structuredContent"] = {"result": value} if structured == "object" else value


_JSON_STARTS = frozenset('["-0123456789tfn')
"""How a JSON text that is not an object can start (after white space)."""


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


def _describe_unseen(out: dict[str, Any], carried: Mapping[str, str]) -> None:
    """A text line for each block the host does not hand on: after the block where the host
    drops it (or, for an embedded resource, drops its URI), instead of it where the host fails
    the call on it."""
    blocks: list[dict[str, Any]] = []
    for b in out["content"]:
        kind = b.get("type", "")
        what = carried.get(kind)
        if what not in _UNSEEN.get(kind, ()):
            blocks.append(b)
            continue
        if what != "refused":
            blocks.append(b)
        blocks.append({"type": "text", "text": describe(b)})
    out["content"] = blocks


def describe(block: Mapping[str, Any]) -> str:
    """One line naming what a block holds, for a model that cannot see it (or its URI)."""
    return unseen_line(block)


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
    own = known(profile, "limit")
    if own is not None and limit <= own:
        return None
    return limit


def tool_definitions(
    rendered: list[dict[str, Any]],
    limits: Sequence[int | None],
    meta_allowed: bool,
    one_part: bool = False,
) -> list[dict[str, Any]]:
    """Copies of rendered tool definitions that advertise each tool's limit (None: none) in
    `_meta` (where the revision has `_meta` on tools), and, for a host that shows one part of a
    result (`shows_one_part`), leave out the output schema."""
    out = []
    for tool, limit in zip(rendered, limits, strict=True):
        if (limit is None or not meta_allowed) and not (one_part and "outputSchema" in tool):
            out.append(tool)
            continue
        copy = dict(tool)
        if limit is not None and meta_allowed:
            copy["_meta"] = {**tool.get("_meta", {}), MAX_RESULT_SIZE: limit}
        if one_part:
            copy.pop("outputSchema", None)
        out.append(copy)
    return out
