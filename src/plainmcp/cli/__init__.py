"""The `plainmcp` command: run a server, try it as a client (list, call, read, prompt), inspect
it, or watch the demo.

plainmcp run server.py[:app]          serve over stdio (stdout guarded before the import)
plainmcp run deploy.py:web --http     serve an HttpApp (or a Server) over Streamable HTTP
plainmcp list server.py               its tools, resources, templates and prompts (or a URL's)
plainmcp call server.py add a=2 b=3   call a tool and print the result
plainmcp call URL add a=2 b=3 --all  the same on a running server, the whole result
plainmcp call URL build --task --detach  start a tool as a task, print its id
plainmcp task URL ID                  reattach to a task: wait for its result (--cancel)
plainmcp read server.py notes://all   read a resource (text to stdout, bytes to --out)
plainmcp prompt server.py review      print a prompt's messages
plainmcp demo                         the packaged demo server (plainmcp/demo.py), end to end
plainmcp check server.py              lint it for every revision and host (exit 1: problems)
plainmcp inspect server.py --json     everything the server offers, per revision, no client
plainmcp dev server.py                serve it, restarting when its code changes
plainmcp proxy -- node server.js      serve any MCP server through plainmcp (or proxy URL)

A command's options may come anywhere after it. Exit codes: 0, 1 (an isError result, a protocol
error, a failed import), 2 (a usage error: the command could not be carried out as given).

This module is the parser and `main`; the commands are run.py, call.py (call; ask.py answers
elicitation, feedback.py shows progress and logs, follow.py reads the rest with --all; task.py
runs a call as a task, and is the `task` command),
browse.py (list, read, prompt), demo.py, check.py (schemas.py finds the MCP schemas it
validates against), install.py, inspect.py, proxy.py and dev.py (with relay.py and dev_child.py);
target.py finds the server in FILE[:OBJECT], connect.py talks to it or to a URL, output.py
prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from plainmcp.cli.browse import cmd_list, cmd_prompt, cmd_read
from plainmcp.cli.call import cmd_call, parse_arguments
from plainmcp.cli.connect import TARGET_HELP as CLIENT_TARGET_HELP
from plainmcp.cli.demo import cmd_demo, sample_arguments
from plainmcp.cli.dev import cmd_dev
from plainmcp.cli.inspect import cmd_inspect
from plainmcp.cli.install import add_arguments as install_arguments
from plainmcp.cli.output import Files, describe_tool, render_result
from plainmcp.cli.run import cmd_run
from plainmcp.cli.target import load_server, load_target, split_target
from plainmcp.cli.task import add_task_arguments, cmd_task
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
    "list": "list a server's tools, resources, resource templates, prompts, extensions and skills",
    "call": "call a tool and print its result",
    "task": "reattach to a task by id: wait for its result, show its status or cancel it",
    "read": "read a resource: text to stdout, bytes to a file",
    "prompt": "get a prompt with its arguments and print its messages",
    "demo": "start the demo server and call each of its tools",
    "check": "lint a server's definitions and sample calls for every revision and host",
    "install": "add a server to a host: Claude Code, Claude Desktop, Cursor, VS Code, ...",
    "uninstall": "take a server out of a host's config",
    "inspect": "show everything a server offers, per protocol revision, without a client",
    "dev": "serve a server and restart it when its code changes",
    "proxy": "serve any MCP server (a command over stdio, or a URL) through plainmcp",
    "login": "log in to a server by OAuth; list, call, read and prompt then use the login",
    "logout": "forget a server's login",
}

EXAMPLES = {
    "login": [("plainmcp login https://mcp.example.com/mcp", "sign in in the browser")],
    "logout": [("plainmcp logout https://mcp.example.com/mcp", "forget that login")],
    "proxy": [
        ("plainmcp proxy -- npx -y @modelcontextprotocol/server-everything", "over stdio"),
        ("plainmcp proxy https://mcp.example.com/mcp --http --port 9000", "serve a URL over HTTP"),
    ],
    "run": [
        ("plainmcp run server.py", "serve server.py's Server over stdio"),
        ("plainmcp run server.py:app --http --port 9000", "serve it at http://127.0.0.1:9000/mcp"),
    ],
    "list": [
        ("plainmcp list server.py", "what it offers, tools with their parameters"),
        ("plainmcp list http://127.0.0.1:8000/mcp --bearer TOKEN", "a running server"),
        ("plainmcp list server.py --json", "the lists as the server sent them"),
    ],
    "call": [
        ("plainmcp call server.py add a=2 b=3", "call add with a=2, b=3"),
        ("plainmcp call server.py chart --args '{\"rows\": [1]}' --out img", "images to img/"),
        ("plainmcp call server.py log --all", "follow read_more until the result is whole"),
        ("plainmcp call https://example.com/mcp search q=mcp --json", "the result as JSON"),
        ("plainmcp call server.py build --task", "run it as a task, its status on stderr"),
        ("plainmcp call URL build --task --detach", "start it as a task, print the task's id"),
    ],
    "read": [
        ("plainmcp read server.py notes://all", "a text resource, to stdout"),
        ("plainmcp read server.py files://logo.png --out logo.png", "bytes, to a file"),
    ],
    "prompt": [
        ("plainmcp prompt server.py summarize topic=mcp", "the messages, role by role"),
        ("plainmcp prompt http://127.0.0.1:8000/mcp summarize topic=mcp --json", "as JSON"),
    ],
    "task": [
        ("plainmcp task URL ID", "wait for the task's result and print it, as call does"),
        ("plainmcp task URL ID --status", "print its status now"),
        ("plainmcp task URL ID --cancel", "ask the server to cancel it"),
    ],
    "demo": [("plainmcp demo", "the packaged demo, every tool called once")],
    "inspect": [
        ("plainmcp inspect server.py", "what a 2025-11-25 client is offered, for reading"),
        ("plainmcp inspect server.py --json > offer.json", "every revision, stable for CI diffs"),
    ],
    "check": [
        ("plainmcp check server.py", "lint it for every revision and host"),
        ("plainmcp check server.py --call add a=2 b=3 --json", "a sample call, JSON for CI"),
    ],
    "install": [
        (
            "plainmcp install claude-code server.py",
            "Claude Code (claude mcp add-json), local scope",
        ),
        ("plainmcp install cursor server.py --scope project", ".cursor/mcp.json in this folder"),
        ("plainmcp install vscode server.py:app --env API_KEY=secret", "with an environment"),
        ("plainmcp install codex-cli server.py --uv --with pandas", "run through uv, with pandas"),
        ("plainmcp install gemini-cli http://127.0.0.1:8000/mcp --name web", "a remote server"),
        ("plainmcp install json server.py", "print the mcpServers snippet"),
    ],
    "uninstall": [
        ("plainmcp uninstall claude-code demo", "take demo out of Claude Code"),
        ("plainmcp uninstall cursor demo --scope project", "and out of this folder's Cursor"),
    ],
    "dev": [
        ("plainmcp dev server.py", "stdio for a host; restarts on edits, logs each call"),
        ("plainmcp dev server.py --http --port 9000", "the same over Streamable HTTP"),
        ("plainmcp dev server.py --inspector", "open the MCP Inspector on it (npm)"),
    ],
}

EXIT_CODES = (
    "exit codes: 0 done; 1 an isError result, a protocol error or a failed import;\n"
    "  2 a usage error (the message names the fix)"
)


def examples(command: str) -> str:
    width = max(len(line) for line, _ in EXAMPLES[command])
    rows = "\n".join(f"  {line:<{width}}  # {text}" for line, text in EXAMPLES[command])
    return f"examples:\n{rows}\n\n{EXIT_CODES}"


TARGET_HELP = (
    "a Python file, optionally with the name of a Server or HttpApp in it: server.py or"
    " server.py:app (default: the only Server in the file, else app, server or mcp; with --http,"
    " the file's only HttpApp first)"
)


def client_arguments(p: argparse.ArgumentParser, command: str) -> None:
    """The commands that talk to a server as a client, over stdio or HTTP."""
    from plainmcp.wire.revisions import LATEST_HANDSHAKE, REVISIONS

    p.add_argument("target", metavar="FILE[:OBJECT]|URL", help=CLIENT_TARGET_HELP)
    if command == "call":
        p.add_argument("tool", metavar="TOOL")
        p.add_argument(
            "arguments",
            metavar="key=value",
            nargs="*",
            help="tool arguments; values are JSON when they parse as JSON (a=2, items=[1,2]),"
            " else strings",
        )
        p.add_argument("--args", metavar="OBJECT", help="the arguments as one JSON object")
        p.add_argument(
            "--all",
            action="store_true",
            help="follow the result's continuation (read_more) and offloaded links, and print"
            " the whole result",
        )
        add_task_arguments(p)
    elif command == "task":
        p.add_argument("id", metavar="ID", help="the task's id (`call --task --detach` prints it)")
        status = p.add_mutually_exclusive_group()
        status.add_argument("--status", action="store_true", help="print its status and exit")
        status.add_argument("--cancel", action="store_true", help="ask the server to cancel it")
        p.add_argument(
            "--all",
            action="store_true",
            help="follow the result's continuation (read_more) and print the whole result",
        )
    elif command == "read":
        p.add_argument("uri", metavar="URI")
    elif command == "prompt":
        p.add_argument("name", metavar="NAME")
        p.add_argument("arguments", metavar="key=value", nargs="*", help="prompt arguments")
    p.add_argument("--json", action="store_true", help="print JSON, as the server sent it")
    if command in ("call", "prompt", "task"):
        p.add_argument("--out", metavar="DIR", help="folder for images, audio and blobs")
    elif command == "read":
        p.add_argument("--out", metavar="FILE", help="write the contents to FILE (bytes as sent)")
    p.add_argument(
        "--header",
        metavar="NAME:VALUE",
        action="append",
        help="an HTTP header for a URL (repeatable)",
    )
    p.add_argument("--bearer", metavar="TOKEN", help="a URL's bearer token (Authorization)")
    p.add_argument(
        "--protocol",
        default=LATEST_HANDSHAKE,
        choices=["auto", *REVISIONS],
        help=f"protocol revision to ask for (default {LATEST_HANDSHAKE}; auto: the newest the"
        " server speaks)",
    )
    funcs = {
        "list": cmd_list,
        "call": cmd_call,
        "read": cmd_read,
        "prompt": cmd_prompt,
        "task": cmd_task,
    }
    p.set_defaults(func=funcs[command])


def build_parser() -> argparse.ArgumentParser:
    """The top level: --version, --help and the command; the rest goes to command_parser."""
    from plainmcp.version import __version__

    width = max(map(len, COMMANDS))
    listing = "\n".join(f"  {name:<{width}} {text}" for name, text in COMMANDS.items())
    parser = _Parser(
        prog="plainmcp",
        description="Run, inspect and try MCP servers.",
        epilog=f"commands:\n{listing}\n\nexample:\n  plainmcp run server.py\n\n{EXIT_CODES}\n\n"
        "`plainmcp COMMAND --help` for a command's options and examples.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"plainmcp {__version__}")
    parser.add_argument("command", metavar="COMMAND", choices=COMMANDS, help=", ".join(COMMANDS))
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def command_parser(command: str) -> argparse.ArgumentParser:
    """One command's parser. It reads intermixed arguments: options may come before, between
    or after the positionals (`call server.py chart --out DIR region=north`)."""
    from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, LATEST_HANDSHAKE, REVISIONS

    p = _Parser(
        prog=f"plainmcp {command}",
        description=COMMANDS[command][0].upper() + COMMANDS[command][1:] + ".",
        epilog=examples(command),
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
            "--sessions",
            metavar="STORE",
            help="HTTP: where handshake sessions live: memory (default, this process), a"
            " redis:// URL shared by every process, or none (each request stands alone)",
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
    elif command in ("list", "call", "read", "prompt", "task"):
        client_arguments(p, command)
    elif command == "check":
        from plainmcp.cli.check import add_arguments, cmd_check

        add_arguments(p, TARGET_HELP)
        p.set_defaults(func=cmd_check)
    elif command in ("install", "uninstall"):
        install_arguments(p, command)
    elif command == "inspect":
        p.add_argument("target", metavar="FILE[:OBJECT]", help=TARGET_HELP)
        p.add_argument("--json", action="store_true", help="JSON of every revision (or --revision)")
        p.add_argument(
            "--revision",
            choices=REVISIONS,
            help=f"one protocol revision (default: {LATEST_HANDSHAKE}; with --json, every one)",
        )
        p.set_defaults(func=cmd_inspect)
    elif command == "proxy":
        from plainmcp.cli.proxy import add_arguments as proxy_arguments

        proxy_arguments(p)
    elif command in ("login", "logout"):
        from plainmcp.cli.login import add_arguments as login_arguments

        login_arguments(p, command, list(REVISIONS))
    elif command == "dev":
        p.add_argument("target", metavar="FILE[:OBJECT]", help=TARGET_HELP)
        p.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
        p.add_argument("--host", help="HTTP address (default 127.0.0.1)")
        p.add_argument("--port", type=int, help="HTTP port (default 8000)")
        p.add_argument(
            "--inspector",
            action="store_true",
            help="open the MCP Inspector (npm install -g @modelcontextprotocol/inspector) on it",
        )
        p.set_defaults(func=cmd_dev)
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
    rest, verbatim = top.rest, None
    if top.command == "proxy" and "--" in rest:  # the upstream's command, its options its own
        cut = rest.index("--")
        rest, verbatim = rest[:cut], rest[cut + 1 :]
    args = command_parser(top.command).parse_intermixed_args(rest)
    if verbatim is not None:
        args.upstream = [*args.upstream, *verbatim]
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except UsageError as exc:
        print(f"plainmcp {getattr(args, 'caller', top.command)}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
