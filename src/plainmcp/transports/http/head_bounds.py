"""Bounds on the request head (the request line and the header fields) of every HTTP server
plainmcp starts. uvicorn's httptools protocol has none: one request could send a header of any
size, and each piece of it is appended to the last on the event loop every other client waits
on. uvicorn's h11 protocol bounds it, but answers 400.

The head's bytes are counted as they arrive, before the parser sees them, and the parser is
given at most `max_header_bytes` of one head: if the head has not ended by then, the client gets
431 Request Header Fields Too Large and the connection is closed, so a head is never buffered
whole. More than `max_headers` header fields: 431 too, before the request reaches the app. The
bounds are the served HttpApp's (`http_app(max_header_bytes=..., max_headers=...)`), or the
defaults when the app under uvicorn is not one.

A class for each of uvicorn's protocols, its own mixed in before uvicorn's; `protocol()` picks
the one uvicorn's "auto" would (httptools when installed, else h11). The httptools one lives in
head_bounds_httptools.py, since httptools is optional.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from plainmcp.transports.http.app import MAX_HEADER_BYTES, MAX_HEADERS
from plainmcp.transports.http.uvicorn_server import served_app

REASON = b"Request Header Fields Too Large"
log = logging.getLogger("uvicorn.error")


class HeadBound(asyncio.Protocol):
    """Counts the bytes of each request head and refuses a head past the bounds. Mixed in
    before one of uvicorn's protocol classes, which set `transport` and `server_state`; the
    class below it reports the end of a head (`head_ended`) and of a message (`_head = 0`)."""

    max_header_bytes = MAX_HEADER_BYTES
    max_headers = MAX_HEADERS
    _head = 0
    """Bytes of the current request's head so far; -1 from its end to the end of its message."""
    _refusal: str | None = None
    """Why the request is refused, when a check inside the parser refused it."""
    transport: asyncio.Transport
    server_state: Any

    def bind(self, config: uvicorn.Config) -> None:
        """Take the bounds of the HttpApp served (found under uvicorn's middleware)."""
        app = served_app(config)
        if app is not None:
            self.max_header_bytes = app.max_header_bytes
            self.max_headers = app.max_headers

    def data_received(self, data: bytes) -> None:
        head = self._head
        if head < 0 or head + len(data) <= self.max_header_bytes:
            if head >= 0:
                self._head = head + len(data)
            super().data_received(data)
            return
        room = self.max_header_bytes - head
        self._head = self.max_header_bytes
        if room > 0:
            super().data_received(data[:room])
        if self.transport.is_closing():
            return
        if self._head == self.max_header_bytes:  # the head did not end within the bound
            self.refuse(f"the request line and headers exceed {self.max_header_bytes} bytes")
        else:  # it ended: the rest is its body, or the next request
            self.data_received(data[room:])

    def head_ended(self, fields: int) -> str | None:
        """The head is complete with `fields` header fields: why it is refused, if it is."""
        self._head = -1
        if fields > self.max_headers:
            self._refusal = f"more than {self.max_headers} header fields"
        return self._refusal

    def refuse(self, reason: str) -> None:
        """431 and close. A pipelining client whose earlier response is still being written
        gets the close alone (a 431 would land inside that response)."""
        self._head = -1
        client = self.transport.get_extra_info("peername")
        log.warning("431 to %s: %s", _address(client), reason)
        cycle = getattr(self, "cycle", None)
        if cycle is None or cycle.response_complete:
            self.transport.write(refusal(reason, self.server_state.default_headers))
        self.transport.close()


def refusal(reason: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The 431 response (with uvicorn's Server and Date headers), closing the connection."""
    body = REASON + b": " + reason.encode()
    lines = [b"HTTP/1.1 431 " + REASON]
    lines += [name + b": " + value for name, value in default_headers]
    lines += [
        b"content-type: text/plain; charset=utf-8",
        b"content-length: " + str(len(body)).encode(),
        b"connection: close",
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _address(peer: object) -> str:
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return "a client"


class _Connection(h11.Connection):
    """h11's connection, reporting to the protocol where a head and a message end."""

    def __init__(self, protocol: BoundedH11) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=protocol.max_header_bytes)
        self.protocol = protocol

    def next_event(self) -> Any:
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            if exc.error_status_hint == 431:  # h11's own bound (bytes left from a pipeline)
                self.protocol._refusal = (
                    f"the request line and headers exceed {self.protocol.max_header_bytes} bytes"
                )
            raise
        if type(event) is h11.Request:
            refused = self.protocol.head_ended(len(event.headers))
            if refused is not None:
                raise h11.RemoteProtocolError(refused, 431)
        elif type(event) is h11.EndOfMessage:
            self.protocol._head = 0
        return event


class BoundedH11(HeadBound, H11Protocol):
    """uvicorn's h11 protocol with the bounds (and 431 where it would answer 400)."""

    def __init__(self, config: uvicorn.Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.bind(config)
        self.conn = _Connection(self)

    def send_400_response(self, msg: str) -> None:
        if self._refusal is None:
            super().send_400_response(msg)
        else:
            self.refuse(self._refusal)


def protocol() -> type[asyncio.Protocol]:
    """The bounded protocol uvicorn's "auto" would have picked: httptools' when installed."""
    try:
        from plainmcp.transports.http.head_bounds_httptools import BoundedHttpTools
    except ImportError:
        return BoundedH11
    return BoundedHttpTools
