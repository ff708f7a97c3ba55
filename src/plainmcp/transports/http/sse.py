"""Server-Sent Events framing (sans-I/O): one JSON-RPC message per `message` event."""

from __future__ import annotations

KEEPALIVE = b": keep-alive\n\n"
"""A comment line: proxies and clients see traffic on an idle stream, and ignore it."""


def event(data: bytes) -> bytes:
    """One SSE event carrying one encoded message (our JSON never contains a raw newline)."""
    return b"event: message\ndata: " + data + b"\n\n"
