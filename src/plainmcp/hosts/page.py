"""docs/hosts.md's host table, rendered from the profiles (profiles/): one section per
profile, every cell with its source, after a head that says what the adaptations are.

tests/hosts/comparison.py writes the page (`python -m tests.hosts.comparison`), this table
first and then the comparison with the official SDK and FastMCP it measures.
"""

from __future__ import annotations

from typing import Any

from plainmcp.hosts.profiles import PROFILES, Cell, HostProfile
from plainmcp.hosts.profiles.cells import Declared

_CELLS = (
    ("reads", "With both content and structuredContent, the model gets"),
    ("error_blocks", "Blocks of an isError result it gets"),
    ("images", "Images"),
    ("audio", "Audio"),
    ("embedded", "Embedded resources"),
    ("links", "Resource links"),
    ("limit", "Inline limit"),
    ("limit_unit", "Counted in"),
    ("limit_raise", "Raising the limit"),
    ("max_result_size_meta", 'Honours `_meta["anthropic/maxResultSizeChars"]`'),
    ("reads_resources", "The model can read resources"),
    ("text_join", "Text blocks of one result"),
    ("error_marked", "The model is told a call failed"),
    ("json_text_parsed", "A JSON text that is not an object fails the call"),
)


def _value(cell: Cell[Any]) -> str:
    if cell.value is None:
        return "unknown" if cell.source == "unknown" else "none"
    if isinstance(cell.value, bool):
        return "yes" if cell.value else "no"
    if isinstance(cell.value, int):
        return f"{cell.value:,}"
    return str(cell.value)


_DECLARED = (
    ("declared", "Declares when it connects"),
    ("declared_http", "Declares over HTTP"),
    ("declared_legacy", "Declares when server/discover is refused"),
    ("declared_interactive", "Declares in its terminal UI"),
)


def _declared(declared: Declared) -> str:
    """A Declared cell's value: the revision (and how asked), tasks, skills, the capabilities."""
    how = "server/discover" if declared.discover else "initialize"
    asks = ", ".join(
        f"{name} {'yes' if flag else 'no'}"
        for name, flag in (("tasks", declared.tasks), ("skills", declared.skills))
    )
    return f"{declared.revision} by {how}; {asks}; capabilities `{declared.capabilities}`"


def _declared_rows(p: HostProfile) -> str:
    rows = []
    for attr, label in _DECLARED:
        cell: Cell[Declared] = getattr(p, attr)
        if cell.value is not None:
            value = _declared(cell.value)
            rows.append(f"| {label} | {_escape(value)} | {_escape(cell.source)} |\n")
    return "".join(rows)


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def hosts_markdown() -> str:
    """docs/hosts.md: one section per profile, every cell with its source."""
    parts = [_HEAD]
    for p in PROFILES:
        names = ", ".join(f"`{n}`" for n in p.client_names) or "none of its own"
        parts.append(f"\n## {p.title}\n\nKey `{p.key}`; selected by clientInfo.name: {names}.\n")
        if p.verified:
            parts.append(f"Verified at: {_escape(p.verified)}.\n")
        parts.append("\n| | value | source |\n|---|---|---|\n")
        for attr, label in _CELLS:
            cell: Cell[Any] = getattr(p, attr)
            parts.append(f"| {label} | {_escape(_value(cell))} | {_escape(cell.source)} |\n")
        parts.append(_declared_rows(p))
    parts.append(_clients_tasks())
    return "".join(parts)


_CLIENT_TASKS_COLUMNS = (
    "Client",
    "2025-11-25 core tasks (`task`, tasks/get, tasks/result)",
    "2026-07-28 tasks extension",
    "Where (read in its code)",
)
_CLIENT_TASKS = (
    (
        "Python SDK `mcp` 2.3.0, `Client`",
        "no: `call_tool` has no `task`; a `task` call sent raw through `session.send_request`"
        " gets a CreateTaskResult the session refuses (every tools/call result is validated as"
        " a CallToolResult: `content` missing); tasks/* are left out of its method tables",
        "not built in; its extensions framework carries it: a `ClientExtension` with a"
        " `ResultClaim` on resultType `task` whose resolver polls tasks/get, and `call_tool`"
        " returns the task's result (declared under capabilities.extensions)",
        "mcp/client/client.py `Client.call_tool`; mcp/client/session.py `ClientSession.call_tool`,"
        " `send_request`, `_build_capabilities` (never `tasks`); mcp/client/extension.py"
        " `ClientExtension`, `ResultClaim`; mcp_types/methods.py (2025-11-25: tasks/*"
        " deliberately absent)",
    ),
    (
        "TypeScript SDK `@modelcontextprotocol/client` 2.4.0",
        "no: `callTool`, and `request()` even with an explicit CreateTaskResult schema, refuse a"
        " tools/call result carrying `task` (SdkError INVALID_RESULT: content is required when"
        " the body carries 'task'); the task schemas are there",
        "no: tasks/get toward a 2026-07-28 peer is refused before it is sent"
        " (METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION); `capabilities.extensions` can be declared",
        "dist/src-*.mjs `CallToolResultWireSchema`, `TOOL_RESULT_FOREIGN_FAMILY_KEYS`,"
        " `codecResultValidator`; dist/public-*.mjs `Client.callTool`",
    ),
    (
        "`@modelcontextprotocol/ext-tasks` 0.2.2 over that client",
        "yes: `createTaskSessionFromClient(client).callTool` sends `task` for a required tool,"
        " or an optional one with `task.preference` `prefer`, polls tasks/get and reads"
        " tasks/result",
        "yes, with the host's own `rawDispatch` and `v2RequestFraming`; it takes a server's"
        " extension entry for tasks only when that entry is an empty object",
        "dist/client/session.js `callTool`; dist/client/sdk-client-adapter.js"
        " `clientTaskCapabilities`, `frameV2TaskRequest`",
    ),
)


def _clients_tasks() -> str:
    """The section on what SDK clients nobody here wrote do with tasks."""
    head = "| " + " | ".join(_CLIENT_TASKS_COLUMNS) + " |\n"
    rule = "|" + "---|" * len(_CLIENT_TASKS_COLUMNS) + "\n"
    rows = "".join("| " + " | ".join(map(_escape, row)) + " |\n" for row in _CLIENT_TASKS)
    return _CLIENT_TASKS_HEAD + head + rule + rows + _CLIENT_TASKS_TAIL


_CLIENT_TASKS_HEAD = """
## Tasks in the SDK clients

What the official clients do with a task, read in their code and run against plainmcp over HTTP
by tests/interop/test_tasks_sdk.py (each says its exact results). A client that asks for no task
gets a `task="optional"` tool's plain result, on every revision.

"""

_CLIENT_TASKS_TAIL = """
The official Python SDK's server (`mcp` 2.3.0, `MCPServer`) offers neither tasks nor skills: its
extension seam (mcp/server/extension.py `Extension`: tools, resources, new methods, one tools/call
interceptor; `MCPServer(extensions=[...])`) ships one extension, MCP Apps
(mcp/server/apps.py `Apps`, `io.modelcontextprotocol/ui`).
"""


_HEAD = """\
# Hosts

<!-- Generated from src/plainmcp/hosts/profiles.py, and the comparison at the end from the
     host tests, by `python -m tests.hosts.comparison`. Do not edit by hand:
     tests/hosts/test_profiles.py and test_comparison.py fail when this file is stale. -->

What each known MCP client hands its model from a tool result. plainmcp picks a row by the
`clientInfo.name` a client sends (at `initialize`, or in each 2026-07-28 request's `_meta`;
compared case-insensitively) and adapts the rendered result to it only where that changes
what the model gets (`plainmcp.hosts.adapt`). Any other client gets the spec's reading
(the last row): its results are exactly what plainmcp sends without profiles.

A cell nobody verified says "unknown" and takes the generic behaviour. The "Declares" rows say
what the host sends of itself when it connects, exactly (the revision, `server/discover` or
`initialize`, whether it asks for tasks or skills, its client capabilities), as the tests drive
it (tests/hosts/test_declared.py pins them).

What the adaptations are:

- reads `structured` or `both` (the host shows only structuredContent when there is one, or both
  in one text): tools/list gives it every tool without its output schema, and its results carry
  the tool's text and the value's JSON in `content`; `structuredContent`, then optional, is left
  out, unless the content is exactly the value's JSON (reads `structured`), which the model then
  gets either way. A cut value's marker and `read_more` sentence are in that text.
- reads `content`: `structuredContent` stays, and a text block with the value's JSON is added
  when no block carries it.
- an inline limit: every result and every `read_more` part stays within 90 % of it, counted in
  its unit (characters, UTF-8 bytes or UTF-16 units), the value's JSON and the text in one
  budget, so the host never cuts the result or hides it behind a preview. A limit the server
  turned off (None) stays off.
- a JSON text that is not an object fails the call: a result without `structuredContent` whose
  first text block is such JSON gets it as `structuredContent` (`{"result": ...}` where the
  revision wants an object).
- isError blocks `first`: the text blocks of an error become one text block.
- text blocks `run together` (the host hands them on with nothing, or only a newline, between
  them): the text blocks of a result become one text block, a blank line between each two, so
  the model still sees where one ends.
- not told a call failed: the first text block of an isError result starts with `Error: `
  (a text block `Error: the call failed.` comes first when there is none).
- images, audio or links `dropped`: a text line describing each (kind, MIME type, size; a
  link's name, URI and description) follows it; `refused` (the client fails the whole call on
  it): the line replaces it. Embedded resources `bare` (shown without their URI): a line naming
  the URI follows.
- honours `maxResultSizeChars`: tools/list gives each tool
  `_meta["anthropic/maxResultSizeChars"]`, the larger of the server's `text_result` and
  `structured` limits, when that is above the host's own limit (capped at 500,000).

Several Python frameworks send the official SDK's default name `mcp` (openai-agents,
LangChain's adapters, the SDK's own ClientSession), and FastMCP's client and pydantic-ai send
`fastmcp`; the server cannot tell them apart, so each name selects the row that loses least
across them: for `mcp`, audio is described instead of sent (LangChain fails the whole call on
it) and errors are marked (openai-agents does not flag them).
"""
