"""How one POST is answered, as a state machine: events in, actions out, no I/O (h11's style).

The answer is plain JSON while only replies come out, and becomes an SSE stream as soon as
anything else does; a resumable stream may be closed early (the client resumes it), and a
shutdown or, at 2026-07-28, the client going away cancels the requests. answer.py feeds the
events as they happen and performs the actions in order; tests feed events and read actions.

    collecting --Related--> streaming --CloseStream--> detached
        |                       |                          |
        +--last request ends----+--------------------------+--> done
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from plainmcp.transports.http import rules
from plainmcp.wire import jsonrpc

Phase = Literal["collecting", "streaming", "detached", "done"]


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Begin:
    """The POST's requests have started (ends a POST that has none at once)."""


@dataclass(frozen=True, slots=True)
class Replied:
    """A request ended with `reply`; `status`: the status a JSON answer must have instead of
    the rules' (503 when the session store failed)."""

    reply: dict[str, Any]
    status: int | None = None


@dataclass(frozen=True, slots=True)
class Unanswered:
    """A request ended without a reply (cancelled)."""


@dataclass(frozen=True, slots=True)
class Related:
    """A message of the requests that is not a reply (progress, a log, a request, a listen
    notification), encoded."""

    data: bytes


@dataclass(frozen=True, slots=True)
class CloseStream:
    """A running request asked to close the stream now (`ctx.close_stream()`)."""


@dataclass(frozen=True, slots=True)
class Stop:
    """A shutdown's deadline passed: its requests are cancelled and answered with an error."""


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The client went away."""


Event = Begin | Replied | Unanswered | Related | CloseStream | Stop | Disconnected

# --- actions --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartStream:
    """Send the SSE response's head."""


@dataclass(frozen=True, slots=True)
class WriteEvent:
    """Send one SSE event (logged first when the stream is resumable)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Detach:
    """End the HTTP response with a reconnection hint; later events are only logged."""

    retry_ms: int


@dataclass(frozen=True, slots=True)
class FinishStream:
    """End the SSE stream."""


@dataclass(frozen=True, slots=True)
class WriteJson:
    """Send the whole answer as one JSON body (None: 202 with no body)."""

    status: int
    body: Any


@dataclass(frozen=True, slots=True)
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
        "phase",
        "stopped",
        "unanswered",
    )

    def __init__(
        self,
        requests: int,
        *,
        batch: bool = False,
        stateless: bool = False,
        retry_ms: int | None = None,
        replies: list[dict[str, Any]] | None = None,
    ) -> None:
        self.phase: Phase = "collecting"
        self.unanswered = requests
        """Requests still running."""
        self.stopped = False
        """A shutdown stopped the requests: one ending without a reply is answered STOPPED."""
        self._batch = batch
        self._stateless = stateless
        self._retry_ms = retry_ms
        self._replies: list[dict[str, Any]] = list(replies or [])
        self._status: int | None = None

    @property
    def done(self) -> bool:
        return self.phase == "done"

    def send(self, event: Event) -> list[Action]:
        """The actions `event` calls for, in the order to perform them."""
        if isinstance(event, Stop):
            self.stopped = True
            return [CANCEL]
        if isinstance(event, Disconnected):
            return [CANCEL] if self._stateless else []
        if self.phase == "done":
            return []  # the answer is written: nothing more goes out
        if isinstance(event, Related):
            if self.phase == "collecting":
                return [*self._stream(), WriteEvent(event.data)]
            return [WriteEvent(event.data)]
        if isinstance(event, CloseStream):
            if self._retry_ms is None or self.phase == "detached":
                return []
            actions: list[Action] = self._stream() if self.phase == "collecting" else []
            self.phase = "detached"
            actions.append(Detach(self._retry_ms))
            return actions
        actions = []
        if isinstance(event, Replied):
            self.unanswered -= 1
            if event.status is not None:
                self._status = event.status
            if self.phase == "collecting":
                self._replies.append(event.reply)
            else:
                actions.append(WriteEvent(jsonrpc.encode(event.reply)))
        elif isinstance(event, Unanswered):
            self.unanswered -= 1
        if self.unanswered <= 0:
            actions.append(self._end())
        return actions

    def _stream(self) -> list[Action]:
        """collecting -> streaming: the head, then the replies held so far."""
        self.phase = "streaming"
        replies, self._replies = self._replies, []
        return [START, *(WriteEvent(jsonrpc.encode(reply)) for reply in replies)]

    def _end(self) -> Action:
        streaming = self.phase != "collecting"
        self.phase = "done"
        if streaming:
            return FINISH
        replies = self._replies
        if not replies:
            return WriteJson(202, None)
        if self._batch:
            return WriteJson(self._status or 200, replies)
        status = rules.status_for(replies[0], stateless=self._stateless)
        return WriteJson(self._status or status, replies[0])
