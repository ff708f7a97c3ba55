"""uvicorn's Server with a graceful shutdown in front: on SIGTERM (or Ctrl-C) the HttpApp
drains (new requests 503, streams closed with a retry hint, running calls given their
deadline) while the socket still listens, and only then does uvicorn stop.

A module of its own, importing uvicorn at the top, so that `--workers` can hand the server to
uvicorn's process supervisor (which pickles it for each worker).
"""

from __future__ import annotations

import socket

import uvicorn

from plainmcp.transports.http.app import HttpApp


class DrainingServer(uvicorn.Server):
    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app = served_app(self.config)
        if app is not None:
            await app.drain()
        await super().shutdown(sockets)


def served_app(config: uvicorn.Config) -> HttpApp | None:
    """The HttpApp under uvicorn's middleware (proxy headers, ...), if it serves one."""
    app: object = getattr(config, "loaded_app", None)
    for _ in range(8):
        if isinstance(app, HttpApp):
            return app
        app = getattr(app, "app", None)
    return None
