"""What `plainmcp list` and `plainmcp inspect` show of a server's extensions: each extension's
id and settings (`capabilities.extensions`), each tool's task support (2025-11-25:
`execution.taskSupport` in tools/list; at 2026-07-28 the tasks extension lets the server decide
per call, so no tool says it), and the skills of a server that offers the skills extension
(`skills/list`, asked with the extension declared on that request).

Everything here reads wire dicts, as the server sent them or as inspect renders them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from plainmcp.cli.output import summary_line
from plainmcp.wire.envelope import declaring
from plainmcp.wire.extension_ids import SKILLS_EXTENSION, TASKS_EXTENSION

if TYPE_CHECKING:
    from plainmcp.client import Client

KNOWN: Mapping[str, str] = {
    TASKS_EXTENSION: "a tool call may become a task; the server decides per call",
    SKILLS_EXTENSION: "the server's skills, by skills/list and skills/get",
}
"""What the official extensions mean, shown beside their settings."""
TASK_SUPPORT = ("optional", "required")
"""The `execution.taskSupport` values shown ("forbidden", the default, is not)."""


def announced(capabilities: Mapping[str, Any]) -> dict[str, Any]:
    """The server's `capabilities.extensions` (empty when absent or not an object)."""
    found = capabilities.get("extensions")
    return dict(found) if isinstance(found, dict) else {}


def extension_lines(extensions: Mapping[str, Any]) -> list[str]:
    """The extensions section: one line per extension, its id, settings and what it means."""
    out = [f"extensions ({len(extensions)}):"]
    for ident, settings in extensions.items():
        line = f"  {ident} {json.dumps(settings, ensure_ascii=False, sort_keys=True)}"
        out.append(f"{line}: {KNOWN[ident]}" if ident in KNOWN else line)
    return out


def task_support(tool: Mapping[str, Any]) -> str | None:
    """The line a tool's `execution.taskSupport` adds under it, if it may run as a task."""
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return f"    runs as a task: {support}" if support in TASK_SUPPORT else None


def skill_lines(skills: list[dict[str, Any]]) -> list[str]:
    """The skills section: a skill's SKILL.md URI, name, description and how many files."""
    out = [f"skills ({len(skills)}):"]
    for skill in skills:
        front = skill.get("frontmatter")
        front = front if isinstance(front, dict) else {}
        files = skill.get("resources")
        n = len(files) if isinstance(files, list) else 0
        count = "dynamic" if files == "dynamic" else f"{n} file{'' if n == 1 else 's'}"
        line = f"  {skill.get('uri')}  {front.get('name')}"
        summary = summary_line(front.get("description"))
        out.append(f"{line}: {summary} ({count})" if summary else f"{line} ({count})")
    return out


async def list_skills(client: Client) -> list[dict[str, Any]] | None:
    """Every skill the server lists (each page), or None when it does not offer the skills
    extension or does not serve it to this client. The extension is declared in the request's
    own `_meta`, as 2026-07-28 has it (a handshake revision's client declares its extensions at
    initialize: `Client(extensions=...)`)."""
    from plainmcp.client import McpError
    from plainmcp.wire.jsonrpc import METHOD_NOT_FOUND

    if SKILLS_EXTENSION not in announced(client.capabilities):
        return None
    declared: dict[str, Any] = {}
    if client.revision is not None and not client.revision.handshake:
        declared = declaring(None, SKILLS_EXTENSION)
    skills: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        params = {**declared, "cursor": cursor} if cursor else declared
        try:
            result = await client.request("skills/list", params or None)
        except McpError as exc:
            if exc.code != METHOD_NOT_FOUND:
                raise
            return None  # offered to clients that declare it at initialize: this one cannot
        page = result.get("skills")
        if isinstance(page, list):
            skills.extend(item for item in page if isinstance(item, dict))
        cursor = result.get("nextCursor") or None
        if not isinstance(cursor, str) or cursor in seen:
            return skills
        seen.add(cursor)
