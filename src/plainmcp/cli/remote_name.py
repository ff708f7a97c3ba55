"""The name `plainmcp install HOST URL` gives a remote server: the one the server gives itself
(`serverInfo.name`, asked with one handshake), else, when it cannot be asked, its URL's host."""

from __future__ import annotations

import sys
from urllib.parse import urlsplit

from plainmcp.cli.host_configs import Remote, server_name

TIMEOUT = 10.0
"""Seconds to connect and to get the handshake's answer."""


async def _ask(server: Remote) -> str:
    from plainmcp.client import Client

    async with Client.http(
        server.url,
        headers=dict(server.headers),
        listen=False,
        timeout=TIMEOUT,
        request_timeout=TIMEOUT,
    ) as client:
        return client.server_info.name


def remote_name(server: Remote) -> str:
    """The server's own name, made one every host takes (host_configs.server_name); when it
    cannot be asked, the URL's host, said on stderr with why."""
    import anyio

    fallback = server_name(urlsplit(server.url).hostname or "server")
    try:
        import httpx2  # noqa: F401
    except ImportError:
        why = "httpx2 is not installed: pip install 'plainmcp[cli]'"
    else:
        try:
            own = anyio.run(_ask, server)
        except Exception as exc:  # whatever stops the handshake only costs the name
            why = f"{type(exc).__name__}: {exc}"
        else:
            if own.strip():
                return server_name(own)
            why = "its serverInfo has an empty name"
    print(
        f"plainmcp install: could not ask {server.url} for its name ({why}); named it"
        f" {fallback} after the URL's host (--name gives another)",
        file=sys.stderr,
    )
    return fallback
