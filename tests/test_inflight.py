"""A request's states, changed only by its own event methods: no event loop needed."""

from __future__ import annotations

from plainmcp.inflight import ANSWERED, CANCELLED, RECEIVED, RUNNING, TIMED_OUT, InFlight
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, RpcError

STOPPED = RpcError(INTERNAL_ERROR, "stopped")


class Target:
    def __init__(self) -> None:
        self.cancels = 0

    def cancel(self) -> None:
        self.cancels += 1


def test_a_request_runs_then_is_answered_once() -> None:
    running = InFlight(1)
    assert running.state == RECEIVED
    target = Target()
    running.start(target)
    assert running.state == RUNNING and not running.cancel_called
    assert running.finish() is True
    assert running.state == ANSWERED
    assert running.finish() is False
    running.cancel()  # too late: nothing is cancelled
    assert running.state == ANSWERED and target.cancels == 0


def test_the_client_cancelling_it_cancels_its_target_once_and_no_deadline_answers_it() -> None:
    target = Target()
    running = InFlight("a", target)
    running.cancel()
    running.cancel()
    assert running.state == CANCELLED and running.cancel_called and target.cancels == 1
    assert running.time_out(STOPPED) is False
    assert running.answer_late() is None


def test_a_timed_out_request_is_answered_by_its_task_or_late_but_once() -> None:
    target = Target()
    ended_itself = InFlight(1, target)
    assert ended_itself.time_out(STOPPED) is True
    assert ended_itself.state == TIMED_OUT and ended_itself.error is STOPPED
    assert target.cancels == 1
    assert ended_itself.finish() is True
    assert ended_itself.answer_late() is None

    deaf = InFlight(2, Target())
    deaf.time_out(STOPPED)
    assert deaf.answer_late() is STOPPED
    assert deaf.answer_late() is None
    assert deaf.finish() is False  # what it returns after that is dropped


def test_a_request_not_started_yet_is_cancelled_without_a_target() -> None:
    running = InFlight(3)
    running.cancel()
    assert running.state == CANCELLED
    running.start(Target())
    assert running.state == CANCELLED
