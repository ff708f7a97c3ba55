"""Talking to a server: FILE[:OBJECT] started as a child (`plainmcp run`) with a client on its
stdio, or an http(s) URL reached with Client.http; the client's failures as exit codes."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Unpack

from plainmcp.cli.target import check_file, split_target
from plainmcp.cli.usage import EXIT_USAGE, UsageError

if TYPE_CHECKING:
    import httpx2

    from plainmcp.client import Client, ClientOptions

TARGET_HELP = (
    "a Python file, optionally with the name of a Server or HttpApp in it (server.py,"
    " server.py:app), started with `plainmcp run`; or the URL of a Streamable HTTP server"
    " (http://127.0.0.1:8000/mcp)"
)
CLIENT_EXTRA = "pip install 'plainmcp[cli]'"


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def parse_headers(pairs: Sequence[str] | None, bearer: str | None) -> dict[str, str]:
    """`--header K:V` (repeatable) and `--bearer TOKEN` as request headers."""
    headers: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition(":")
        if not sep or not key.strip():
            raise UsageError(
                f"--header takes NAME:VALUE (e.g. --header 'X-Team: web'), not {pair!r}"
            )
        headers[key.strip()] = value.strip()
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    return headers


@dataclass
class Target:
    """Where a command's server is, and how to reach it."""

    command: str
    target: str
    protocol: str
    headers: dict[str, str] = field(default_factory=dict)

    def check(self) -> None:
        """Usage errors before anything starts: a missing file, headers on a file."""
        if is_url(self.target):
            return
        if self.headers:
            raise UsageError(
                "--header and --bearer are for a URL; a file is started over stdio, where"
                " whoever starts it is the client"
            )
        file, _ = split_target(self.target)
        check_file(file)

    @contextlib.asynccontextmanager
    async def open(self, **options: Unpack[ClientOptions]) -> AsyncIterator[Client]:
        from plainmcp.client import Client

        opts: ClientOptions = {**options, "protocol": self.protocol}
        if is_url(self.target):
            try:
                import httpx2  # noqa: F401
            except ImportError:
                raise UsageError(
                    f"a URL needs the HTTP client: {CLIENT_EXTRA} (or give a server file)"
                ) from None
            auth = None if _has_authorization(self.headers) else oauth()
            async with Client.http(self.target, headers=self.headers, auth=auth, **opts) as client:
                yield client
            return
        # --caller: the child's own usage errors then name the command the user ran.
        args = ["-m", "plainmcp", "run", "--caller", self.command, self.target]
        async with Client.stdio(sys.executable, *args, **opts) as client:
            yield client


def _has_authorization(headers: dict[str, str]) -> bool:
    return any(name.lower() == "authorization" for name in headers)


def oauth() -> httpx2.Auth | None:
    """The CLI's OAuth: log in on a 401, credentials kept in the user's owner-only file store
    (`plainmcp login` / `logout`); None without the oauth extra (a 401 then says so)."""
    try:
        from plainmcp.client.oauth import FileTokenStore, OAuth
    except ImportError:
        return None
    return OAuth(store=FileTokenStore())


def connect_and_run(
    where: Target, body: Callable[[Client], Awaitable[int]], **options: Unpack[ClientOptions]
) -> int:
    """Run `body` with a client of `where`; connection and protocol failures exit 1 (a child
    that exited 2 has already printed its usage error)."""
    import anyio

    from plainmcp.client import ConnectionClosed, McpError

    where.check()

    async def run() -> int:
        async with where.open(**options) as client:
            return await body(client)

    prefix = f"plainmcp {where.command}"
    try:
        return anyio.run(run)
    except ConnectionClosed as exc:
        if exc.returncode == EXIT_USAGE:
            return EXIT_USAGE  # `plainmcp run` already said what was wrong
        hint = "; is the server running, at that address?" if is_url(where.target) else ""
        print(f"{prefix}: {exc.message}{hint}", file=sys.stderr)
        return 1
    except McpError as exc:
        # A refused HTTP request says so itself; its JSON-RPC code is the client's stand-in.
        what = (
            exc.message
            if exc.message.startswith(("HTTP ", "OAuth: "))
            else f"error {exc.code}: {exc.message}"
        )
        print(f"{prefix}: {what}{_hint(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:
        if not _unreachable(exc):
            raise
        print(
            f"{prefix}: cannot reach {where.target} ({type(exc).__name__}: {exc});"
            " is the server running, at that address and path?",
            file=sys.stderr,
        )
        return 1


def _unreachable(exc: Exception) -> bool:
    """The URL did not answer: refused, unresolved, timed out (httpx2's transport errors)."""
    if isinstance(exc, OSError):
        return True
    httpx2 = sys.modules.get("httpx2")
    return httpx2 is not None and isinstance(exc, httpx2.TransportError)


def _hint(exc: Exception) -> str:
    text = str(getattr(exc, "message", ""))
    if text.startswith("OAuth: "):
        return " (or give a token: --bearer TOKEN)"
    if text.startswith(("HTTP 401", "HTTP 403")):
        return " (a token goes in --bearer TOKEN, other headers in --header NAME:VALUE)"
    if text.startswith("HTTP 404"):
        return " (is the URL's path the server's endpoint, often /mcp?)"
    return ""
