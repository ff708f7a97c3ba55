"""`plainmcp inspect`: everything a server offers, per revision, read from the Server object
itself (no client session): what each revision's client would get from initialize (or
server/discover) and the list methods.

The definitions come from the renderers the handlers use (tool_list, wire.definitions), so
what is shown is what is sent. Lists are shown whole, as an unauthenticated session with no
hidden items would page through them, and tools as a host without a profile gets them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import TYPE_CHECKING, Any

from plainmcp.cli.output import describe_tool, summary_line
from plainmcp.cli.run import imported
from plainmcp.cli.target import load_server

if TYPE_CHECKING:
    from plainmcp.server import Server
    from plainmcp.wire.revisions import Revision


def offer(server: Server, rev: Revision) -> dict[str, Any]:
    """What a client of `rev` is offered: identity, capabilities and every definition."""
    from plainmcp.handlers.tools import tool_list
    from plainmcp.wire import definitions

    return {
        "serverInfo": server.offers.server_info(rev),
        "capabilities": server.offers.capabilities(rev),
        "tools": tool_list(server.core, rev),
        "resources": [definitions.resource(r, rev) for r in server.resources.resources],
        "resourceTemplates": [
            definitions.resource_template(t, rev) for t in server.resources.templates
        ],
        "prompts": [definitions.prompt(p, rev) for p in server.prompts],
    }


def skills(server: Server, version: str) -> list[dict[str, Any]] | None:
    """The skills a client of `version` lists, when the server offers the skills extension
    there (asked through an in-memory client: a skill's entry is built by its handler)."""
    import anyio

    from plainmcp.cli.extensions_view import announced, list_skills
    from plainmcp.client import Client
    from plainmcp.wire.extension_ids import SKILLS_EXTENSION
    from plainmcp.wire.revisions import REVISIONS

    if SKILLS_EXTENSION not in announced(server.offers.capabilities(REVISIONS[version])):
        return None

    async def ask() -> list[dict[str, Any]] | None:
        async with Client.memory(server, protocol=version) as client:
            return await list_skills(client)

    return anyio.run(ask)


def _with_skills(server: Server, version: str, got: dict[str, Any]) -> dict[str, Any]:
    listed = skills(server, version)
    return got if listed is None else {**got, "skills": listed}


def report(server: Server, versions: list[str]) -> dict[str, Any]:
    """The `--json` document: the instructions, then each revision's offer, oldest first (with
    its skills, where the server offers the skills extension)."""
    from plainmcp.wire.revisions import REVISIONS

    return {
        "instructions": server.instructions,
        "revisions": {v: _with_skills(server, v, offer(server, REVISIONS[v])) for v in versions},
    }


def _flags(value: Any) -> str:
    names = [k for k, v in value.items() if v is True] if isinstance(value, dict) else []
    return f" ({', '.join(names)})" if names else ""


def _header(item: dict[str, Any], key: str) -> str:
    line = f"  {item[key]}  {item['name']}"
    if item.get("title"):
        line += f" ({item['title']})"
    if item.get("mimeType"):
        line += f" [{item['mimeType']}]"
    summary = summary_line(item.get("description"))
    return f"{line}: {summary}" if summary else line


def sections(got: dict[str, Any], *, returns: bool = True) -> list[str]:
    """The lines of the tools, resources, templates and prompts of an offer (wire dicts, as
    inspect renders them or a server sends them to `plainmcp list`); `returns`: each tool's
    output schema too. With `extensions` (id -> settings) and `skills` (a skills/list), their
    sections too (cli/extensions_view.py)."""
    from plainmcp.cli.extensions_view import extension_lines, skill_lines, task_support
    from plainmcp.client.results import parse_tool

    out = ["", *extension_lines(got["extensions"])] if got.get("extensions") else []
    out.append(f"\ntools ({len(got['tools'])}):")
    for tool in got["tools"]:
        described = describe_tool(parse_tool(tool)).splitlines()
        out.extend("  " + line for line in described)
        if (runs := task_support(tool)) is not None:
            out.append(runs)
        if returns and "outputSchema" in tool:
            out.append(f"    returns: {json.dumps(tool['outputSchema'], ensure_ascii=False)}")
    out.append(f"\nresources ({len(got['resources'])}):")
    out.extend(_header(r, "uri") for r in got["resources"])
    out.append(f"\nresource templates ({len(got['resourceTemplates'])}):")
    out.extend(_header(t, "uriTemplate") for t in got["resourceTemplates"])
    out.append(f"\nprompts ({len(got['prompts'])}):")
    for prompt in got["prompts"]:
        summary = summary_line(prompt.get("description"))
        out.append(f"  {prompt['name']}: {summary}" if summary else f"  {prompt['name']}")
        for arg in prompt.get("arguments") or []:
            need = "required" if arg.get("required") else "optional"
            line = f"    {arg['name']} ({need})"
            if arg.get("description"):
                line += f": {' '.join(arg['description'].split())}"
            out.append(line)
    if got.get("skills") is not None:
        out += ["", *skill_lines(got["skills"])]
    return out


def human(server: Server, version: str) -> str:
    """The terminal view of one revision's offer."""
    from plainmcp.cli.extensions_view import announced
    from plainmcp.wire.revisions import REVISIONS

    got = _with_skills(server, version, offer(server, REVISIONS[version]))
    got["extensions"] = announced(got["capabilities"])
    info = got["serverInfo"]
    head = f"{info['name']} {info['version']}"
    if info.get("title"):
        head += f" ({info['title']})"
    out = [f"{head}, as revision {version} sees it"]
    if info.get("description"):
        out.append(f"description: {info['description']}")
    if server.instructions:
        out.append(f"instructions: {' '.join(server.instructions.split())}")
    caps = ", ".join(name + _flags(value) for name, value in got["capabilities"].items())
    out.append(f"capabilities: {caps}")

    out.extend(sections(got))
    return "\n".join(out)


def cmd_inspect(args: argparse.Namespace) -> int:
    from plainmcp.wire.revisions import LATEST_HANDSHAKE, REVISIONS

    # The module's own prints go to stderr: stdout is the report (`--json > snapshot.json`).
    with contextlib.redirect_stdout(sys.stderr):
        server = imported("inspect", args.target, lambda: load_server(args.target))
    if server is None:
        return 1
    if args.json:
        versions = [args.revision] if args.revision else list(REVISIONS)
        print(json.dumps(report(server, versions), indent=2, ensure_ascii=False))
    else:
        print(human(server, args.revision or LATEST_HANDSHAKE))
    return 0
