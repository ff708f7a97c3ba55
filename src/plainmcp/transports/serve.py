"""`Server.run`: the server served over stdio or Streamable HTTP until its client goes away or
the process is told to stop."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from plainmcp.lifespan import LifespanError

if TYPE_CHECKING:
    from plainmcp.served import Served
    from plainmcp.transports.http.app import HttpApp


def serve(
    server: Served,
    transport: Literal["stdio", "http"],
    http_app: Callable[..., HttpApp],
    *,
    host: str,
    port: int,
    shutdown_deadline: float,
    **http_options: Any,
) -> None:
    if transport == "stdio":
        from plainmcp.transports import stdio

        try:
            stdio.run(server, shutdown_deadline=shutdown_deadline)
        except LifespanError as exc:
            _exit_failed_start(exc)
    elif transport == "http":
        from plainmcp.transports.http.serve import serve_http

        app = http_app(shutdown_deadline=shutdown_deadline, **http_options)
        serve_http(app, host=host, port=port)  # uvicorn exits 3
    else:
        raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")


def _exit_failed_start(exc: LifespanError) -> None:
    """A start-up that failed ends the process, before it answered anything: the error with its
    cause's traceback on stderr, exit status 1."""
    logging.getLogger("plainmcp").error("%s", exc, exc_info=exc.__cause__)
    sys.stderr.flush()
    raise SystemExit(1)
