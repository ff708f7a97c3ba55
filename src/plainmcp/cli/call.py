"""`plainmcp call`: one tool called with arguments from the command line, its progress and
log messages on stderr, its questions asked on the terminal; with --task, run as a task
(task.py)."""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plainmcp.cli.connect import Target, connect_and_run, parse_headers
from plainmcp.cli.output import Files, render_result
from plainmcp.cli.usage import EXIT_USAGE, UsageError

if TYPE_CHECKING:
    from plainmcp.client import CallToolResult, Client, ToolInfo


def parse_arguments(pairs: Sequence[str], json_text: str | None) -> dict[str, Any]:
    """`key=value` pairs (JSON when the value parses as JSON, else a string) over `--args`."""
    arguments: dict[str, Any] = {}
    if json_text is not None:
        try:
            loaded = json.loads(json_text)
        except ValueError as exc:
            raise UsageError(f"--args is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise UsageError("--args must be a JSON object, e.g. --args '{\"a\": 1}'")
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


def target_of(args: argparse.Namespace, command: str) -> Target:
    return Target(command, args.target, args.protocol, parse_headers(args.header, args.bearer))


def rejected_arguments(result: CallToolResult, tool: ToolInfo, arguments: Any) -> str | None:
    """What to say when the server rejected the arguments, else None (the call's own failure).

    A rejection is plainmcp's result for arguments that fail the tool's input schema
    (tools.invalid_arguments: always its wording for a file, which `plainmcp run` serves), or,
    from any server, an isError result for arguments that the tool's listed input schema rejects
    too (checked with jsonschema, which plainmcp[cli] brings; a server's own wording varies).
    """
    from plainmcp.errors import field_lines
    from plainmcp.schema.validation import jsonschema_check
    from plainmcp.tools import invalid_arguments

    if not result.is_error:
        return None
    if result.text.startswith(invalid_arguments(tool.name) + "\n"):
        return result.text
    try:
        check = jsonschema_check(tool.input_schema, "input")
    except ValueError:  # the server's schema is not one: nothing to check against
        return None
    errors = [] if check is None else check(arguments)
    if not errors:
        return None
    return (
        f"{invalid_arguments(tool.name)}\n{field_lines(errors)}\n"
        f"(by the tool's input schema; the server said: {' '.join(result.text.split())})"
    )


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


async def print_result(
    client: Client, result: CallToolResult, args: argparse.Namespace, command: str, tool: str
) -> int:
    """Print a call's result as `call` does (stdout; an isError result on stderr, exit 1)."""
    from plainmcp.cli.follow import FollowError, follow_all
    from plainmcp.client import parse_call_result

    raw = result.raw
    if args.all and not result.is_error:
        try:
            raw = await follow_all(client, raw)
        except FollowError as exc:
            print(f"plainmcp {command}: --all could not read the rest: {exc}", file=sys.stderr)
            return 1
        result = parse_call_result(raw)
    if args.json:
        print_json(raw)
        return 1 if result.is_error else 0
    text = render_result(result, Files(args.out), tool)
    if result.is_error:
        print(f"error: {text}", file=sys.stderr)
        return 1
    print(text)
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    from plainmcp.cli.ask import TerminalAsker
    from plainmcp.cli.feedback import Feedback
    from plainmcp.cli.task import check_task_arguments
    from plainmcp.client import McpError
    from plainmcp.wire.jsonrpc import INVALID_PARAMS

    check_task_arguments(args)
    arguments = parse_arguments(args.arguments, args.args)
    where = target_of(args, "call")
    asker = TerminalAsker()
    feedback = Feedback()

    async def body(client: Client) -> int:
        import anyio

        from plainmcp.cli.task import TaskCall, task_ended

        tools = {t.name: t for t in await client.list_tools()}
        if args.tool not in tools:
            known = ", ".join(tools) or "none"
            hint = shlex.join(["plainmcp", "list", args.target])
            print(
                f"plainmcp call: no tool named {args.tool!r} (tools: {known}; `{hint}` lists them)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        with anyio.CancelScope() as scope:

            def refuse() -> None:
                # The call is abandoned: its late answer, if any, is no news to the user.
                logging.getLogger("plainmcp.client").setLevel(logging.ERROR)
                scope.cancel()

            asker.on_refuse = refuse
            try:
                if args.task:
                    outcome = await TaskCall(client, args, feedback).run(arguments)
                    if isinstance(outcome, int):
                        return outcome  # detached: the task runs on
                    result = outcome
                else:
                    result = await client.call_tool(
                        args.tool, arguments, on_progress=feedback.on_progress
                    )
            except McpError as exc:
                ended = task_ended(exc)
                if ended is not None:  # the task's own end, not the arguments refused
                    print(f"plainmcp call: {ended}", file=sys.stderr)
                    return 1
                if exc.code != INVALID_PARAMS:
                    raise
                rejected: str | None = f"error {exc.code}: {exc.message}"
            else:
                rejected = rejected_arguments(result, tools[args.tool], arguments)
        feedback.stop()
        if asker.refused is not None:
            print(f"plainmcp call: {asker.refused}", file=sys.stderr)
            return 1
        if rejected is not None:
            hint = shlex.join(["plainmcp", "list", args.target])
            print(f"plainmcp call: {rejected}\n(`{hint}` shows the parameters)", file=sys.stderr)
            return EXIT_USAGE
        return await print_result(client, result, args, "call", args.tool)

    with feedback:
        if args.task:
            from plainmcp.cli.task import task_options

            return connect_and_run(where, body, **task_options(feedback, asker))
        return connect_and_run(where, body, elicit=asker, on_log=feedback.on_log)
