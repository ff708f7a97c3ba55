"""One request of the client's while a connection serves it: its state, changed only by its own
event methods (h11's rule), and no I/O.

    received --start--> running --finish--> answered
        |                  |
        +-----cancel-------+--> cancelled       (the client's notifications/cancelled, close())
        +-----time_out-----+--> timed out       (a shutdown's deadline: answered with its error)
                                    |
                                    +--finish / answer_late--> answered

A cancelled request gets no reply; a timed-out one gets its error once, either from its own
task as it ends (`finish`) or from the transport for it (`answer_late`), whichever comes first.
"""

from __future__ import annotations

from typing import Final, Literal, Protocol

from plainmcp.wire.jsonrpc import RequestId, RpcError

State = Literal["received", "running", "answered", "cancelled", "timed out"]
RECEIVED: Final = "received"
RUNNING: Final = "running"
ANSWERED: Final = "answered"
CANCELLED: Final = "cancelled"
TIMED_OUT: Final = "timed out"


class Target(Protocol):
    """What runs the request: an asyncio Task, or an anyio CancelScope (a batch's)."""

    def cancel(self) -> object: ...


class InFlight:
    """A request in flight: cancelled through its `target`. Plain slots, no dataclass: one is
    made per request (the hot path)."""

    __slots__ = ("error", "id", "state", "target")

    def __init__(self, request_id: RequestId, target: Target | None = None) -> None:
        self.id = request_id
        self.state: State = RECEIVED if target is None else RUNNING
        self.target = target
        self.error: RpcError | None = None
        """Set by `time_out`: what the request is answered with."""

    def start(self, target: Target) -> None:
        """The request runs in `target` now."""
        self.target = target
        if self.state == RECEIVED:
            self.state = RUNNING

    @property
    def cancel_called(self) -> bool:
        """Cancelled, by the client or by a shutdown's deadline (the Cancellable interface)."""
        return self.state == CANCELLED or self.state == TIMED_OUT

    def cancel(self) -> None:
        """The client cancelled it (or the connection closed): no reply."""
        if self.state == RECEIVED or self.state == RUNNING:
            self.state = CANCELLED
            if self.target is not None:
                self.target.cancel()

    def time_out(self, error: RpcError) -> bool:
        """A shutdown's deadline passed while it ran: cancelled, to be answered with `error`.
        False when it was past running (answered, or cancelled by the client: no answer)."""
        if self.state != RECEIVED and self.state != RUNNING:
            return False
        self.state = TIMED_OUT
        self.error = error
        if self.target is not None:
            self.target.cancel()
        return True

    def finish(self) -> bool:
        """Its task ended with a reply (or, timed out, with its error): True when that reply is
        to be sent, False when it was answered already (`answer_late`)."""
        if self.state == ANSWERED:
            return False
        self.state = ANSWERED
        return True

    def answer_late(self) -> RpcError | None:
        """The transport answers a timed-out request whose task did not (not started, or deaf
        to cancellation): its error, once; None when nothing is owed."""
        if self.state != TIMED_OUT:
            return None
        self.state = ANSWERED
        return self.error
