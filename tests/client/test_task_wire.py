"""The client's task wire, sans-I/O: the two eras read from one table, the backoff."""

from __future__ import annotations

import pytest

from plainmcp.client import McpError
from plainmcp.client.task_wire import (
    CORE,
    ERAS,
    EXTENSION,
    TaskState,
    call_params,
    created,
    is_task_result,
    next_delay,
    parse_task,
    server_offers,
)

STAMP = "2025-11-25T10:30:00Z"


def test_only_the_two_revisions_with_tasks_have_an_era() -> None:
    assert {v: (e.client_asks, e.nested, e.result_method) for v, e in ERAS.items()} == {
        "2025-11-25": (True, True, "tasks/result"),
        "2026-07-28": (False, False, None),
    }


def test_a_core_create_task_result_is_nested_and_reads_ttl_and_poll_interval() -> None:
    raw = {
        "task": {
            "taskId": "a",
            "status": "working",
            "statusMessage": "started",
            "createdAt": STAMP,
            "lastUpdatedAt": STAMP,
            "ttl": 60000,
            "pollInterval": 250,
        }
    }
    assert is_task_result(CORE, raw) and not is_task_result(EXTENSION, raw)
    assert created(CORE, raw) == TaskState(
        "a", "working", "started", STAMP, STAMP, ttl_ms=60000, poll_interval_ms=250
    )


def test_an_extension_task_is_flat_with_result_type_task_and_inlines_its_result() -> None:
    raw = {
        "resultType": "task",
        "taskId": "b",
        "status": "completed",
        "createdAt": STAMP,
        "lastUpdatedAt": STAMP,
        "ttlMs": None,
        "pollIntervalMs": 5000,
        "result": {"content": [], "isError": False},
    }
    assert is_task_result(EXTENSION, raw) and not is_task_result(CORE, raw)
    state = created(EXTENSION, raw)
    assert (state.ttl_ms, state.poll_interval_ms, state.result, state.done) == (
        None,
        5000,
        {"content": [], "isError": False},
        True,
    )


def test_a_tool_result_is_never_taken_for_a_task() -> None:
    plain = {"content": [{"type": "text", "text": "x"}], "task": {"taskId": "c"}}
    assert not is_task_result(CORE, plain)
    assert not is_task_result(EXTENSION, {"resultType": "complete", "content": []})
    assert not is_task_result(None, {"resultType": "task"})


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("x", "Invalid response from server: a task must be an object"),
        ({"status": "working"}, "Invalid response from server: a task must have a taskId string"),
        (
            {"taskId": "d", "status": "done"},
            "Invalid response from server: a task's status must be one of working,"
            " input_required, completed, failed, cancelled, not 'done'",
        ),
    ],
)
def test_a_malformed_task_is_an_invalid_response(raw: object, message: str) -> None:
    with pytest.raises(McpError) as caught:
        parse_task(CORE, raw)
    assert caught.value.message == message


def test_only_the_core_era_asks_for_a_task_in_the_params() -> None:
    assert call_params(CORE, "t", {"a": 1}, 30000) == {
        "name": "t",
        "arguments": {"a": 1},
        "task": {"ttl": 30000},
    }
    assert call_params(CORE, "t", {}, None) == {"name": "t", "arguments": {}, "task": {}}
    assert call_params(EXTENSION, "t", {}, 30000) == {"name": "t", "arguments": {}}
    assert call_params(None, "t", {}, 30000) == {"name": "t", "arguments": {}}


def test_which_server_capabilities_offer_tasks_in_each_era() -> None:
    core = {"tasks": {"requests": {"tools": {"call": {}}}}}
    ext = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    assert (server_offers(CORE, core), server_offers(CORE, ext)) == (True, False)
    assert (server_offers(EXTENSION, ext), server_offers(EXTENSION, core)) == (True, False)
    assert not server_offers(CORE, {"tasks": {"list": {}}})


def test_the_delay_is_the_servers_interval_growing_while_nothing_changes() -> None:
    assert [next_delay(2000, n) for n in range(7)] == [2.0, 3.0, 4.5, 6.75, 10.125, 15.1875, 16.0]
    assert next_delay(None, 0) == 1.0
    assert (next_delay(0, 0), next_delay(0, 9)) == (0.05, 0.4)  # a floor, and backing off
