"""plainmcp's client runs the tasks fixtures of examples/everything_server.py (the ones the
conformance suite's tasks-* scenarios call), both eras: a protocol error as TaskFailed, a
tool's error as an is_error result, two questions outstanding at once, input asked before the
task is made (2026-07-28) and a plain tool called as a task."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from plainmcp.client import TASKS_EXTENSION, Client, Elicitation, ElicitResult, TaskFailed
from tests.client.test_everything import app

pytestmark = pytest.mark.anyio

ERAS = ["2025-11-25", "2026-07-28"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def quick(seconds: float) -> None:
    await anyio.sleep(min(seconds, 0.01))


def memory(protocol: str, **options: Any) -> Any:
    return Client.memory(
        app,
        protocol=protocol,
        extensions={TASKS_EXTENSION: {}},
        poll_sleep=quick,
        **options,
    )


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_protocol_error_job_ends_in_task_failed_with_its_error(protocol: str) -> None:
    async with memory(protocol) as client:
        handle = await client.call_tool_as_task("protocol_error_job")
        assert handle.id is not None
        with pytest.raises(TaskFailed) as caught:
            await handle.result()
    assert (caught.value.code, caught.value.task_id) == (-32021, handle.id)
    assert handle.status == "failed"


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_failing_job_gives_its_error_as_a_result(protocol: str) -> None:
    async with memory(protocol) as client:
        handle = await client.call_tool_as_task("failing_job")
        result = await handle.result()
    assert (result.is_error, result.text) == (True, "failing_job failed, as it always does")
    # 2025-11-25 calls a tool's own error failed, 2026-07-28 completed (SEP-2663)
    assert handle.status == {"2025-11-25": "failed", "2026-07-28": "completed"}[protocol]


@pytest.mark.parametrize("protocol", ERAS)
async def test_two_questions_outstanding_at_once_are_both_answered(protocol: str) -> None:
    asked: list[str] = []

    def elicit(question: Elicitation) -> ElicitResult:
        asked.append(question.message)
        return ElicitResult("accept", {"name": question.message.split(":")[0], "confirm": True})

    async with memory(protocol, elicit=elicit) as client:
        handle = await client.call_tool_as_task("multi_input")
        result = await handle.result()
    assert sorted(asked) == ["First: your name?", "Second: your name?"]
    assert result.text == (
        'Answers: {"name":"First","confirm":true} and {"name":"Second","confirm":true}'
    )


async def test_ext_input_asked_before_the_task_is_answered_then_the_task_runs() -> None:
    def elicit(question: Elicitation) -> ElicitResult:
        return ElicitResult("accept", {"name": "Ada"})

    async with memory("2026-07-28", elicit=elicit) as client:
        handle = await client.call_tool_as_task("test_tool_with_task")
        assert handle.id is not None
        assert (await handle.result()).text == "Hello, Ada! (from a task)"


@pytest.mark.parametrize("protocol", ERAS)
async def test_greet_is_never_a_task(protocol: str) -> None:
    async with memory(protocol) as client:
        handle = await client.call_tool_as_task("greet", {"name": "Ada"})
        assert (handle.id, (await handle.result()).text) == (None, "Hello, Ada!")
