"""Reading Server-Sent Events (sans-I/O): lines in, the data of each finished event out."""

from __future__ import annotations


class EventReader:
    """Feed it a stream's lines (without their line ending); `line` returns an event's data
    when a blank line ends one. Comments (keep-alives) are skipped; the last event id and
    `retry` are kept, for resuming the stream (SEP-1699)."""

    def __init__(self, last_id: str | None = None, retry_ms: int | None = None) -> None:
        self._data: list[str] = []
        self._kind = "message"
        self.last_id = last_id
        """The last event id seen: a GET sends it as Last-Event-ID to resume after it."""
        self.retry_ms = retry_ms
        """How long the server asked a client to wait before reconnecting."""

    def line(self, line: str) -> tuple[str, str] | None:
        """(event type, data) when `line` ends an event that carried data, else None (also for
        a priming event: an id and empty data, which a resumable stream opens with)."""
        if not line:
            data, kind = "\n".join(self._data), self._kind
            self._data, self._kind = [], "message"
            return (kind, data) if data else None
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._kind = value or "message"
        elif name == "id" and "\0" not in value:
            self.last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry_ms = int(value)
        return None
