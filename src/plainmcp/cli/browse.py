"""`plainmcp list`, `read` and `prompt`: what a server offers, one resource, one prompt."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plainmcp.cli.call import print_json, target_of
from plainmcp.cli.connect import connect_and_run
from plainmcp.cli.usage import UsageError

if TYPE_CHECKING:
    from plainmcp.client import Client

LISTS = (
    ("tools", "tools/list", "tools", "tools"),
    ("resources", "resources/list", "resources", "resources"),
    ("resource templates", "resources/templates/list", "resourceTemplates", "resources"),
    ("prompts", "prompts/list", "prompts", "prompts"),
)
"""Each list: its heading, method, result key, and the capability that offers it."""


async def _every(client: Client, method: str, key: str) -> list[dict[str, Any]]:
    """A list as the server sent it (every page), for --json and the view alike."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        result = await client.request(method, {"cursor": cursor} if cursor else None)
        page = result.get(key)
        if isinstance(page, list):
            items.extend(item for item in page if isinstance(item, dict))
        cursor = result.get("nextCursor") or None
        if not isinstance(cursor, str) or cursor in seen:
            return items
        seen.add(cursor)


def cmd_list(args: argparse.Namespace) -> int:
    from plainmcp.cli.extensions_view import announced, list_skills
    from plainmcp.cli.inspect import sections

    async def body(client: Client) -> int:
        found: dict[str, Any] = {}
        for _, method, key, capability in LISTS:
            offered = capability in client.capabilities
            found[key] = await _every(client, method, key) if offered else []
        # Only when the server has them, so that a server without extensions lists as before.
        if extensions := announced(client.capabilities):
            found["extensions"] = extensions
        if (skills := await list_skills(client)) is not None:
            found["skills"] = skills
        if args.json:
            info = client.server_info
            print_json(
                {
                    "serverInfo": {"name": info.name, "version": info.version},
                    "protocolVersion": client.protocol_version,
                    **found,
                }
            )
        else:
            # Output schemas are for --json (and `plainmcp inspect`): the view stays a list.
            print("\n".join(sections(found, returns=False)).lstrip("\n"))
        return 0

    return connect_and_run(target_of(args, "list"), body)


def cmd_read(args: argparse.Namespace) -> int:
    async def body(client: Client) -> int:
        result = await client.request("resources/read", {"uri": args.uri})
        if args.json:
            print_json(result)
            return 0
        from plainmcp.client.results import parse_read_result

        contents = parse_read_result(result).contents
        if args.out is not None:
            out = Path(args.out)
            data = b"".join(
                c.blob if c.blob is not None else (c.text or "").encode() for c in contents
            )
            out.write_bytes(data)
            print(f"{args.uri} -> {out} ({len(data)} bytes)", file=sys.stderr)
            return 0
        blobs = [c for c in contents if c.blob is not None]
        if blobs:
            sizes = ", ".join(
                f"{c.mime_type or 'no type'}, {len(c.blob or b'')} bytes" for c in blobs
            )
            raise UsageError(f"{args.uri} is binary ({sizes}): write it to a file with --out FILE")
        sys.stdout.write("".join(c.text or "" for c in contents))
        return 0

    return connect_and_run(target_of(args, "read"), body)


def parse_prompt_arguments(pairs: list[str]) -> dict[str, str]:
    arguments: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"prompt arguments are key=value, not {pair!r}")
        arguments[key] = value
    return arguments


def cmd_prompt(args: argparse.Namespace) -> int:
    arguments = parse_prompt_arguments(args.arguments)

    async def body(client: Client) -> int:
        params: dict[str, Any] = {"name": args.name}
        if arguments:
            params["arguments"] = arguments
        result = await client.request("prompts/get", params)
        if args.json:
            print_json(result)
            return 0
        from plainmcp.cli.output import Files, render_blocks
        from plainmcp.client.results import parse_block

        out: list[str] = []
        if isinstance(result.get("description"), str):
            out.append(f"# {result['description']}")
        for index, message in enumerate(result.get("messages") or [], 1):
            block = parse_block(message.get("content"))
            shown = render_blocks([block], Files(args.out), f"{args.name}-{index}")
            out.append(f"[{message.get('role')}]\n{shown}")
        print("\n\n".join(out))
        return 0

    return connect_and_run(target_of(args, "prompt"), body)
