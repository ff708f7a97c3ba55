"""How one POST is answered, as a state machine: events in, actions out, no I/O (h11's style).

The answer is plain JSON while only replies come out, and becomes an SSE stream as soon as
anything else does; a resumable stream may be closed early (the client resumes it), and a
shutdown or, at 2026-07-28, the client going away cancels the requests. Each event is a method
of `PostAnswer` that returns the actions it calls for: answer.py calls them as things happen
and performs the actions in order; tests call them and compare the actions.

    collecting --related--> streaming --close_stream--> detached
        |                       |                           |
        +--last request ends----+---------------------------+--> done

Actions are plain slotted dataclasses, not frozen (a frozen __init__ costs several times more,
and every POST makes one); events are method calls, so the hot path builds no event objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from plainmcp.transports.http import rules
from plainmcp.wire import jsonrpc

Phase = Literal["collecting", "streaming", "detached", "done"]


# --- actions --------------------------------------------------------------------------------


@dataclass(slots=True)
class StartStream:
    """Send the SSE response's head."""


@dataclass(slots=True)
class WriteEvent:
    """Send one SSE event (logged first when the stream is resumable)."""

    data: bytes


@dataclass(slots=True)
class Detach:
    """End the HTTP response with a reconnection hint; later events are only logged."""

    retry_ms: int


@dataclass(slots=True)
class FinishStream:
    """End the SSE stream."""


@dataclass(slots=True)
class WriteJson:
    """Send the whole answer as one JSON body (None: 202 with no body)."""

    status: int
    body: Any


@dataclass(slots=True)
class CancelRequests:
    """Cancel the POST's requests still running."""


Action = StartStream | WriteEvent | Detach | FinishStream | WriteJson | CancelRequests

START: Final = StartStream()
FINISH: Final = FinishStream()
CANCEL: Final = CancelRequests()


class PostAnswer:
    """One POST's answer. `requests`: how many are served; `batch`: the replies go back as one
    array; `stateless` (2026-07-28): the status follows the reply and the client going away
    cancels; `retry_ms`: set for a resumable stream, which `CloseStream` may detach; `replies`:
    replies made already (refusals of a batch's bad requests), sent with the others."""

    __slots__ = (
        "_batch",
        "_replies",
        "_retry_ms",
        "_stateless",
        "_status",
        "done",
        "phase",
        "running",
        "stopped",
    )

    def __init__(
        self,
        requests: int,
        batch: bool = False,
        stateless: bool = False,
        retry_ms: int | None = None,
        replies: list[dict[str, Any]] | None = None,
    ) -> None:
        self.phase: Phase = "collecting"
        self.done = False
        """The answer is written (phase "done"): nothing more goes out."""
        self.running = requests
        """Requests still running."""
        self.stopped = False
        """A shutdown stopped the requests: one ending without a reply is answered STOPPED."""
        self._batch = batch
        self._stateless = stateless
        self._retry_ms = retry_ms
        self._replies: list[dict[str, Any]] = list(replies) if replies else []
        self._status: int | None = None

    # --- events: each returns the actions it calls for, in the order to perform them -----

    def begin(self) -> list[Action]:
        """The requests have started: a POST with none is answered at once."""
        return [self._end()] if self.running <= 0 and not self.done else []

    def replied(self, reply: dict[str, Any], status: int | None = None) -> list[Action]:
        """A request ended with `reply`; `status`: the status a JSON answer must have instead
        of the rules' (503 when the session store failed)."""
        if self.done:
            return []  # the answer is written: nothing more goes out
        self.running -= 1
        if status is not None:
            self._status = status
        if self.phase == "collecting":
            self._replies.append(reply)
            return [self._end()] if self.running <= 0 else []
        actions: list[Action] = [WriteEvent(jsonrpc.encode(reply))]
        if self.running <= 0:
            actions.append(self._end())
        return actions

    def unanswered(self) -> list[Action]:
        """A request ended without a reply (cancelled)."""
        if self.done:
            return []
        self.running -= 1
        return [self._end()] if self.running <= 0 else []

    def related(self, data: bytes) -> list[Action]:
        """A message of the requests that is not a reply (progress, a log, a request to the
        client, a listen notification), encoded."""
        if self.done:
            return []
        actions = self._stream() if self.phase == "collecting" else []
        actions.append(WriteEvent(data))
        return actions

    def close_stream(self) -> list[Action]:
        """A running request asked to close the stream now (`ctx.close_stream()`): only a
        resumable stream is, once."""
        if self.done or self._retry_ms is None or self.phase == "detached":
            return []
        actions = self._stream() if self.phase == "collecting" else []
        self.phase = "detached"
        actions.append(Detach(self._retry_ms))
        return actions

    def stop(self) -> list[Action]:
        """A shutdown's deadline passed: the requests are cancelled, and one ending without a
        reply is answered with an error (`stopped`). CANCEL comes alone, as the one action."""
        self.stopped = True
        return [CANCEL]

    def disconnected(self) -> list[Action]:
        """The client went away: at 2026-07-28 that cancels the requests."""
        return [CANCEL] if self._stateless else []

    def _stream(self) -> list[Action]:
        """collecting -> streaming: the head, then the replies held so far."""
        self.phase = "streaming"
        replies, self._replies = self._replies, []
        return [START, *(WriteEvent(jsonrpc.encode(reply)) for reply in replies)]

    def _end(self) -> Action:
        streaming = self.phase != "collecting"
        self.phase, self.done = "done", True
        if streaming:
            return FINISH
        replies = self._replies
        if not replies:
            return WriteJson(202, None)
        if self._batch:
            return WriteJson(self._status or 200, replies)
        status = rules.status_for(replies[0], stateless=self._stateless)
        return WriteJson(self._status or status, replies[0])
