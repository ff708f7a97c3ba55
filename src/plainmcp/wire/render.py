"""Results to wire dicts for one revision. Every downgrade of content lives here.

Handlers never see the revision: they produce model objects (content blocks, CallResult,
PromptResult), and these functions read the revision table to decide what each client can be
sent. The definitions the list methods send are in `definitions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import orjson

from plainmcp.model.blocks import ContentBlock
from plainmcp.model.blocks.resource import contents_wire
from plainmcp.model.encoding import as_text
from plainmcp.model.options import ResultOptions, TextMode
from plainmcp.model.results import CallResult
from plainmcp.model.summary import summarize
from plainmcp.wire.definitions import is_object_schema
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, RpcError
from plainmcp.wire.meta import SERVER_INFO
from plainmcp.wire.methods import Method
from plainmcp.wire.revisions import Revision

if TYPE_CHECKING:
    from plainmcp.model.answers import CompletionResult, Contents, Message, PromptResult

STRUCTURED_ELSEWHERE = "The result is in structuredContent."


# --- content blocks ------------------------------------------------------------------------


def block(value: ContentBlock, rev: Revision) -> dict[str, Any]:
    """One content block the revision can carry (see `downgrade` for the others)."""
    return value.wire(rev)


def downgrade(value: ContentBlock, rev: Revision) -> ContentBlock:
    """The faithful stand-in for a block the revision cannot carry."""
    stand_in = value.stand_in()
    if stand_in is None:
        raise TypeError(f"no fallback for {value.kind} at {rev.version}")
    return stand_in


# --- tool results --------------------------------------------------------------------------


def call_result(
    result: CallResult,
    rev: Revision,
    options: ResultOptions,
    output_schema: Mapping[str, Any] | None = None,
    text_mode: TextMode | None = None,
) -> dict[str, Any]:
    """A CallToolResult for one revision, with every downgrade the table calls for.

    `text_mode` is the tool's own `text_fallback` (None: the options' one)."""
    unsupported = sorted({b.kind for b in result.content if b.kind not in rev.content_types})
    if unsupported and options.compat == "strict":
        return _finish(
            {
                "content": [
                    {
                        "type": "text",
                        "text": (
                            f"This result holds {', '.join(unsupported)} content, which protocol"
                            f" revision {rev.version} cannot carry; upgrade the client to see it."
                        ),
                    }
                ],
                "isError": True,
            },
            result,
            rev,
        )
    blocks = result.content
    if unsupported:
        blocks = tuple(b if b.kind in rev.content_types else downgrade(b, rev) for b in blocks)

    out: dict[str, Any] = {}
    structured_content: Any = None
    structured = result.structured_json
    if structured is not None:
        fragment = orjson.Fragment(structured)
        if rev.structured == "any":
            structured_content = fragment
        elif rev.structured == "object":
            natural = (
                is_object_schema(output_schema)
                if output_schema is not None
                else structured[:1] == b"{"
            )
            if natural:
                structured_content = fragment
            elif options.compat == "fallback":
                structured_content = {"result": fragment}
        if not blocks or result.lifted:
            # The usual structured result: its text block is written here directly (followed
            # by the blocks lifted out of the value, which its references count from 2).
            mode = text_mode or options.text_mode
            if structured_content is None:
                mode = "json"  # the text is the only copy this client gets
            out["content"] = [{"type": "text", "text": fallback_text(structured, mode, options)}]
            if blocks:
                out["content"].extend([b.wire(rev) for b in blocks])
    if "content" not in out:
        out["content"] = [b.wire(rev) for b in blocks] if blocks else [{"type": "text", "text": ""}]
    if structured_content is not None:
        out["structuredContent"] = structured_content
    out["isError"] = result.is_error
    return _finish(out, result, rev)


def fallback_text(structured: bytes, mode: TextMode, options: ResultOptions) -> str:
    """The text block written for a structured value sent in structuredContent."""
    if mode == "json":
        return as_text(structured, options.json_indent)
    if mode == "summary":
        return summarize(structured, options.json_indent)
    return STRUCTURED_ELSEWHERE


def _finish(out: dict[str, Any], result: CallResult, rev: Revision) -> dict[str, Any]:
    if result.meta:
        out["_meta"] = dict(result.meta)
    if rev.result_type:
        out["resultType"] = "complete"
    return out


# --- every result, progress ----------------------------------------------------------------


class CachePolicy(NamedTuple):
    """Freshness hints for 2026-07-28 clients: how long a list or a read stays fresh
    (a NamedTuple, not a dataclass: the class is made at every start, in a sixth of the time)."""

    list_ttl_ms: int = 60_000
    read_ttl_ms: int = 0
    scope: Literal["public", "private"] = "public"


def finish_result(
    result: dict[str, Any],
    method: Method,
    rev: Revision,
    server_info: Mapping[str, Any],
    cache: CachePolicy,
) -> dict[str, Any]:
    """What every result of a revision with `resultType` carries: the type, the server's
    identity in `_meta`, and freshness hints where the method is cacheable (`method.ttl`)."""
    out = dict(result)
    out.setdefault("resultType", "complete")
    if method.ttl is not None and out["resultType"] == "complete":
        out["ttlMs"] = cache.list_ttl_ms if method.ttl == "list" else cache.read_ttl_ms
        out["cacheScope"] = cache.scope
    meta = dict(out.get("_meta") or {})
    meta[SERVER_INFO] = dict(server_info)
    out["_meta"] = meta
    return out


def progress(
    rev: Revision,
    token: str | int,
    value: float,
    total: float | None,
    message: str | None,
) -> dict[str, Any]:
    """notifications/progress params; `message` only where the revision has it."""
    out: dict[str, Any] = {"progressToken": token, "progress": value}
    if total is not None:
        out["total"] = total
    if message is not None and rev.progress_message:
        out["message"] = message
    return out


# --- prompts and completion ----------------------------------------------------------------


def _unsupported_in_prompt(kinds: Sequence[str], rev: Revision) -> RpcError:
    return RpcError(
        INTERNAL_ERROR,
        f"This prompt holds {', '.join(kinds)} content, which protocol revision {rev.version}"
        " cannot carry; upgrade the client to use it.",
    )


def prompt_message(value: Message, rev: Revision, options: ResultOptions) -> dict[str, Any]:
    """One PromptMessage. Content the revision cannot carry gets the same stand-in as in tool
    results, or under `compat="strict"` an RpcError: a prompt is never sent with parts missing."""
    content = value.content
    if content.kind not in rev.content_types:
        if options.compat == "strict":
            raise _unsupported_in_prompt([content.kind], rev)
        content = downgrade(content, rev)
    return {"role": value.role, "content": content.wire(rev)}


def get_prompt_result(value: PromptResult, rev: Revision, options: ResultOptions) -> dict[str, Any]:
    """A GetPromptResult; under `compat="strict"` unsupported content raises RpcError (-32603)
    naming every unsupported kind."""
    unsupported = sorted(
        {m.content.kind for m in value.messages if m.content.kind not in rev.content_types}
    )
    if unsupported and options.compat == "strict":
        raise _unsupported_in_prompt(unsupported, rev)
    out: dict[str, Any] = {}
    if value.description:
        out["description"] = value.description
    out["messages"] = [prompt_message(m, rev, options) for m in value.messages]
    if value.meta:
        out["_meta"] = dict(value.meta)
    if rev.result_type:
        out["resultType"] = "complete"
    return out


def completion_result(value: CompletionResult, rev: Revision) -> dict[str, Any]:
    """A CompleteResult (`values` is already capped at 100 by `completion.complete`)."""
    out: dict[str, Any] = {
        "completion": {
            "values": list(value.values),
            "total": value.total,
            "hasMore": value.has_more,
        }
    }
    if rev.result_type:
        out["resultType"] = "complete"
    return out


# --- resources -----------------------------------------------------------------------------


def contents(value: Contents, rev: Revision) -> dict[str, Any]:
    """One TextResourceContents or BlobResourceContents of a `resources/read` result."""
    return contents_wire(value.uri, value.mime_type, value.text, value.blob, value.meta, rev)


def read_result(items: Sequence[Contents], rev: Revision) -> dict[str, Any]:
    """A ReadResourceResult. At 2026-07-28 the server adds `ttlMs`/`cacheScope` (its policy)."""
    out: dict[str, Any] = {"contents": [contents(c, rev) for c in items]}
    if rev.result_type:
        out["resultType"] = "complete"
    return out


def resource_not_found(uri: str, rev: Revision) -> RpcError:
    """The error answering a read of an unknown URI: -32002 up to 2025-11-25, -32602 after."""
    return RpcError(rev.resource_not_found, f"Resource not found: {uri}", {"uri": uri})
