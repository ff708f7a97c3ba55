"""Server-Sent Events framing (sans-I/O): one JSON-RPC message per `message` event.

Events of a resumable stream carry an id, `STREAM:SEQ`: the stream's token and the event's
place in it, so a GET with `Last-Event-ID` names both the stream to resume and where.
"""

from __future__ import annotations

import re

KEEPALIVE = b": keep-alive\n\n"
"""A comment line: proxies and clients see traffic on an idle stream, and ignore it."""

_EVENT_ID = re.compile(r"([A-Za-z0-9_-]{1,64}):(0|[1-9][0-9]{0,17})")


def event(data: bytes, event_id: str | None = None) -> bytes:
    """One SSE event carrying one encoded message (our JSON never contains a raw newline)."""
    head = b"" if event_id is None else b"id: " + event_id.encode() + b"\n"
    return head + b"event: message\ndata: " + data + b"\n\n"


def priming(event_id: str, retry_ms: int) -> bytes:
    """The first event of a resumable stream: an id and no data, so the client has something
    to resume from before any message, and how long to wait before reconnecting."""
    return f"id: {event_id}\nretry: {retry_ms}\ndata: \n\n".encode()


def retry(retry_ms: int) -> bytes:
    """The last words of a stream the server closes: reconnect after this long."""
    return f"retry: {retry_ms}\n\n".encode()


def event_id(stream: str, seq: int) -> str:
    return f"{stream}:{seq}"


def parse_event_id(value: str | None) -> tuple[str, int] | None:
    """(stream, seq) of a `Last-Event-ID` header, or None when it is not one of ours."""
    found = _EVENT_ID.fullmatch((value or "").strip())
    return None if found is None else (found.group(1), int(found.group(2)))
