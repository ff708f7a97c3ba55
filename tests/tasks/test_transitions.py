"""The status machine: what each change does to a record, and that terminal states are final."""

from __future__ import annotations

from plainmcp.tasks import Answer, Ask, Cancel, Fail, Finish, Progress, TaskRecord, apply

ERROR = {"code": -32603, "message": "Internal error"}
RESULT = {"content": [{"type": "text", "text": "done"}], "isError": False}


def fresh() -> TaskRecord:
    return TaskRecord(
        "t1", "sub:ann", created_at=100.0, updated_at=100.0, ttl_ms=60_000, poll_ms=500
    )


def test_progress_sets_the_message_and_bumps_the_version_and_time() -> None:
    after = apply(fresh(), Progress("half way"), now=101.5)
    assert (after.status, after.message, after.version, after.updated_at) == (
        "working",
        "half way",
        1,
        101.5,
    )


def test_progress_with_nothing_new_is_no_change() -> None:
    record = fresh()
    assert apply(record, Progress(), now=102.0) is record


def test_ask_makes_input_required_and_an_answer_of_every_key_makes_working_again() -> None:
    request = {"method": "elicitation/create", "params": {"message": "name?"}}
    asked = apply(fresh(), Ask({"a": request, "b": request}), now=101.0)
    assert (asked.status, sorted(asked.input_requests)) == ("input_required", ["a", "b"])
    partly = apply(asked, Answer({"a": {"action": "accept"}, "zzz": {}}), now=102.0)
    assert (partly.status, list(partly.input_requests), partly.responses) == (
        "input_required",
        ["b"],
        {"a": {"action": "accept"}},
    )
    done = apply(partly, Answer({"b": {"action": "decline"}}), now=103.0)
    assert (done.status, done.input_requests, done.answered) == ("working", {}, ("a", "b"))
    assert done.responses == {"a": {"action": "accept"}, "b": {"action": "decline"}}


def test_an_answer_for_no_outstanding_key_is_ignored_and_a_key_is_never_asked_twice() -> None:
    request = {"method": "elicitation/create", "params": {}}
    asked = apply(fresh(), Ask({"a": request}), now=101.0)
    answered = apply(asked, Answer({"a": {"action": "accept"}}), now=102.0)
    assert apply(answered, Answer({"a": {"action": "decline"}}), now=103.0) is answered
    assert apply(answered, Ask({"a": request}), now=104.0) is answered


def test_finish_completes_with_the_result_and_clears_what_was_outstanding() -> None:
    asked = apply(fresh(), Ask({"a": {"method": "roots/list", "params": {}}}), now=101.0)
    done = apply(asked, Finish(RESULT), now=102.0)
    assert (done.status, done.result, done.input_requests, done.error) == (
        "completed",
        RESULT,
        {},
        None,
    )


def test_fail_carries_the_jsonrpc_error() -> None:
    failed = apply(fresh(), Fail(ERROR, "boom"), now=101.0)
    assert (failed.status, failed.error, failed.message) == ("failed", ERROR, "boom")


def test_cancel_marks_the_request_and_ends_the_task() -> None:
    cancelled = apply(fresh(), Cancel(), now=101.0)
    assert (cancelled.status, cancelled.cancel_requested, cancelled.message) == (
        "cancelled",
        True,
        "The task was cancelled.",
    )


def test_every_change_to_a_terminal_task_returns_it_unchanged() -> None:
    for end in (Finish(RESULT), Fail(ERROR), Cancel()):
        final = apply(fresh(), end, now=101.0)
        for change in (
            Progress("x"),
            Ask({"k": {}}),
            Answer({"k": {}}),
            Finish({}),
            Fail({}),
            Cancel(),
        ):
            assert apply(final, change, now=102.0) is final


def test_a_record_round_trips_through_plain_data() -> None:
    record = apply(fresh(), Ask({"a": {"method": "roots/list", "params": {}}}), now=101.0)
    record = apply(record, Answer({"a": {"roots": []}}), now=102.0)
    assert TaskRecord.from_dict(record.to_dict()) == record


def test_expiry_is_creation_plus_ttl() -> None:
    record = fresh()
    assert (record.expired(159.999), record.expired(160.0)) == (False, True)
    forever = TaskRecord("t2", None, created_at=0.0, updated_at=0.0, ttl_ms=None, poll_ms=1)
    assert forever.expired(1e12) is False


def test_a_finish_may_end_failed_and_keep_its_result() -> None:
    result = {"content": [{"type": "text", "text": "no"}], "isError": True}
    ended = apply(fresh(), Finish(result, status="failed"), now=101.0)
    assert (ended.status, ended.result, ended.error) == ("failed", result, None)
