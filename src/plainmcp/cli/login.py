"""plainmcp login URL / logout URL: an OAuth login kept in the user's owner-only token store
(client/oauth/store.py's FileTokenStore), which list, call, read and prompt then use."""

from __future__ import annotations

import argparse

from plainmcp.cli.connect import Target, connect_and_run, is_url
from plainmcp.cli.usage import UsageError

OAUTH_EXTRA = "pip install 'plainmcp[oauth]'"


def _url(args: argparse.Namespace) -> str:
    if not is_url(args.url):
        raise UsageError(f"{args.command} takes a server's URL (http://...), not {args.url!r}")
    try:
        import plainmcp.client.oauth  # noqa: F401
    except ImportError:
        raise UsageError(f"logging in needs the OAuth client: {OAUTH_EXTRA}") from None
    return str(args.url)


def cmd_login(args: argparse.Namespace) -> int:
    """Connect, logging in on the server's 401 (the browser opens, or the URL is printed)."""
    import anyio

    from plainmcp.client import Client
    from plainmcp.client.oauth import FileTokenStore, server_key

    url = _url(args)
    store = FileTokenStore()

    async def body(client: Client) -> int:
        saved = await store.load(server_key(url))
        if saved is None:
            print(f"{url} asks for no login")
        else:
            print(f"logged in to {url} (credentials in {store.path(server_key(url))})")
        return 0

    anyio.run(store.delete, server_key(url))  # a login starts afresh
    return connect_and_run(Target("login", url, args.protocol), body)


def cmd_logout(args: argparse.Namespace) -> int:
    """Forget the server's credentials (the authorization server may keep its session)."""
    import anyio

    from plainmcp.client.oauth import FileTokenStore, server_key

    url = _url(args)
    store = FileTokenStore()
    key = server_key(url)
    had = anyio.run(store.load, key) is not None
    anyio.run(store.delete, key)
    print(f"logged out of {url}" if had else f"no login kept for {url}")
    return 0


def add_arguments(p: argparse.ArgumentParser, command: str, protocols: list[str]) -> None:
    p.add_argument("url", metavar="URL", help="the server's Streamable HTTP endpoint")
    if command == "login":
        p.add_argument(
            "--protocol", default="auto", choices=["auto", *protocols], help="revision to ask for"
        )
    p.set_defaults(func=cmd_login if command == "login" else cmd_logout, command=command)
