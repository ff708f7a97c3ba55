"""Running the HTTP app with uvicorn (the optional dependency `plainmcp[http]`)."""

from __future__ import annotations

import logging
from typing import Any

from plainmcp.transports.http.app import HttpApp

log = logging.getLogger("plainmcp")


def allow_bound_host(app: HttpApp, host: str) -> None:
    """A host other than a local name is where clients will reach the server: allowed."""
    if host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        app.policy.hosts.add(host.lower())
    if host in ("0.0.0.0", "::"):
        log.warning(
            "serving on all interfaces (%s): only local Host names are accepted unless"
            " allowed_hosts names the public ones",
            host,
        )


def serve_http(app: HttpApp, *, host: str = "127.0.0.1", port: int = 8000, **uvicorn: Any) -> None:
    """Serve until interrupted (SIGTERM or Ctrl-C drains first: `HttpApp.drain`). A host other
    than a local name is added to the allowed Host names, since that is where clients will
    reach the server."""
    try:
        from plainmcp.transports.http.uvicorn_server import DrainingServer
    except ImportError:
        raise SystemExit("Streamable HTTP needs uvicorn: pip install 'plainmcp[http]'") from None
    from plainmcp.transports.stdout import release_stdout

    release_stdout()  # serving HTTP: what was held goes to stdout before uvicorn starts
    allow_bound_host(app, host)
    DrainingServer(server_config(app, host=host, port=port, **uvicorn)).run()


def server_config(app: HttpApp, **uvicorn: Any) -> Any:
    """The uvicorn.Config plainmcp serves with: the request head bounded (head_bounds.py), the
    app's lifespan on, uvicorn's own log at warnings."""
    import uvicorn as server_module

    from plainmcp.transports.http.head_bounds import protocol

    options: dict[str, Any] = {
        "http": protocol(),
        "lifespan": "on",
        "log_level": "warning",
        "timeout_graceful_shutdown": 5,  # after the drain: what is left are idle connections
        **uvicorn,
    }
    return server_module.Config(app, **options)
