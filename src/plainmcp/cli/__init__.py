"""The `plainmcp` command: run a server, list its tools, call one, or watch the demo.

plainmcp run server.py[:app]          serve over stdio (stdout guarded before the import)
plainmcp run deploy.py:web --http     serve an HttpApp (or a Server) over Streamable HTTP
plainmcp list server.py               the tools and their parameters
plainmcp call server.py add a=2 b=3   call a tool and print the result
plainmcp demo                         the packaged demo server (plainmcp/demo.py), end to end

A command's options may come anywhere after it. Exit codes: 0, 1 (an isError result, a protocol
error, a failed import), 2 (a usage error: the command could not be carried out as given).

This module is the parser and `main`; the commands are run.py, call.py (list and call) and
demo.py; target.py finds the server in FILE[:OBJECT], spawn.py talks to it, output.py prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from plainmcp.cli.call import cmd_call, cmd_list, parse_arguments
from plainmcp.cli.demo import cmd_demo, sample_arguments
from plainmcp.cli.output import Files, describe_tool, render_result
from plainmcp.cli.run import cmd_run
from plainmcp.cli.target import load_server, load_target, split_target
from plainmcp.cli.usage import EXIT_USAGE, UsageError

__all__ = [
    "Files",
    "UsageError",
    "describe_tool",
    "load_server",
    "load_target",
    "main",
    "parse_arguments",
    "render_result",
    "sample_arguments",
    "split_target",
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


COMMANDS = {
    "run": "serve a server over stdio (or Streamable HTTP)",
    "list": "list a server's tools and their parameters",
    "call": "call a tool and print its result",
    "demo": "start the demo server and call each of its tools",
}

TARGET_HELP = (
    "a Python file, optionally with the name of a Server or HttpApp in it: server.py or"
    " server.py:app (default: the only Server in the file, else app, server or mcp; with --http,"
    " the file's only HttpApp first)"
)


def build_parser() -> argparse.ArgumentParser:
    """The top level: --version, --help and the command; the rest goes to command_parser."""
    from plainmcp import __version__

    listing = "\n".join(f"  {name:<6} {text}" for name, text in COMMANDS.items())
    parser = _Parser(
        prog="plainmcp",
        description="Run, inspect and try MCP servers.",
        epilog=f"commands:\n{listing}\n\n`plainmcp COMMAND --help` for a command's options.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"plainmcp {__version__}")
    parser.add_argument("command", metavar="COMMAND", choices=COMMANDS, help=", ".join(COMMANDS))
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def command_parser(command: str) -> argparse.ArgumentParser:
    """One command's parser. It reads intermixed arguments: options may come before, between
    or after the positionals (`call server.py chart --out DIR region=north`)."""
    from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE

    p = _Parser(
        prog=f"plainmcp {command}",
        description=COMMANDS[command][0].upper() + COMMANDS[command][1:] + ".",
    )

    def protocol_option() -> None:
        p.add_argument(
            "--protocol",
            default=LATEST_HANDSHAKE,
            choices=HANDSHAKE_VERSIONS,
            help=f"protocol revision to ask for (default {LATEST_HANDSHAKE})",
        )

    def out_option() -> None:
        p.add_argument("--out", metavar="DIR", help="folder for images, audio and blobs")

    if command == "run":
        p.add_argument("target", metavar="FILE[:OBJECT]", help=TARGET_HELP)
        p.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
        p.add_argument("--host", help="HTTP address (default 127.0.0.1)")
        p.add_argument("--port", type=int, help="HTTP port (default 8000)")
        p.add_argument("--path", help="HTTP endpoint path (default /mcp)")
        p.add_argument(
            "--allowed-host",
            metavar="HOST",
            action="append",
            help="a Host value to answer besides the local names (host or host:port, or *);"
            " repeatable",
        )
        p.add_argument(
            "--allowed-origin",
            metavar="ORIGIN",
            action="append",
            help="a browser Origin to accept besides local pages (https://app.example.com,"
            " or *); repeatable",
        )
        p.add_argument(
            "--workers",
            metavar="N",
            type=int,
            help="HTTP: serve from N processes sharing the port (uvicorn's supervisor)",
        )
        p.add_argument(
            "--shutdown-deadline",
            metavar="SECONDS",
            type=float,
            default=30.0,
            help="on SIGTERM, how long running calls get to finish (default 30)",
        )
        p.add_argument("--caller", default="run", help=argparse.SUPPRESS)
        p.set_defaults(func=cmd_run)
    elif command == "list":
        p.add_argument("target", metavar="FILE[:OBJECT]", help=TARGET_HELP)
        protocol_option()
        p.set_defaults(func=cmd_list)
    elif command == "call":
        p.add_argument("target", metavar="FILE[:OBJECT]", help=TARGET_HELP)
        p.add_argument("tool", metavar="TOOL")
        p.add_argument(
            "arguments",
            metavar="key=value",
            nargs="*",
            help="tool arguments; values are JSON when they parse as JSON (a=2, items=[1,2]),"
            " else strings",
        )
        p.add_argument("--json", metavar="OBJECT", help="the arguments as one JSON object")
        out_option()
        protocol_option()
        p.set_defaults(func=cmd_call)
    else:
        p.add_argument("file", metavar="FILE", nargs="?", help="default: plainmcp's own demo")
        out_option()
        p.add_argument("--timeout", type=float, default=20.0, help="seconds per tool call")
        protocol_option()
        p.set_defaults(func=cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from plainmcp.transports.stdout import release_stdout

    release_stdout()  # the command decides: `run` claims stdout, the others print to it
    top = build_parser().parse_args(argv)
    args = command_parser(top.command).parse_intermixed_args(top.rest)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except UsageError as exc:
        print(f"plainmcp {getattr(args, 'caller', top.command)}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
