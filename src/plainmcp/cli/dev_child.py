"""The server process `plainmcp dev` starts, and starts again on every change.

`python -m plainmcp.cli.dev_child TARGET` (stdio) or `... TARGET HOST PORT` (HTTP) imports the
target as `plainmcp run` does, logs every request with its duration on stderr, and tells the
supervisor which source files it imported, so that those are what gets watched:
- stdio: first line on stdout, before any reply, a `notifications/plainmcp/dev` message
  (the supervisor reads it and never forwards it);
- HTTP: the same message as one line on stdout, which is free (the protocol is on the socket).
Either way the line means "imported, serving"; `... --check TARGET` only imports. It exits 1
(a traceback above) or 2 (a usage error) instead when the target does not load.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import sysconfig
from pathlib import Path
from typing import TYPE_CHECKING

from plainmcp.cli.relay import READY
from plainmcp.cli.run import imported
from plainmcp.cli.target import load_server, load_target
from plainmcp.cli.usage import EXIT_USAGE, UsageError

if TYPE_CHECKING:
    from plainmcp.server import Server


def source_files(modules: dict[str, object] | None = None) -> list[str]:
    """The imported modules' files that are the user's: not the standard library's, not an
    installed package's (site-packages), not plainmcp's own."""
    skip = {sysconfig.get_path(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    skip.add(str(Path(__file__).resolve().parents[1]))
    found: set[str] = set()
    for module in list((modules if modules is not None else sys.modules).values()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or not file.endswith(".py"):
            continue
        path = str(Path(file).resolve())
        if not any(path.startswith(prefix + os.sep) for prefix in skip if prefix):
            found.add(path)
    return sorted(found)


def ready_line(**more: str) -> bytes:
    params = {"files": source_files(), **more}
    message = {"jsonrpc": "2.0", "method": READY, "params": params}
    return json.dumps(message).encode() + b"\n"


def log_requests(server: Server) -> None:
    """Each request as one line on stderr: `plainmcp dev: method=tools/call target=add
    duration_ms=0.412 outcome=ok` (the Timing middleware's line)."""
    from plainmcp.middleware.timing import Timing

    logger = logging.getLogger("plainmcp.dev")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("plainmcp dev: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    server.add_middleware(Timing(logger=logger))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def serve_stdio(target: str) -> int:
    from plainmcp.transports.stdout import claim_stdout

    protocol = claim_stdout()  # before the import: the module's prints go to stderr
    server = imported("dev", target, lambda: load_server(target))
    if server is None:
        return 1
    log_requests(server)
    _write_all(protocol, ready_line())
    server.run()
    return 0


def end_with_supervisor() -> None:
    """Stop serving when the supervisor is gone. It holds this process's stdin (a pipe it never
    writes to), which ends when it exits in any way, SIGKILL included; without this an HTTP
    server outlives a `plainmcp dev` stopped with SIGTERM and keeps the port. Stdio children
    need nothing: their stdin is the protocol."""
    import signal
    import stat
    import threading

    if not stat.S_ISFIFO(os.fstat(0).st_mode):
        return

    def watch() -> None:
        while os.read(0, 65536):
            pass
        os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's graceful shutdown

    threading.Thread(target=watch, name="plainmcp-dev-supervisor", daemon=True).start()


def serve_http(target: str, host: str, port: int) -> int:
    from plainmcp.server import Server
    from plainmcp.transports.http.serve import serve_http as serve

    found = imported("dev", target, lambda: load_target(target, http=True))
    if found is None:
        return 1
    _, obj = found
    app = obj.http_app() if isinstance(obj, Server) else obj
    if isinstance(app.server, Server):
        log_requests(app.server)
    # Bound and listening before the ready line: a client that reads it is never refused.
    listening = socket.create_server((host, port))
    sys.stdout.buffer.write(ready_line(path=app.path))
    sys.stdout.flush()
    end_with_supervisor()
    serve(app, host=host, port=port, fd=listening.fileno())
    return 0


def main(argv: list[str]) -> int:
    try:
        if argv[:1] == ["--check"]:  # does it import? (before a running server is replaced)
            return 0 if imported("dev", argv[1], lambda: load_target(argv[1], http=True)) else 1
        if len(argv) == 1:
            return serve_stdio(argv[0])
        target, host, port = argv
        return serve_http(target, host, int(port))
    except UsageError as exc:
        print(f"plainmcp dev: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
