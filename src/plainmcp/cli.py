"""The `plainmcp` command: run a server, list its tools, call one, or watch the demo.

plainmcp run server.py[:app]          serve over stdio (stdout guarded before the import)
plainmcp run deploy.py:web --http     serve an HttpApp (or a Server) over Streamable HTTP
plainmcp list server.py               the tools and their parameters
plainmcp call server.py add a=2 b=3   call a tool and print the result
plainmcp demo                         the packaged demo server (plainmcp/demo.py), end to end

A command's options may come anywhere after it. Exit codes: 0, 1 (an isError result, a protocol
error, a failed import), 2 (a usage error: the command could not be carried out as given).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import mimetypes
import shlex
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from plainmcp.client import CallToolResult, Client, ToolInfo
    from plainmcp.server import Server
    from plainmcp.transports.http.app import HttpApp

EXIT_USAGE = 2
NAMES = ("app", "server", "mcp")
T = TypeVar("T")


class UsageError(Exception):
    """A mistake on the command line: printed without a traceback, exit code 2."""


# --- finding the server ----------------------------------------------------------------------


def split_target(target: str) -> tuple[str, str | None]:
    """`file.py:obj` to ("file.py", "obj"); a bare path (even `C:\\x.py`) to (path, None)."""
    path, sep, obj = target.rpartition(":")
    if sep and obj.isidentifier() and len(path) > 1:
        return path, obj
    return target, None


def _check_file(file: str) -> Path:
    path = Path(file)
    if not path.is_file():
        what = "is a directory, not a Python file" if path.is_dir() else "does not exist"
        raise UsageError(f"{file} {what}")
    return path.resolve()


def _import_file(file: str) -> dict[str, Any]:
    """Run FILE as a module (its folder on sys.path, as `python FILE` would) and return its
    namespace."""
    path = _check_file(file)
    module_name = path.stem if path.stem.isidentifier() else "__plainmcp_app__"
    if module_name in sys.modules:
        module_name = "__plainmcp_app__"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {file} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))
    sys.argv = [str(path)]
    spec.loader.exec_module(module)
    return vars(module)


def _http_app_type() -> type[HttpApp] | None:
    """HttpApp when the HTTP transport is loaded, else None: a module that made an HttpApp has
    loaded it, and a stdio server should not pay for importing it just to look."""
    module = sys.modules.get("plainmcp.transports.http.app")
    found: type[HttpApp] | None = getattr(module, "HttpApp", None)
    return found


def _instances(found: Mapping[str, Any], kind: type[Any]) -> list[tuple[str, Any]]:
    """The module's objects of `kind`, once each (the first name bound to each)."""
    seen: dict[int, tuple[str, Any]] = {}
    for key, value in found.items():
        if isinstance(value, kind):
            seen.setdefault(id(value), (key, value))
    return list(seen.values())


def load_target(target: str, *, http: bool = False) -> tuple[str, Server | HttpApp]:
    """Import FILE and find what to serve, with the name it has there (`plainmcp run --help`).

    OBJECT may be a Server or an HttpApp (`app.http_app(auth=...)`). Without OBJECT, `--http`
    takes the file's only HttpApp, so that its auth and allowed hosts are not left behind;
    otherwise the only Server, else `app`, `server` or `mcp`.
    """
    from plainmcp.server import Server

    file, name = split_target(target)
    found = _import_file(file)
    app_type = _http_app_type()
    kinds: tuple[type[Any], ...] = (Server,) if app_type is None else (Server, app_type)
    if name is not None:
        if name not in found:
            raise UsageError(f"{file} has no object named {name!r}")
        obj = found[name]
        if not isinstance(obj, kinds):
            raise UsageError(
                f"{file}:{name} is a {type(obj).__name__}, not a plainmcp.Server or HttpApp"
            )
        return name, obj
    if http and app_type is not None:
        apps = _instances(found, app_type)
        if len(apps) == 1:
            return apps[0]
        if apps:
            names = ", ".join(sorted(k for k, _ in apps))
            raise UsageError(
                f"{file} defines several HttpApps ({names}); pick one with {file}:NAME"
            )
    servers = _instances(found, Server)
    if len(servers) == 1:
        return servers[0]
    for candidate in NAMES:
        if isinstance(found.get(candidate), Server):
            return candidate, found[candidate]
    if not servers:
        raise UsageError(f"{file} defines no plainmcp.Server (e.g. app = Server('name'))")
    names = ", ".join(sorted(k for k, _ in servers))
    raise UsageError(f"{file} defines several servers ({names}); pick one with {file}:NAME")


def load_server(target: str) -> Server:
    """The Server that FILE[:OBJECT] names: an HttpApp stands for its server (stdio has no
    Host checks or bearer tokens: whoever starts the process is the client)."""
    from plainmcp.server import Server

    _, obj = load_target(target)
    return obj if isinstance(obj, Server) else obj.server


# --- rendering -------------------------------------------------------------------------------

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "audio/flac": ".flac",
    "application/gzip": ".gz",
    "application/pdf": ".pdf",
}


class Files:
    """Where binary content goes: a folder created on first use."""

    def __init__(self, folder: str | None) -> None:
        self._given = folder
        self.folder: Path | None = None

    def write(self, stem: str, mime_type: str | None, data: bytes) -> Path:
        if self.folder is None:
            if self._given is not None:
                self.folder = Path(self._given)
                self.folder.mkdir(parents=True, exist_ok=True)
            else:
                self.folder = Path(tempfile.mkdtemp(prefix="plainmcp-"))
        base = (mime_type or "").split(";")[0].strip().lower()
        ext = _EXTENSIONS.get(base) or mimetypes.guess_extension(base) or ".bin"
        path = self.folder / f"{stem}{ext}"
        path.write_bytes(data)
        return path


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


_NO_MATCH = object()


def _structured_match(text: str, structured: Any) -> Any:
    """The value to show when `text` is the JSON fallback of `structured`, else _NO_MATCH."""
    try:
        value = json.loads(text)
    except ValueError:
        return _NO_MATCH
    if value == structured:
        return structured
    wrapped = isinstance(structured, dict) and structured.keys() == {"result"}
    if wrapped and value == structured["result"]:
        return value
    return _NO_MATCH


def render_result(result: CallToolResult, files: Files, stem: str) -> str:
    """A result as terminal text; binary content is written through `files`."""
    from plainmcp.content import Audio, EmbeddedResource, Image, ResourceLink, Text

    lines: list[str] = []
    has_structured = "structuredContent" in result.raw
    shown = False
    for index, block in enumerate(result.content, 1):
        name = f"{stem}-{index}"
        if isinstance(block, Text):
            if has_structured and not shown:
                value = _structured_match(block.text, result.structured)
                if value is not _NO_MATCH:
                    lines.append(_pretty(value))
                    shown = True
                    continue
            lines.append(block.text)
        elif isinstance(block, Image | Audio):
            path = files.write(name, block.mime_type, block.data)
            lines.append(f"[{block.kind}] {path} ({block.mime_type}, {len(block.data)} bytes)")
        elif isinstance(block, EmbeddedResource):
            mime = block.mime_type or "no type"
            if block.blob is not None:
                path = files.write(name, block.mime_type, block.blob)
                lines.append(f"[resource] {block.uri} -> {path} ({mime}, {len(block.blob)} bytes)")
            else:
                lines.append(f"[resource] {block.uri} ({mime})")
                lines.append((block.text or "").rstrip("\n"))
        elif isinstance(block, ResourceLink):
            line = f"[resource link] {block.uri} {block.name}"
            if block.title:
                line += f" ({block.title})"
            details = [block.mime_type] if block.mime_type else []
            if block.size is not None:
                details.append(f"{block.size} bytes")
            if details:
                line += f" [{', '.join(details)}]"
            lines.append(line)
        else:
            lines.append(f"[{getattr(block, 'type', block.kind)}] {block!r}")
    if has_structured and not shown:
        lines.append("structured content:")
        lines.append(_pretty(result.structured))
    return "\n".join(lines)


def _summary(description: str | None) -> str:
    if not description:
        return ""
    return " ".join(description.strip().split("\n\n")[0].split())


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict) and schema["items"]:
        return f"array of {_schema_type(schema['items'])}"
    if isinstance(kind, str):
        return kind
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(_schema_type(s) for s in schema[key])
    return "any"


def describe_tool(tool: ToolInfo) -> str:
    """`plainmcp list` text for one tool: a header line, then one line per parameter."""
    head = tool.name + (f" ({tool.title})" if tool.title else "")
    summary = _summary(tool.description)
    lines = [f"{head}: {summary}" if summary else head]
    properties = tool.input_schema.get("properties")
    required = tool.input_schema.get("required") or []
    if not isinstance(properties, dict) or not properties:
        lines.append("  (no parameters)")
        return "\n".join(lines)
    for name, schema in properties.items():
        schema = schema if isinstance(schema, dict) else {}
        facts = [_schema_type(schema)]
        if name in required:
            facts.append("required")
        elif "default" in schema:
            facts.append(f"default {json.dumps(schema['default'])}")
        else:
            facts.append("optional")
        line = f"  {name} ({', '.join(facts)})"
        if schema.get("description"):
            line += f": {' '.join(str(schema['description']).split())}"
        lines.append(line)
    return "\n".join(lines)


# --- talking to a server ---------------------------------------------------------------------


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


def _spawn_args(command: str, target: str) -> list[str]:
    file, _ = split_target(target)
    _check_file(file)
    # --caller: the child's own usage errors then name the command the user ran.
    return ["-m", "plainmcp", "run", "--caller", command, target]


def _session(
    command: str, target: str, protocol: str, body: Callable[[Client], Any]
) -> Callable[[], Any]:
    from plainmcp.client import Client

    args = _spawn_args(command, target)

    async def run() -> Any:
        async with Client.stdio(sys.executable, *args, protocol_version=protocol) as client:
            return await body(client)

    return run


def _connect_and_run(
    command: str, target: str, protocol: str, body: Callable[[Client], Any]
) -> int:
    import anyio

    from plainmcp.client import ConnectionClosed, McpError

    try:
        code: int = anyio.run(_session(command, target, protocol, body))
    except ConnectionClosed as exc:
        if exc.returncode == EXIT_USAGE:
            return EXIT_USAGE  # `plainmcp run` already said what was wrong
        print(f"plainmcp {command}: {exc.message}", file=sys.stderr)
        return 1
    except McpError as exc:
        print(f"plainmcp {command}: error {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    return code


# --- commands --------------------------------------------------------------------------------


def _require_uvicorn() -> None:
    """Checked before the user's module is imported and before any "serving" line."""
    try:
        import uvicorn  # noqa: F401
    except ImportError:
        raise UsageError(
            "--http needs uvicorn, which is not installed: pip install 'plainmcp[http]'"
        ) from None


def _http_flags(args: argparse.Namespace) -> list[str]:
    """The HTTP options given on the command line (their defaults are None, to tell)."""
    flags = {
        "--host": args.host,
        "--port": args.port,
        "--path": args.path,
        "--allowed-host": args.allowed_host,
        "--allowed-origin": args.allowed_origin,
    }
    return [flag for flag, value in flags.items() if value is not None]


def _http_app(args: argparse.Namespace, name: str, target: Server | HttpApp) -> HttpApp:
    """The app to serve: an HttpApp as it was made, else the Server's with the flags' options."""
    from plainmcp.server import Server

    if isinstance(target, Server):
        return target.http_app(
            path=args.path or "/mcp",
            allowed_hosts=args.allowed_host or (),
            allowed_origins=args.allowed_origin or (),
        )
    given = [f for f in _http_flags(args) if f in ("--path", "--allowed-host", "--allowed-origin")]
    if given:
        raise UsageError(
            f"{name} is an HttpApp with its own path, allowed hosts and origins; set them in"
            f" http_app(...), not with {', '.join(given)}"
        )
    return target


def _imported(args: argparse.Namespace, load: Callable[[], T]) -> T | None:
    """`load()`, or None once the traceback of the user's module failing to import is shown."""
    try:
        return load()
    except UsageError:
        raise
    except Exception:
        traceback.print_exc()
        print(
            f"plainmcp {args.caller}: importing {args.target} failed (see above)", file=sys.stderr
        )
        return None


def cmd_run(args: argparse.Namespace) -> int:
    if args.http:
        return _run_http(args)
    from plainmcp.transports.stdout import claim_stdout

    given = _http_flags(args)
    if given:
        raise UsageError(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --http")
    claim_stdout()  # before the user's module is imported: its prints go to stderr
    server = _imported(args, lambda: load_server(args.target))
    if server is None:
        return 1
    server.run()
    return 0


def _run_http(args: argparse.Namespace) -> int:
    _require_uvicorn()
    found = _imported(args, lambda: load_target(args.target, http=True))
    if found is None:
        return 1
    from plainmcp.transports.http.serve import serve_http

    name, target = found
    app = _http_app(args, f"{split_target(args.target)[0]}:{name}", target)
    host = args.host or "127.0.0.1"
    port = 8000 if args.port is None else args.port
    print(f"plainmcp {args.caller}: serving http://{host}:{port}{app.path}", file=sys.stderr)
    serve_http(app, host=host, port=port)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    async def body(client: Client) -> int:
        tools = await client.list_tools()
        print("\n\n".join(describe_tool(t) for t in tools) if tools else "(no tools)")
        return 0

    return _connect_and_run("list", args.target, args.protocol, body)


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

    return _connect_and_run("call", args.target, args.protocol, body)


# Sample arguments for the demo server's tools; anything else gets `sample_arguments`.
DEMO_ARGUMENTS: dict[str, dict[str, Any]] = {
    "add": {"a": 2, "b": 3},
    "divide": {"a": 1, "b": 0},
    "chart": {"region": "north"},
    "fetch": {"url": "not-a-url"},  # a readable isError, without touching the network
    "greet": {"name": "world"},
    "report_link": {"year": 2025},
    "stats": {"numbers": [1, 2, 3, 4]},
}

_TYPE_SAMPLES: dict[str, Any] = {
    "string": "example",
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}


def sample_value(schema: Mapping[str, Any]) -> Any:
    """A value that fits `schema`: its example, default, first choice, or one by type."""
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("default", "const"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind in ("integer", "number") and "minimum" in schema:
        return schema["minimum"]
    if kind == "array" and isinstance(schema.get("items"), dict):
        return [sample_value(schema["items"])] * int(schema.get("minItems", 0) or 0)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return sample_value(schema[key][0])
    return _TYPE_SAMPLES.get(str(kind), "example")


def sample_arguments(tool: ToolInfo) -> dict[str, Any]:
    """The demo's arguments for a tool: from DEMO_ARGUMENTS, else its required parameters."""
    if tool.name in DEMO_ARGUMENTS:
        return dict(DEMO_ARGUMENTS[tool.name])
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    return {k: sample_value(properties.get(k) or {}) for k in required}


def _command_line(file: str, tool: str, arguments: Mapping[str, Any]) -> str:
    words = ["plainmcp", "call", file, tool]
    for key, value in arguments.items():
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if isinstance(value, str):
            try:
                json.loads(value)
            except ValueError:
                text = value
        words.append(f"{key}={text}")
    return " ".join(shlex.quote(w) for w in words)


def find_demo(file: str | None) -> Path:
    """FILE, else the demo that ships in the package (plainmcp/demo.py)."""
    if file is not None:
        return _check_file(file)
    return Path(__file__).resolve().with_name("demo.py")


def cmd_demo(args: argparse.Namespace) -> int:
    import anyio

    path = find_demo(args.file)
    try:
        shown = str(path.relative_to(Path.cwd()))
    except ValueError:
        shown = str(path)
    files = Files(args.out)
    failures: list[str] = []

    async def body(client: Client) -> int:
        from plainmcp.client import McpError

        info = client.server_info
        print(f"Started {shown} over stdio and completed the initialize handshake.")
        print(f"Server: {info.name} {info.version}, protocol revision {client.protocol_version}")
        if client.instructions:
            print(f"Instructions: {client.instructions}")
        tools = await client.list_tools()
        print(f"\n{len(tools)} tools:")
        for tool in tools:
            summary = _summary(tool.description)
            print(f"  {tool.name}: {summary}" if summary else f"  {tool.name}")
        for tool in tools:
            arguments = sample_arguments(tool)
            print(f"\n$ {_command_line(shown, tool.name, arguments)}")
            try:
                with anyio.fail_after(args.timeout):
                    result = await client.call_tool(tool.name, arguments)
            except McpError as exc:
                print(f"protocol error {exc.code}: {exc.message}")
                failures.append(tool.name)
                continue
            except TimeoutError:
                print(f"no answer within {args.timeout:g} s")
                failures.append(tool.name)
                continue
            text = render_result(result, files, tool.name)
            print(f"error: {text}" if result.is_error else text)
        print()
        if files.folder is not None:
            print(f"Binary content was written to {files.folder}")
        if failures:
            print(f"Failed: {', '.join(failures)}")
            return 1
        print(f"Done: {len(tools)} tools called.")
        return 0

    return _connect_and_run("demo", str(path), args.protocol, body)


# --- entry point -----------------------------------------------------------------------------


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
