"""The per-POST decision without an event loop: events in, the exact actions out."""

from __future__ import annotations

from typing import Any

from plainmcp.transports.http.post_answer import (
    Begin,
    CancelRequests,
    CloseStream,
    Detach,
    Disconnected,
    FinishStream,
    PostAnswer,
    Related,
    Replied,
    StartStream,
    Stop,
    Unanswered,
    WriteEvent,
    WriteJson,
)
from plainmcp.wire import jsonrpc


def reply(request_id: int, **result: Any) -> dict[str, Any]:
    return jsonrpc.result_message(request_id, result)


def test_only_a_reply_is_one_json_body() -> None:
    machine = PostAnswer(1)
    assert machine.send(Begin()) == []
    assert machine.send(Replied(reply(1, ok=True))) == [WriteJson(200, reply(1, ok=True))]
    assert machine.done


def test_a_message_before_the_reply_makes_it_a_stream() -> None:
    machine = PostAnswer(1)
    assert machine.send(Related(b"progress")) == [StartStream(), WriteEvent(b"progress")]
    assert machine.phase == "streaming"
    assert machine.send(Replied(reply(1))) == [
        WriteEvent(jsonrpc.encode(reply(1))),
        FinishStream(),
    ]
    assert machine.done


def test_replies_held_for_json_go_out_first_when_it_becomes_a_stream() -> None:
    machine = PostAnswer(2, batch=True)
    assert machine.send(Replied(reply(1))) == []
    assert machine.send(Related(b"log")) == [
        StartStream(),
        WriteEvent(jsonrpc.encode(reply(1))),
        WriteEvent(b"log"),
    ]
    assert machine.send(Replied(reply(2))) == [WriteEvent(jsonrpc.encode(reply(2))), FinishStream()]


def test_a_batch_is_one_array_with_the_refusals_made_before() -> None:
    refusal = jsonrpc.error_message(9, jsonrpc.RpcError(jsonrpc.INVALID_REQUEST, "in use"))
    machine = PostAnswer(2, batch=True, replies=[refusal])
    assert machine.send(Replied(reply(1))) == []
    assert machine.send(Unanswered()) == [WriteJson(200, [refusal, reply(1)])]


def test_nothing_to_answer_is_202_and_a_post_without_requests_ends_at_once() -> None:
    assert PostAnswer(1).send(Unanswered()) == [WriteJson(202, None)]
    assert PostAnswer(0).send(Begin()) == [WriteJson(202, None)]


def test_the_status_a_reply_came_with_wins_over_the_rules() -> None:
    machine = PostAnswer(1)
    assert machine.send(Replied(reply(1), status=503)) == [WriteJson(503, reply(1))]


def test_a_stateless_error_takes_its_status_from_the_rules() -> None:
    error = jsonrpc.error_message(1, jsonrpc.RpcError(jsonrpc.METHOD_NOT_FOUND, "no"))
    assert PostAnswer(1, stateless=True).send(Replied(error)) == [WriteJson(404, error)]
    assert PostAnswer(1).send(Replied(error)) == [WriteJson(200, error)]


def test_closing_a_resumable_stream_detaches_it_and_the_rest_is_only_logged() -> None:
    machine = PostAnswer(2, retry_ms=1500, batch=True)
    assert machine.send(Replied(reply(1))) == []
    assert machine.send(CloseStream()) == [
        StartStream(),
        WriteEvent(jsonrpc.encode(reply(1))),
        Detach(1500),
    ]
    assert machine.phase == "detached"
    assert machine.send(CloseStream()) == []
    assert machine.send(Related(b"later")) == [WriteEvent(b"later")]
    assert machine.send(Replied(reply(2))) == [WriteEvent(jsonrpc.encode(reply(2))), FinishStream()]


def test_a_stream_that_cannot_resume_is_not_closed_early() -> None:
    machine = PostAnswer(1)
    assert machine.send(CloseStream()) == []
    assert machine.phase == "collecting"


def test_a_shutdown_cancels_and_marks_the_requests_stopped() -> None:
    machine = PostAnswer(1)
    assert not machine.stopped
    assert machine.send(Stop()) == [CancelRequests()]
    assert machine.stopped
    assert not machine.done


def test_the_client_going_away_cancels_only_a_stateless_post() -> None:
    assert PostAnswer(1, stateless=True).send(Disconnected()) == [CancelRequests()]
    assert PostAnswer(1).send(Disconnected()) == []


def test_nothing_goes_out_once_the_answer_is_written() -> None:
    machine = PostAnswer(1)
    machine.send(Replied(reply(1)))
    assert machine.send(Related(b"late")) == []
    assert machine.send(Replied(reply(2))) == []
    assert machine.send(CloseStream()) == []
