"""The per-POST decision without an event loop: events in, the exact actions out."""

from __future__ import annotations

from typing import Any

from plainmcp.transports.http.post_answer import (
    CancelRequests,
    Detach,
    FinishStream,
    PostAnswer,
    StartStream,
    WriteEvent,
    WriteJson,
)
from plainmcp.wire import jsonrpc


def reply(request_id: int, **result: Any) -> dict[str, Any]:
    return jsonrpc.result_message(request_id, result)


def test_only_a_reply_is_one_json_body() -> None:
    machine = PostAnswer(1)
    assert machine.begin() == []
    assert machine.replied(reply(1, ok=True)) == [WriteJson(200, reply(1, ok=True))]
    assert machine.done


def test_a_message_before_the_reply_makes_it_a_stream() -> None:
    machine = PostAnswer(1)
    assert machine.related(b"progress") == [StartStream(), WriteEvent(b"progress")]
    assert machine.phase == "streaming"
    assert machine.replied(reply(1)) == [WriteEvent(jsonrpc.encode(reply(1))), FinishStream()]
    assert machine.done


def test_replies_held_for_json_go_out_first_when_it_becomes_a_stream() -> None:
    machine = PostAnswer(2, batch=True)
    assert machine.replied(reply(1)) == []
    assert machine.related(b"log") == [
        StartStream(),
        WriteEvent(jsonrpc.encode(reply(1))),
        WriteEvent(b"log"),
    ]
    assert machine.replied(reply(2)) == [WriteEvent(jsonrpc.encode(reply(2))), FinishStream()]


def test_a_batch_is_one_array_with_the_refusals_made_before() -> None:
    refusal = jsonrpc.error_message(9, jsonrpc.RpcError(jsonrpc.INVALID_REQUEST, "in use"))
    machine = PostAnswer(2, batch=True, replies=[refusal])
    assert machine.replied(reply(1)) == []
    assert machine.unanswered() == [WriteJson(200, [refusal, reply(1)])]


def test_nothing_to_answer_is_202_and_a_post_without_requests_ends_at_once() -> None:
    assert PostAnswer(1).unanswered() == [WriteJson(202, None)]
    assert PostAnswer(0).begin() == [WriteJson(202, None)]


def test_the_status_a_reply_came_with_wins_over_the_rules() -> None:
    assert PostAnswer(1).replied(reply(1), status=503) == [WriteJson(503, reply(1))]


def test_a_stateless_error_takes_its_status_from_the_rules() -> None:
    error = jsonrpc.error_message(1, jsonrpc.RpcError(jsonrpc.METHOD_NOT_FOUND, "no"))
    assert PostAnswer(1, stateless=True).replied(error) == [WriteJson(404, error)]
    assert PostAnswer(1).replied(error) == [WriteJson(200, error)]


def test_closing_a_resumable_stream_detaches_it_and_the_rest_is_only_logged() -> None:
    machine = PostAnswer(2, batch=True, retry_ms=1500)
    assert machine.replied(reply(1)) == []
    assert machine.close_stream() == [
        StartStream(),
        WriteEvent(jsonrpc.encode(reply(1))),
        Detach(1500),
    ]
    assert machine.phase == "detached"
    assert machine.close_stream() == []
    assert machine.related(b"later") == [WriteEvent(b"later")]
    assert machine.replied(reply(2)) == [WriteEvent(jsonrpc.encode(reply(2))), FinishStream()]


def test_a_stream_that_cannot_resume_is_not_closed_early() -> None:
    machine = PostAnswer(1)
    assert machine.close_stream() == []
    assert machine.phase == "collecting"


def test_a_shutdown_cancels_and_marks_the_requests_stopped() -> None:
    machine = PostAnswer(1)
    assert not machine.stopped
    assert machine.stop() == [CancelRequests()]
    assert machine.stopped
    assert not machine.done


def test_the_client_going_away_cancels_only_a_stateless_post() -> None:
    assert PostAnswer(1, stateless=True).disconnected() == [CancelRequests()]
    assert PostAnswer(1).disconnected() == []


def test_nothing_goes_out_once_the_answer_is_written() -> None:
    machine = PostAnswer(1)
    machine.replied(reply(1))
    assert machine.related(b"late") == []
    assert machine.replied(reply(2)) == []
    assert machine.unanswered() == []
    assert machine.close_stream() == []
