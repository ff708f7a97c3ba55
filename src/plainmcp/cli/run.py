"""`plainmcp run`: serve a server over stdio (stdout guarded before the import) or Streamable
HTTP."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from plainmcp.cli.target import import_failure, load_server, load_target, split_target
from plainmcp.cli.usage import UsageError

if TYPE_CHECKING:
    from plainmcp.server import Server
    from plainmcp.transports.http.app import HttpApp

T = TypeVar("T")


def require_uvicorn() -> None:
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
        "--workers": args.workers,
        "--sessions": args.sessions,
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
            sessions=session_store(args.sessions),
        )
    own = ("--path", "--allowed-host", "--allowed-origin", "--sessions")
    given = [f for f in _http_flags(args) if f in own]
    if given:
        raise UsageError(
            f"{name} is an HttpApp with its own path, allowed hosts, origins and sessions; set"
            f" them in http_app(...), not with {', '.join(given)}"
        )
    return target


def session_store(value: str | None) -> str | None:
    """`--sessions` as HttpApp's `sessions=`: "memory", a Redis URL, or None for "none"."""
    from plainmcp.transports.http.app import REDIS_SCHEMES

    if value is None or value == "memory":
        return "memory"
    if value == "none":
        return None
    if value.startswith(REDIS_SCHEMES):
        return value
    raise UsageError(
        f"--sessions must be memory, none or a Redis URL (redis://host:6379/0), not {value!r}"
    )


def shared_sessions(app: HttpApp) -> bool:
    """Every worker serves every handshake session: they are on Redis, or there are none."""
    return app.sessions.shared or not app.stateful


def imported(command: str, target: str, load: Callable[[], T]) -> T | None:
    """`load()`, or None once the traceback of the user's module failing to import is shown
    (from the user's code: `import_failure`)."""
    try:
        return load()
    except UsageError:
        raise
    except Exception as exc:
        print(import_failure(exc), end="", file=sys.stderr)
        print(f"plainmcp {command}: importing {target} failed (see above)", file=sys.stderr)
        return None


def cmd_run(args: argparse.Namespace) -> int:
    if args.http:
        return _run_http(args)
    from plainmcp.transports.stdout import claim_stdout

    given = _http_flags(args)
    if given:
        raise UsageError(f"{', '.join(given)} {'needs' if len(given) == 1 else 'need'} --http")
    claim_stdout()  # before the user's module is imported: its prints go to stderr
    server = imported(args.caller, args.target, lambda: load_server(args.target))
    if server is None:
        return 1
    server.run(shutdown_deadline=args.shutdown_deadline)
    return 0


def _run_http(args: argparse.Namespace) -> int:
    require_uvicorn()
    found = imported(args.caller, args.target, lambda: load_target(args.target, http=True))
    if found is None:
        return 1
    from plainmcp.transports.http.serve import serve_http

    name, target = found
    app = _http_app(args, f"{split_target(args.target)[0]}:{name}", target)
    app.shutdown_deadline = args.shutdown_deadline
    host = args.host or "127.0.0.1"
    port = 8000 if args.port is None else args.port
    workers = args.workers or 1
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if workers > 1 and not shared_sessions(app):
        from plainmcp.server import Server

        fix = (
            "add --sessions redis://HOST:6379/0 (shared by every worker) or --sessions none"
            if isinstance(target, Server)
            else "make it with http_app(sessions='redis://HOST:6379/0') or sessions=None"
        )
        raise UsageError(
            f"--workers {workers} with handshake sessions (2024-11-05 to 2025-11-25) in each"
            " worker's memory: a session's next request would reach another worker and get"
            f" 404. {fix} (the stateless handshake mode; docs/deploy.md)"
        )
    print(f"plainmcp {args.caller}: serving http://{host}:{port}{app.path}", file=sys.stderr)
    if workers == 1:
        serve_http(app, host=host, port=port)
        return 0
    share_state_secret(args.caller, app, workers)
    _serve_workers(args, name, host, port, workers)
    return 0


def share_state_secret(caller: str, app: HttpApp, workers: int) -> None:
    """Workers that would each make a random state secret get one made here instead (in the
    environment they inherit), so that a read_more ref or a requestState one worker gave out
    verifies on the others. An app that keeps its sessions or blob store on Redis has its
    workers share the secret kept there (transports/http/state_secret.py), as other hosts on
    that Redis do."""
    from plainmcp.transports.http.state_secret import kept_on
    from plainmcp.wire.request_state import ENV_SECRET

    if not app.server.state_signer.ephemeral or kept_on(app) is not None:
        return
    os.environ[ENV_SECRET] = secrets.token_urlsafe(32)
    print(
        f"plainmcp {caller}: {ENV_SECRET} is not set: the {workers} workers sign read_more refs"
        f" and requestState with a secret made for this run (set {ENV_SECRET} to keep them"
        " valid across restarts and hosts)",
        file=sys.stderr,
    )


WORKER_SPEC = "PLAINMCP_WORKER"
"""The environment variable that tells each `--workers` process what to serve."""


def _serve_workers(args: argparse.Namespace, name: str, host: str, port: int, n: int) -> None:
    """uvicorn's supervisor starts `n` processes that import an app by name: FILE[:OBJECT]
    becomes the factory `worker_app` below, which loads the same object with the same flags
    (the spec travels in the environment, which the workers inherit)."""
    import uvicorn

    from plainmcp.transports.http.head_bounds import protocol

    spec = {
        "target": f"{split_target(args.target)[0]}:{name}",
        "path": args.path,
        "allowed_host": args.allowed_host,
        "allowed_origin": args.allowed_origin,
        "sessions": args.sessions,
        "host": host,
        "shutdown_deadline": args.shutdown_deadline,
    }
    os.environ[WORKER_SPEC] = json.dumps(spec)
    uvicorn.run(
        "plainmcp.cli.run:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=n,
        http=protocol(),
        lifespan="on",
        log_level="warning",
    )


def worker_app() -> HttpApp:
    """The app of one `--workers` process: what the parent would have served itself."""
    from plainmcp.transports.http.serve import allow_bound_host

    spec = json.loads(os.environ[WORKER_SPEC])
    args = argparse.Namespace(
        target=spec["target"],
        path=spec["path"],
        allowed_host=spec["allowed_host"],
        allowed_origin=spec["allowed_origin"],
        sessions=spec["sessions"],
        host=None,
        port=None,
        workers=None,
    )
    _, target = load_target(args.target, http=True)
    app = _http_app(args, args.target, target)
    app.shutdown_deadline = spec["shutdown_deadline"]
    allow_bound_host(app, spec["host"])
    return app
