"""The client's task handle against a scripted server, both eras: the exact requests it sends,
the delays it waits (injected), its result through call_tool's parsing, its errors."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp.client import (
    TASKS_EXTENSION,
    Elicitation,
    ElicitResult,
    McpError,
    TaskCancelled,
    TaskFailed,
    TaskNotFound,
)
from tests.client.task_fakes import Sleeps, core_task, ext_task, rpc_error, scripted_client

pytestmark = pytest.mark.anyio

CORE = "2025-11-25"
EXT = "2026-07-28"
CORE_CAPS = {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}}
EXT_CAPS = {"tools": {}, "extensions": {TASKS_EXTENSION: {}}}
DONE = {"content": [{"type": "text", "text": "42"}], "isError": False}
NOT_FOUND = rpc_error(-32602, "Failed to retrieve task: Task not found")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def replies(*answers: dict[str, Any]) -> Any:
    """Answer the requests after the opening in order."""
    queue = list(answers)

    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return queue.pop(0)

    return answer


async def test_core_polls_at_the_servers_interval_backing_off_while_nothing_changes() -> None:
    sleeps = Sleeps()
    answer = replies(
        {"task": core_task("t1", "working", pollInterval=1000)},
        core_task("t1", "working", pollInterval=1000),
        core_task("t1", "working", pollInterval=1000, statusMessage="half way"),
        core_task("t1", "working", pollInterval=1000, statusMessage="half way"),
        core_task("t1", "completed", pollInterval=1000),
        {**DONE, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}},
    )
    async with scripted_client(
        answer, protocol=CORE, capabilities=CORE_CAPS, poll_sleep=sleeps
    ) as (client, script):
        handle = await client.call_tool_as_task("compute", {"n": 6}, ttl=30)
        assert (handle.id, handle.status) == ("t1", "working")
        seen: list[tuple[str, str | None]] = []
        await handle.wait(on_status=lambda s: seen.append((s.status, s.status_message)))
        result = await handle.result()
    assert sleeps.delays == [1.0, 1.5, 1.0, 1.5]
    assert seen == [("working", "half way"), ("completed", None)]
    assert script.calls() == [
        ("tools/call", {"name": "compute", "arguments": {"n": 6}, "task": {"ttl": 30000}}),
        ("tasks/get", {"taskId": "t1"}),
        ("tasks/get", {"taskId": "t1"}),
        ("tasks/get", {"taskId": "t1"}),
        ("tasks/get", {"taskId": "t1"}),
        ("tasks/result", {"taskId": "t1"}),
    ]
    assert (result.text, result.is_error, handle.status) == ("42", False, "completed")


async def test_the_backoff_is_capped_at_eight_times_the_interval() -> None:
    sleeps = Sleeps()
    working = core_task("t1", "working", pollInterval=100)
    answer = replies(
        {"task": working}, *[working] * 7, core_task("t1", "completed", pollInterval=100)
    )
    async with scripted_client(
        answer, protocol=CORE, capabilities=CORE_CAPS, poll_sleep=sleeps
    ) as (client, _):
        handle = await client.call_tool_as_task("compute")
        await handle.wait()
    assert [round(d, 4) for d in sleeps.delays] == [
        0.1,
        0.15,
        0.225,
        0.3375,
        0.5062,
        0.7594,
        0.8,
        0.8,
    ]


async def test_core_input_required_opens_tasks_result_for_the_servers_questions() -> None:
    sleeps = Sleeps()
    answer = replies(
        {"task": core_task("t1", "working")},
        core_task("t1", "input_required"),
        DONE,  # tasks/result, once the server's elicitation was answered on the connection
        core_task("t1", "completed"),
    )
    async with scripted_client(
        answer, protocol=CORE, capabilities=CORE_CAPS, poll_sleep=sleeps
    ) as (client, script):
        handle = await client.call_tool_as_task("ask")
        seen: list[str] = []
        await handle.wait(on_status=lambda state: seen.append(state.status))
        result = await handle.result()
    assert seen == ["input_required", "completed"]
    assert [m for m, _ in script.calls()] == [
        "tools/call",
        "tasks/get",
        "tasks/result",
        "tasks/get",
    ]
    assert sleeps.delays == [1.0]  # no interval named: one second
    assert result.text == "42"


async def test_ext_declares_the_extension_and_answers_input_requests_once_by_tasks_update() -> None:
    asked: list[str] = []

    def elicit(question: Elicitation) -> ElicitResult:
        asked.append(question.message)
        return ElicitResult("accept", {"name": "Luca"})

    ask = {
        "name": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Your name?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                },
            },
        }
    }
    answer = replies(
        {"resultType": "task", **ext_task("t2", "working", pollIntervalMs=500)},
        {"resultType": "complete", **ext_task("t2", "input_required", inputRequests=ask)},
        {"resultType": "complete"},  # tasks/update's ack
        {"resultType": "complete", **ext_task("t2", "input_required", inputRequests=ask)},
        {"resultType": "complete", **ext_task("t2", "completed", result=DONE)},
    )
    sleeps = Sleeps()
    async with scripted_client(
        answer, protocol=EXT, capabilities=EXT_CAPS, elicit=elicit, poll_sleep=sleeps
    ) as (client, script):
        handle = await client.call_tool_as_task("hello", {})
        result = await handle.result()
    assert script.calls() == [
        ("tools/call", {"name": "hello", "arguments": {}}),
        ("tasks/get", {"taskId": "t2"}),
        (
            "tasks/update",
            {
                "taskId": "t2",
                "inputResponses": {"name": {"action": "accept", "content": {"name": "Luca"}}},
            },
        ),
        ("tasks/get", {"taskId": "t2"}),
        ("tasks/get", {"taskId": "t2"}),
    ]
    assert asked == ["Your name?"]  # the same key asked twice is answered once
    assert sleeps.delays == [0.5, 1.0, 1.5]  # the interval is the last snapshot's
    capabilities = [m["io.modelcontextprotocol/clientCapabilities"] for m in script.metas[1:]]
    assert all(c["extensions"] == {TASKS_EXTENSION: {}} for c in capabilities)
    assert result.text == "42"


async def test_a_plain_answer_to_a_task_call_is_a_completed_handle() -> None:
    answer = replies(DONE)
    async with scripted_client(answer, protocol=CORE, capabilities={"tools": {}}) as (
        client,
        script,
    ):
        handle = await client.call_tool_as_task("compute", {"n": 1}, ttl=5)
        assert (handle.id, handle.status, handle.done) == (None, "completed", True)
        assert (await handle.result()).text == "42"
        await handle.cancel()  # nothing to cancel
    assert script.calls() == [("tools/call", {"name": "compute", "arguments": {"n": 1}})]


async def test_core_calls_a_tool_that_names_no_task_support_plainly() -> None:
    async with scripted_client(
        replies(DONE), protocol=CORE, capabilities=CORE_CAPS, tools={"add": None}
    ) as (client, script):
        handle = await client.call_tool_as_task("add", {"a": 1}, ttl=5)
        assert (handle.id, (await handle.result()).text) == (None, "42")
    assert script.calls() == [("tools/call", {"name": "add", "arguments": {"a": 1}})]
    assert [m for m, _ in script.sent] == ["tools/list", "tools/call"]


async def test_ext_call_tool_follows_a_task_the_server_chose_to_its_result() -> None:
    answer = replies(
        {"resultType": "task", **ext_task("t3", "working", pollIntervalMs=10)},
        {"resultType": "complete", **ext_task("t3", "completed", result=DONE)},
    )
    async with scripted_client(
        answer,
        protocol=EXT,
        capabilities=EXT_CAPS,
        extensions={TASKS_EXTENSION: {}},
        poll_sleep=Sleeps(),
    ) as (client, script):
        result = await client.call_tool("compute")
    assert [m for m, _ in script.calls()] == ["tools/call", "tasks/get"]
    assert result.text == "42"


async def test_reattaching_to_an_unknown_task_raises_task_not_found() -> None:
    async with scripted_client(replies(NOT_FOUND), protocol=EXT, capabilities=EXT_CAPS) as (
        client,
        script,
    ):
        with pytest.raises(TaskNotFound) as caught:
            await client.task("nope")
    assert (caught.value.task_id, caught.value.code, caught.value.message) == (
        "nope",
        -32602,
        "No task 'nope': Failed to retrieve task: Task not found",
    )
    assert script.calls() == [("tasks/get", {"taskId": "nope"})]


async def test_reattach_reads_the_status_and_waits_for_the_result() -> None:
    answer = replies(
        core_task("t9", "working", statusMessage="step 2"),
        core_task("t9", "completed"),
        DONE,
    )
    async with scripted_client(
        answer, protocol=CORE, capabilities=CORE_CAPS, poll_sleep=Sleeps()
    ) as (client, script):
        handle = await client.task("t9")
        assert (handle.id, handle.status, handle.status_message) == ("t9", "working", "step 2")
        assert (await handle.result()).text == "42"
    assert [m for m, _ in script.calls()] == ["tasks/get", "tasks/get", "tasks/result"]


async def test_ext_failed_task_raises_task_failed_with_the_protocol_error() -> None:
    error = {"code": -32603, "message": "API rate limit exceeded"}
    answer = replies(
        {"resultType": "task", **ext_task("t4", "working")},
        {"resultType": "complete", **ext_task("t4", "failed", error=error)},
    )
    async with scripted_client(
        answer, protocol=EXT, capabilities=EXT_CAPS, poll_sleep=Sleeps()
    ) as (client, _):
        handle = await client.call_tool_as_task("protocol_error_job")
        with pytest.raises(TaskFailed) as caught:
            await handle.result()
    assert isinstance(caught.value, McpError)
    assert (caught.value.code, caught.value.message, caught.value.task_id) == (
        -32603,
        "API rate limit exceeded",
        "t4",
    )


async def test_core_failed_task_raises_the_error_tasks_result_returns() -> None:
    answer = replies(
        {"task": core_task("t5", "working")},
        core_task("t5", "failed"),
        rpc_error(-32603, "boom", {"why": 1}),
    )
    async with scripted_client(
        answer, protocol=CORE, capabilities=CORE_CAPS, poll_sleep=Sleeps()
    ) as (client, _):
        handle = await client.call_tool_as_task("protocol_error_job")
        with pytest.raises(TaskFailed) as caught:
            await handle.result()
    assert (caught.value.code, caught.value.message, caught.value.data) == (
        -32603,
        "boom",
        {"why": 1},
    )


@pytest.mark.parametrize("protocol", [CORE, EXT])
async def test_a_tool_error_in_a_task_is_a_result_with_is_error(protocol: str) -> None:
    failed = {"content": [{"type": "text", "text": "no such file"}], "isError": True}
    if protocol == CORE:  # 2025-11-25 calls a tool's error `failed`; tasks/result gives it
        answers = [{"task": core_task("t6", "working")}, core_task("t6", "failed"), failed]
    else:
        answers = [
            {"resultType": "task", **ext_task("t6", "working")},
            {"resultType": "complete", **ext_task("t6", "completed", result=failed)},
        ]
    caps = CORE_CAPS if protocol == CORE else EXT_CAPS
    async with scripted_client(
        replies(*answers), protocol=protocol, capabilities=caps, poll_sleep=Sleeps()
    ) as (client, _):
        handle = await client.call_tool_as_task("failing_job")
        result = await handle.result()
    assert (result.is_error, result.text) == (True, "no such file")


async def test_core_cancel_takes_the_task_the_server_answers_and_result_raises() -> None:
    answer = replies(
        {"task": core_task("t7", "working")},
        core_task("t7", "cancelled", statusMessage="The task was cancelled by request."),
    )
    async with scripted_client(answer, protocol=CORE, capabilities=CORE_CAPS) as (
        client,
        script,
    ):
        handle = await client.call_tool_as_task("slow_compute")
        await handle.cancel()
        assert handle.status == "cancelled"
        cancelled = r"^The task was cancelled by request\. \(code -32603\)$"
        with pytest.raises(TaskCancelled, match=cancelled):
            await handle.result()
    assert script.calls()[1] == ("tasks/cancel", {"taskId": "t7"})


async def test_cancelling_a_finished_core_task_is_a_no_op() -> None:
    answer = replies(
        {"task": core_task("t8", "working")},
        rpc_error(-32602, "Cannot cancel a task in a terminal status"),
        core_task("t8", "completed"),
    )
    async with scripted_client(answer, protocol=CORE, capabilities=CORE_CAPS) as (
        client,
        script,
    ):
        handle = await client.call_tool_as_task("slow_compute")
        await handle.cancel()
        assert handle.status == "completed"
    assert [m for m, _ in script.calls()] == ["tools/call", "tasks/cancel", "tasks/get"]


async def test_ext_cancel_sends_tasks_cancel_and_takes_the_empty_ack() -> None:
    answer = replies(
        {"resultType": "task", **ext_task("t1", "working")},
        {"resultType": "complete"},
    )
    async with scripted_client(answer, protocol=EXT, capabilities=EXT_CAPS) as (
        client,
        script,
    ):
        handle = await client.call_tool_as_task("slow_compute")
        await handle.cancel()
        assert handle.status == "working"  # eventually consistent: poll to see it end
    assert script.calls()[1] == ("tasks/cancel", {"taskId": "t1"})


async def test_a_server_without_tasks_has_no_task_to_reattach_to() -> None:
    async with scripted_client(replies(), protocol=CORE, capabilities={"tools": {}}) as (
        client,
        _,
    ):
        with pytest.raises(ValueError, match="the server offers no tasks at 2025-11-25"):
            await client.task("t1")


async def test_ext_a_task_created_done_is_read_with_tasks_get_for_its_result() -> None:
    answer = replies(
        {"resultType": "task", **ext_task("t5", "completed")},
        {"resultType": "complete", **ext_task("t5", "completed", result=DONE)},
    )
    async with scripted_client(answer, protocol=EXT, capabilities=EXT_CAPS) as (client, script):
        handle = await client.call_tool_as_task("compute")
        assert (await handle.result()).text == "42"
    assert [m for m, _ in script.calls()] == ["tools/call", "tasks/get"]


async def test_a_handle_says_its_id_and_status() -> None:
    answer = replies({"task": core_task("t1", "working")})
    async with scripted_client(answer, protocol=CORE, capabilities=CORE_CAPS) as (client, _):
        handle = await client.call_tool_as_task("compute")
    assert repr(handle) == "TaskHandle(id='t1', status='working')"
