"""What each MCP revision supports, as data.

This table is the only place that knows the revisions apart; `render` reads it to downgrade
model objects, and docs/compatibility.md is generated from it (`python -m plainmcp.wire.revisions`).
"""

from __future__ import annotations

import sys
from typing import Literal, NamedTuple

StructuredShape = Literal["none", "object", "any"]


class Revision(NamedTuple):
    """One row of the table (a NamedTuple, not a dataclass: the class is made at every start, in a sixth of the time)."""

    version: str
    handshake: bool
    """Sessions start with `initialize` (every revision before 2026-07-28)."""
    batches: bool
    """JSON-RPC batches must be accepted (2025-03-26 only)."""
    error_without_id: bool
    """An error response may leave out `id` (a parse error, an unreadable id). Older schemas
    require an id (string or integer) on every response, so such errors cannot be sent there."""
    progress_message: bool
    """`message` in notifications/progress."""
    client_requests: frozenset[str]
    """Requests a server may send to the client (2026-07-28 has none: input-required results)."""
    input_requests: frozenset[str]
    """Requests a server may make of the client inside an input-required result (2026-07-28)."""
    elicitation_multi_select: bool
    """Array (multi-select) fields in an elicitation's requestedSchema (2025-11-25+)."""
    removed_methods: frozenset[str]
    """Methods of earlier revisions this one no longer has (answered -32601); `wire.methods`
    derives each method's revisions from this and the revision that added it."""
    stream_polling: bool
    """HTTP SSE streams open with a priming event (an id, no data) and a `retry` hint, and the
    server may close one mid-call for the client to resume with Last-Event-ID (2025-11-25)."""
    session_notifications: bool
    """list_changed and resource updates go to the session (2026-07-28: subscriptions/listen);
    `SessionState.announces` and `hears_updates_of` read it."""
    content_types: frozenset[str]
    """Content block types the revision has (others get a stand-in, `render.downgrade`)."""
    annotation_fields: frozenset[str]
    """Wire names of the content annotations the revision defines."""
    block_meta: bool
    """`_meta` on content blocks and resource contents."""
    structured: StructuredShape
    """Which structuredContent values the revision carries."""
    tool_fields: frozenset[str]
    """Optional Tool fields beyond name, description and inputSchema."""
    server_info_fields: frozenset[str]
    """The Implementation fields serverInfo may carry."""
    result_type: bool
    """Every result carries `resultType`."""
    completions_capability: bool
    """initialize can announce `completions` (2024-11-05 serves completion/complete without)."""
    resource_link_icons: bool
    """`icons` on resource_link content blocks."""
    prompt_fields: frozenset[str]
    """Optional Prompt fields beyond name, description and arguments."""
    prompt_argument_fields: frozenset[str]
    """Optional PromptArgument fields beyond name, description and required."""
    resource_not_found: int
    """The error code answering a read of an unknown resource URI."""
    resource_fields: frozenset[str]
    """Optional Resource and ResourceTemplate fields beyond uri/uriTemplate, name, description,
    mimeType, annotations and (resources only) size, which every revision has."""


_BASE_CONTENT = frozenset({"text", "image", "resource"})
_BASE_ANNOTATIONS = frozenset({"audience", "priority"})

REVISIONS: dict[str, Revision] = {
    r.version: r
    for r in (
        Revision(
            version="2024-11-05",
            handshake=True,
            batches=False,
            error_without_id=False,
            progress_message=False,
            client_requests=frozenset({"sampling/createMessage", "roots/list"}),
            input_requests=frozenset(),
            elicitation_multi_select=False,
            removed_methods=frozenset(),
            stream_polling=False,
            session_notifications=True,
            content_types=_BASE_CONTENT,
            annotation_fields=_BASE_ANNOTATIONS,
            block_meta=False,
            structured="none",
            tool_fields=frozenset(),
            server_info_fields=frozenset({"name", "version"}),
            result_type=False,
            completions_capability=False,
            resource_link_icons=False,
            prompt_fields=frozenset(),
            prompt_argument_fields=frozenset(),
            resource_not_found=-32002,
            resource_fields=frozenset(),
        ),
        Revision(
            version="2025-03-26",
            handshake=True,
            batches=True,
            error_without_id=False,
            progress_message=True,
            client_requests=frozenset({"sampling/createMessage", "roots/list"}),
            input_requests=frozenset(),
            elicitation_multi_select=False,
            removed_methods=frozenset(),
            stream_polling=False,
            session_notifications=True,
            content_types=_BASE_CONTENT | {"audio"},
            annotation_fields=_BASE_ANNOTATIONS,
            block_meta=False,
            structured="none",
            tool_fields=frozenset({"annotations"}),
            server_info_fields=frozenset({"name", "version"}),
            result_type=False,
            completions_capability=True,
            resource_link_icons=False,
            prompt_fields=frozenset(),
            prompt_argument_fields=frozenset(),
            resource_not_found=-32002,
            resource_fields=frozenset(),
        ),
        Revision(
            version="2025-06-18",
            handshake=True,
            batches=False,
            error_without_id=False,
            progress_message=True,
            client_requests=frozenset(
                {"sampling/createMessage", "roots/list", "elicitation/create"}
            ),
            input_requests=frozenset(),
            elicitation_multi_select=False,
            removed_methods=frozenset(),
            stream_polling=False,
            session_notifications=True,
            content_types=_BASE_CONTENT | {"audio", "resource_link"},
            annotation_fields=_BASE_ANNOTATIONS | {"lastModified"},
            block_meta=True,
            structured="object",
            tool_fields=frozenset({"annotations", "title", "outputSchema", "_meta"}),
            server_info_fields=frozenset({"name", "version", "title"}),
            result_type=False,
            completions_capability=True,
            resource_link_icons=False,
            prompt_fields=frozenset({"title", "_meta"}),
            prompt_argument_fields=frozenset({"title"}),
            resource_not_found=-32002,
            resource_fields=frozenset({"title", "_meta"}),
        ),
        Revision(
            version="2025-11-25",
            handshake=True,
            batches=False,
            error_without_id=True,
            progress_message=True,
            client_requests=frozenset(
                {"sampling/createMessage", "roots/list", "elicitation/create"}
            ),
            input_requests=frozenset(),
            elicitation_multi_select=True,
            removed_methods=frozenset(),
            stream_polling=True,
            session_notifications=True,
            content_types=_BASE_CONTENT | {"audio", "resource_link"},
            annotation_fields=_BASE_ANNOTATIONS | {"lastModified"},
            block_meta=True,
            structured="object",
            tool_fields=frozenset(
                {"annotations", "title", "outputSchema", "_meta", "icons", "execution"}
            ),
            server_info_fields=frozenset(
                {"name", "version", "title", "icons", "description", "websiteUrl"}
            ),
            result_type=False,
            completions_capability=True,
            resource_link_icons=True,
            prompt_fields=frozenset({"title", "_meta", "icons"}),
            prompt_argument_fields=frozenset({"title"}),
            resource_not_found=-32002,
            resource_fields=frozenset({"title", "_meta", "icons"}),
        ),
        Revision(
            version="2026-07-28",
            handshake=False,
            batches=False,
            error_without_id=True,
            progress_message=True,
            client_requests=frozenset(),
            input_requests=frozenset(
                {"elicitation/create", "sampling/createMessage", "roots/list"}
            ),
            elicitation_multi_select=True,
            removed_methods=frozenset(
                {
                    "initialize",
                    "ping",
                    "logging/setLevel",
                    "resources/subscribe",
                    "resources/unsubscribe",
                }
            ),
            stream_polling=False,
            session_notifications=False,
            content_types=_BASE_CONTENT | {"audio", "resource_link"},
            annotation_fields=_BASE_ANNOTATIONS | {"lastModified"},
            block_meta=True,
            structured="any",
            tool_fields=frozenset({"annotations", "title", "outputSchema", "_meta", "icons"}),
            server_info_fields=frozenset(
                {"name", "version", "title", "icons", "description", "websiteUrl"}
            ),
            result_type=True,
            completions_capability=True,
            resource_link_icons=True,
            prompt_fields=frozenset({"title", "_meta", "icons"}),
            prompt_argument_fields=frozenset({"title"}),
            resource_not_found=-32602,
            resource_fields=frozenset({"title", "_meta", "icons"}),
        ),
    )
}

HANDSHAKE_VERSIONS: tuple[str, ...] = tuple(v for v, r in REVISIONS.items() if r.handshake)
"""Revisions whose sessions start with initialize, oldest first."""
STATELESS_VERSIONS: tuple[str, ...] = tuple(v for v, r in REVISIONS.items() if not r.handshake)
"""Revisions served per request, from `params._meta` (no initialize), oldest first."""
LATEST_HANDSHAKE: str = HANDSHAKE_VERSIONS[-1]


def negotiate(requested: object) -> Revision:
    """The revision to answer `initialize` with: the client's if we speak it, else our latest."""
    if isinstance(requested, str):
        revision = REVISIONS.get(requested)
        if revision is not None and revision.handshake:
            return revision
    return REVISIONS[LATEST_HANDSHAKE]


# --- the generated docs page -------------------------------------------------------------

_CONTENT_ORDER = ("text", "image", "audio", "resource", "resource_link")
_TOOL_FIELD_ORDER = ("title", "annotations", "outputSchema", "icons", "_meta")
_INFO_ORDER = ("name", "version", "title", "description", "icons", "websiteUrl")
_RESOURCE_FIELD_ORDER = ("title", "icons", "_meta")
_PROMPT_FIELD_ORDER = ("title", "icons", "_meta")
_STRUCTURED_CELL = {"none": "–", "object": "object only", "any": "any JSON"}


def _mark(flag: bool) -> str:
    return "yes" if flag else "–"


def compatibility_markdown() -> str:
    """docs/compatibility.md, derived from REVISIONS (a test fails when the file is stale)."""
    revs = list(REVISIONS.values())
    head = "| | " + " | ".join(r.version for r in revs) + " |"
    rule = "|---|" + "---|" * len(revs)
    rows: list[tuple[str, list[str]]] = [
        ("initialize handshake", [_mark(r.handshake) for r in revs]),
        ("JSON-RPC batches", [_mark(r.batches) for r in revs]),
        ("error reply without an `id` (parse errors)", [_mark(r.error_without_id) for r in revs]),
        ("`message` in progress notifications", [_mark(r.progress_message) for r in revs]),
        (
            "server→client `sampling/createMessage`",
            [_mark("sampling/createMessage" in r.client_requests) for r in revs],
        ),
        ("server→client `roots/list`", [_mark("roots/list" in r.client_requests) for r in revs]),
        (
            "server→client `elicitation/create`",
            [_mark("elicitation/create" in r.client_requests) for r in revs],
        ),
        (
            "multi-select (array) elicitation fields",
            [_mark(r.elicitation_multi_select) for r in revs],
        ),
        (
            "input-required results (elicitation, sampling, roots)",
            [_mark(bool(r.input_requests)) for r in revs],
        ),
        (
            "list changes and resource updates sent to the session",
            [_mark(r.session_notifications) for r in revs],
        ),
        (
            "`ping`, `logging/setLevel`, `resources/(un)subscribe`",
            [_mark("ping" not in r.removed_methods) for r in revs],
        ),
    ]
    rows += [
        (f"content `{kind}`", [_mark(kind in r.content_types) for r in revs])
        for kind in _CONTENT_ORDER
    ]
    rows += [
        ("annotation `lastModified`", [_mark("lastModified" in r.annotation_fields) for r in revs]),
        ("`_meta` on content blocks", [_mark(r.block_meta) for r in revs]),
        (
            "`structuredContent`",
            [_STRUCTURED_CELL[r.structured] for r in revs],
        ),
    ]
    rows += [
        (f"tool `{field}`", [_mark(field in r.tool_fields) for r in revs])
        for field in _TOOL_FIELD_ORDER
    ]
    rows += [
        (f"serverInfo `{field}`", [_mark(field in r.server_info_fields) for r in revs])
        for field in _INFO_ORDER
    ]
    rows += [
        ("`resultType` on results", [_mark(r.result_type) for r in revs]),
        ("`completions` capability", [_mark(r.completions_capability) for r in revs]),
        ("icons on resource links", [_mark(r.resource_link_icons) for r in revs]),
    ]
    rows += [
        (f"prompt `{field}`", [_mark(field in r.prompt_fields) for r in revs])
        for field in _PROMPT_FIELD_ORDER
    ]
    rows += [
        ("prompt argument `title`", [_mark("title" in r.prompt_argument_fields) for r in revs]),
        ("resource-not-found code", [str(r.resource_not_found) for r in revs]),
    ]
    rows += [
        (f"resource and template `{field}`", [_mark(field in r.resource_fields) for r in revs])
        for field in _RESOURCE_FIELD_ORDER
    ]
    table = "\n".join(
        [head, rule] + [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
    )
    return _PAGE.format(table=table)


_PAGE = """\
# Compatibility

<!-- Generated from src/plainmcp/wire/revisions.py by `python -m plainmcp.wire.revisions`.
     Do not edit by hand: tests/wire/test_revisions.py fails when this file is stale. -->

plainmcp serves every revision below from one tool definition. The table is the data the
renderer (`plainmcp.wire.render`) reads; a field a revision lacks is never sent to its clients.

{table}

## What a client gets when its revision cannot carry something

The Server option `compat` chooses between two policies (default: `"fallback"`).

| Situation | `compat="fallback"` (default) | `compat="strict"` |
|---|---|---|
| `resource_link` block for a client before 2025-06-18 | a text block naming the link's URI, name, type, size and description | the whole result becomes one `isError` text block naming the unsupported types |
| `audio` block for a 2024-11-05 client | an embedded resource with the audio as a base64 blob and its MIME type | as above |
| either of those in a prompt message (`prompts/get`) | the same stand-ins, in the same message | a JSON-RPC error (-32603) naming the unsupported types, instead of a prompt with parts missing |
| non-object structured value for 2025-06-18 / 2025-11-25 | `structuredContent: {{"result": value}}`, outputSchema wrapped to match | no `structuredContent`, no outputSchema; the JSON text block stays |
| structured value for a client before 2025-06-18 | no `structuredContent`; the JSON text block carries the value | same |
| tool `title` for 2025-03-26 | copied into `annotations.title` | same |
| `lastModified`, block `_meta`, icons, tool fields the revision lacks | left out | same |
| an error whose request id is unknown (unparseable line, invalid id) before 2025-11-25 | not sent (the schema requires an id); logged on stderr | same |

The default is `fallback` because it keeps every tool useful to every client: the information
reaches the model in a form the client's revision can carry, and nothing is dropped silently.
`strict` is for deployments that would rather fail loudly than send a degraded result.
"""


if __name__ == "__main__":
    sys.stdout.write(compatibility_markdown())
