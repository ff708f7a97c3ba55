"""`plainmcp list` and `plainmcp call`: a server's tools, and one tool called with arguments
from the command line."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plainmcp.cli.output import Files, describe_tool, render_result
from plainmcp.cli.spawn import connect_and_run
from plainmcp.cli.usage import EXIT_USAGE, UsageError

if TYPE_CHECKING:
    from plainmcp.client import CallToolResult, Client


def parse_arguments(pairs: Sequence[str], json_text: str | None) -> dict[str, Any]:
    """`key=value` pairs (JSON when the value parses as JSON, else a string) over `--json`."""
    arguments: dict[str, Any] = {}
    if json_text is not None:
        try:
            loaded = json.loads(json_text)
        except ValueError as exc:
            raise UsageError(f"--json is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise UsageError("--json must be a JSON object, e.g. --json '{\"a\": 1}'")
        arguments.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"arguments are key=value, not {pair!r}")
        try:
            arguments[key] = json.loads(value)
        except ValueError:
            arguments[key] = value
    return arguments


def cmd_list(args: argparse.Namespace) -> int:
    async def body(client: Client) -> int:
        tools = await client.list_tools()
        print("\n\n".join(describe_tool(t) for t in tools) if tools else "(no tools)")
        return 0

    return connect_and_run("list", args.target, args.protocol, body)


def is_invalid_arguments(result: CallToolResult, tool: str) -> bool:
    """The result plainmcp gives when arguments fail the tool's input schema: `plainmcp run`
    serves every target, so this is always its wording (tools.invalid_arguments)."""
    from plainmcp.tools import invalid_arguments

    return result.is_error and result.text.startswith(invalid_arguments(tool) + "\n")


def cmd_call(args: argparse.Namespace) -> int:
    arguments = parse_arguments(args.arguments, args.json)

    async def body(client: Client) -> int:
        tools = await client.list_tools()
        if args.tool not in {t.name for t in tools}:
            known = ", ".join(t.name for t in tools) or "none"
            print(f"plainmcp call: no tool named {args.tool!r} (tools: {known})", file=sys.stderr)
            return EXIT_USAGE
        result = await client.call_tool(args.tool, arguments)
        if is_invalid_arguments(result, args.tool):
            hint = shlex.join(["plainmcp", "list", args.target])
            print(f"plainmcp call: {result.text}\n(`{hint}` shows the parameters)", file=sys.stderr)
            return EXIT_USAGE
        text = render_result(result, Files(args.out), args.tool)
        if result.is_error:
            print(f"error: {text}", file=sys.stderr)
            return 1
        print(text)
        return 0

    return connect_and_run("call", args.target, args.protocol, body)
