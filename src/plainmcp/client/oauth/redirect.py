"""Where the user's browser comes back: a RedirectHandler opens (or shows) the authorization
URL and returns the redirect's query parameters. The default listens on 127.0.0.1 (RFC 8252
§7.3, a loopback redirect); programs and tests give their own."""

from __future__ import annotations

import socket
import sys
import webbrowser
from collections.abc import Callable, Mapping
from typing import Protocol
from urllib.parse import parse_qsl, urlsplit

import anyio
import anyio.abc

CALLBACK_PATH = "/callback"
MAX_HEAD = 16 * 1024

_DONE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\nconnection: close\r\n\r\n"
    b"<!doctype html><title>Signed in</title><p>You can close this window.</p>"
)
_NOT_HERE = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class RedirectHandler(Protocol):
    """Sends the user to an authorization URL and awaits the redirect back to `redirect_uri`."""

    @property
    def redirect_uri(self) -> str: ...

    async def __call__(self, authorization_url: str) -> Mapping[str, str]: ...


def _show(url: str) -> None:
    print(f"Open this URL to sign in:\n  {url}", file=sys.stderr)


class LoopbackRedirect:
    """Listens on 127.0.0.1 (a free port unless given) for the one redirect to
    /callback; opens the browser (`open_browser`), and prints the URL either way."""

    def __init__(
        self,
        port: int = 0,
        *,
        open_browser: bool = True,
        timeout: float = 300.0,
        show: Callable[[str], None] = _show,
    ) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", port))
        self._socket.listen(8)
        self._socket.setblocking(False)
        self.port = int(self._socket.getsockname()[1])
        self.open_browser = open_browser
        self.timeout = timeout
        self.show = show

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    def close(self) -> None:
        self._socket.close()

    async def __call__(self, authorization_url: str) -> Mapping[str, str]:
        self.show(authorization_url)
        if self.open_browser:
            webbrowser.open(authorization_url)
        listener = await anyio.abc.SocketListener.from_socket(self._socket.dup())
        async with listener:
            with anyio.fail_after(self.timeout):
                while True:
                    stream = await listener.accept()
                    async with stream:
                        params = await self._answer(stream)
                    if params is not None:
                        return params

    async def _answer(self, stream: anyio.abc.SocketStream) -> dict[str, str] | None:
        """The callback's parameters from one request, or None (another path: 404)."""
        head = b""
        with anyio.move_on_after(10):
            while b"\r\n\r\n" not in head and len(head) < MAX_HEAD:
                try:
                    head += await stream.receive(4096)
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
        line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        target = urlsplit(line[1]) if len(line) == 3 and line[0] == "GET" else None
        if target is None or target.path != CALLBACK_PATH:
            await stream.send(_NOT_HERE)
            return None
        await stream.send(_DONE)
        return dict(parse_qsl(target.query, keep_blank_values=True))
