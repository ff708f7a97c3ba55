"""Each era's wire of a task, from the one table: exact shapes, valid per each era's schema."""

from __future__ import annotations

import dataclasses

from plainmcp.tasks import Ask, Fail, Finish, TaskRecord, apply
from plainmcp.tasks.eras import ERAS, created, detailed, listing, payload, timestamp
from tests.mcp_schemas import validate_definition, validate_extension_definition

CORE, EXT = ERAS["2025-11-25"], ERAS["2026-07-28"]
TASKS = "io.modelcontextprotocol/tasks"
RESULT = {"content": [{"type": "text", "text": "done"}], "isError": False}
AT = 1_780_000_000.0  # 2026-05-28T20:26:40Z


def record() -> TaskRecord:
    return TaskRecord("t-1", None, created_at=AT, updated_at=AT + 1.5, ttl_ms=60_000, poll_ms=500)


def test_timestamps_are_utc_iso_8601_to_the_millisecond() -> None:
    assert timestamp(AT + 0.25) == "2026-05-28T20:26:40.250Z"


def test_2025_11_25_nests_the_created_task_with_its_own_field_names() -> None:
    out = created(record(), CORE)
    assert out == {
        "task": {
            "taskId": "t-1",
            "status": "working",
            "createdAt": "2026-05-28T20:26:40.000Z",
            "lastUpdatedAt": "2026-05-28T20:26:41.500Z",
            "ttl": 60_000,
            "pollInterval": 500,
        }
    }
    validate_definition(out, "2025-11-25", "CreateTaskResult")


def test_2026_07_28_flattens_it_with_result_type_task_and_ms_names() -> None:
    out = created(record(), EXT)
    assert out == {
        "resultType": "task",
        "taskId": "t-1",
        "status": "working",
        "createdAt": "2026-05-28T20:26:40.000Z",
        "lastUpdatedAt": "2026-05-28T20:26:41.500Z",
        "ttlMs": 60_000,
        "pollIntervalMs": 500,
    }
    validate_extension_definition(out, TASKS, "CreateTaskResult")


def test_only_2026_07_28_inlines_the_result_in_tasks_get() -> None:
    done = apply(record(), Finish(RESULT, "ok"), now=AT + 2)
    core, ext = detailed(done, CORE), detailed(done, EXT)
    assert "result" not in core and core["statusMessage"] == "ok"
    validate_definition(core, "2025-11-25", "GetTaskResult")
    assert ext["result"] == RESULT
    validate_extension_definition({**ext, "resultType": "complete"}, TASKS, "GetTaskResult")


def test_a_failed_task_inlines_its_jsonrpc_error_and_no_result() -> None:
    error = {"code": -32603, "message": "Internal error"}
    failed = detailed(apply(record(), Fail(error), now=AT + 2), EXT)
    assert (failed["status"], failed["error"], "result" in failed) == ("failed", error, False)
    validate_extension_definition({**failed, "resultType": "complete"}, TASKS, "GetTaskResult")


def test_an_input_required_task_shows_its_outstanding_requests_on_2026_07_28() -> None:
    asked = {"elicitation-1": {"method": "elicitation/create", "params": {"message": "?"}}}
    waiting = apply(record(), Ask(asked), now=AT + 2)
    out = detailed(waiting, EXT)
    assert (out["status"], out["inputRequests"]) == ("input_required", asked)
    assert "inputRequests" not in detailed(waiting, CORE)


def test_tasks_result_names_its_task_in_meta_on_2025_11_25() -> None:
    done = dataclasses.replace(apply(record(), Finish(RESULT), now=AT + 2))
    assert payload(done, CORE) == {
        **RESULT,
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}},
    }


def test_a_listing_pages_with_a_next_cursor() -> None:
    out = listing([record()], CORE, "c2")
    assert out["nextCursor"] == "c2" and [t["taskId"] for t in out["tasks"]] == ["t-1"]
    validate_definition(out, "2025-11-25", "ListTasksResult")


def test_the_eras_differ_only_where_the_table_says() -> None:
    differing = {
        f.name for f in dataclasses.fields(CORE) if getattr(CORE, f.name) != getattr(EXT, f.name)
    }
    assert differing == {
        "version",
        "methods",
        "gate",
        "decides",
        "created",
        "ttl_key",
        "poll_key",
        "detailed",
        "tool_error",
        "cancel_answer",
        "cancel_terminal",
        "related_meta",
        "required_error",
        "status_notification",
        "progress_to_status",
    }
