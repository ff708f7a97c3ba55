"""`plainmcp proxy`: serve any MCP server through plainmcp, over stdio (default) or Streamable
HTTP, as `plainmcp run` serves a file: `plainmcp proxy -- COMMAND ARGS...` (the upstream over
stdio) or `plainmcp proxy URL` (over Streamable HTTP)."""

from __future__ import annotations

import argparse
import shutil
import sys

from plainmcp.cli.run import require_uvicorn
from plainmcp.cli.usage import UsageError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "upstream",
        metavar="URL | -- COMMAND",
        nargs="*",
        help="the upstream: an http(s) URL, or after -- the command that starts it",
    )
    p.add_argument("--name", default="proxy", help="the proxy's server name (default proxy)")
    p.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    p.add_argument("--host", help="HTTP address (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="HTTP port (default 8000)")
    p.add_argument("--path", help="HTTP endpoint path (default /mcp)")
    p.set_defaults(func=cmd_proxy)


def upstream_of(given: list[str]) -> str | list[str]:
    """One http(s) URL, else a command and its arguments (main keeps those after -- as given)."""
    if not given:
        raise UsageError("give the upstream: a URL, or -- COMMAND ARGS...")
    if len(given) == 1 and given[0].startswith(("http://", "https://")):
        return given[0]
    if given[0].startswith(("http://", "https://")):
        raise UsageError("give one URL, or a command after --")
    if shutil.which(given[0]) is None:
        raise UsageError(f"{given[0]} is not a command (not found on PATH, nor executable)")
    return given


def cmd_proxy(args: argparse.Namespace) -> int:
    upstream = upstream_of(args.upstream)
    flags = {"--host": args.host, "--port": args.port, "--path": args.path}
    given = [flag for flag, value in flags.items() if value is not None]
    if not args.http and given:
        raise UsageError(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --http")
    if args.http:
        require_uvicorn()
    from plainmcp.proxy import proxy_server

    server = proxy_server(upstream, name=args.name)
    if not args.http:
        from plainmcp.transports.stdout import claim_stdout

        claim_stdout()
        server.run()
        return 0
    from plainmcp.transports.http.serve import serve_http

    app = server.http_app(path=args.path or "/mcp")
    host, port = args.host or "127.0.0.1", 8000 if args.port is None else args.port
    print(f"plainmcp proxy: serving http://{host}:{port}{app.path}", file=sys.stderr)
    serve_http(app, host=host, port=port)
    return 0
