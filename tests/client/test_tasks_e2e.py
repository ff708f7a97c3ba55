"""The client's tasks against plainmcp's own server, both eras, in memory: a task to its result
through call_tool's parsing, progress and logs, questions answered by the callbacks, cancel
reaching the tool, reattach after the first client closed, the errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio
import pytest

from plainmcp import Context, Principal, Server, ToolError
from plainmcp.client import (
    TASKS_EXTENSION,
    Client,
    Elicitation,
    ElicitResult,
    LogMessage,
    Progress,
    SamplingRequest,
    TaskCancelled,
    TaskNotFound,
)
from plainmcp.tasks.extension import Tasks
from plainmcp.testing import run_task

pytestmark = pytest.mark.anyio

CORE = "2025-11-25"
EXT = "2026-07-28"
ERAS = [CORE, EXT]
TASKS = {TASKS_EXTENSION: {}}
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def quick(seconds: float) -> None:
    """Polls in these tests wait a moment, whatever the server's interval."""
    await anyio.sleep(min(seconds, 0.005))


@dataclass
class Box:
    label: str
    size: int


def make_app() -> tuple[Server, dict[str, anyio.Event]]:
    app = Server("tasks-e2e", tasks=Tasks(budget=0))
    gates = {"release": anyio.Event(), "started": anyio.Event(), "cancelled": anyio.Event()}

    @app.tool(task="optional")
    async def build(target: str, ctx: Context) -> str:
        await ctx.report_progress(1, 2, "compiling")
        await ctx.info(f"compiled {target}")
        return f"built {target}"

    @app.tool(task="optional")
    def pack(label: str) -> Box:
        return Box(label, 3)

    @app.tool(task="optional")
    async def hello(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", NAME_FORM)
        return f"Hello, {answer.content['name'] if answer.content else 'nobody'}!"

    @app.tool(task="optional")
    def failing_job() -> str:
        raise ToolError("no such file")

    @app.tool(task="required")
    async def held() -> str:
        gates["started"].set()
        await gates["release"].wait()
        return "released"

    @app.tool(task="required")
    async def forever() -> str:
        gates["started"].set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            gates["cancelled"].set()
            raise
        return "never"

    return app, gates


def memory(app: Server, protocol: str, **options: Any) -> Any:
    return Client.memory(app, protocol=protocol, extensions=TASKS, poll_sleep=quick, **options)


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_task_runs_to_a_result_parsed_as_call_tool_parses_it(protocol: str) -> None:
    app, _ = make_app()
    async with memory(app, protocol) as client:
        handle = await client.call_tool_as_task("pack", {"label": "pens"})
        assert isinstance(handle.id, str) and handle.status == "working"
        result = await handle.result()
        plain = await client.call_tool("pack", {"label": "pens"})
    assert handle.status == "completed"
    assert (result.data, result.text) == (plain.data, plain.text)
    assert result.structured == {"label": "pens", "size": 3}


async def test_core_progress_and_logs_of_a_task_reach_the_clients_callbacks() -> None:
    app, _ = make_app()
    progress: list[Progress] = []
    logs: list[LogMessage] = []
    async with memory(app, CORE, on_progress=progress.append, on_log=logs.append) as client:
        handle = await client.call_tool_as_task("build", {"target": "docs"})
        assert (await handle.result()).text == "built docs"
    assert [(p.progress, p.total, p.message) for p in progress] == [(1, 2, "compiling")]
    assert [(entry.level, entry.data) for entry in logs] == [("info", "compiled docs")]


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_tasks_question_is_answered_by_the_elicit_callback(protocol: str) -> None:
    app, _ = make_app()
    asked: list[str] = []

    def elicit(question: Elicitation) -> ElicitResult:
        asked.append(question.message)
        return ElicitResult("accept", {"name": "Luca"})

    async with memory(app, protocol, elicit=elicit) as client:
        handle = await client.call_tool_as_task("hello")
        assert (await handle.result()).text == "Hello, Luca!"
    assert asked == ["Your name?"]


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_tool_error_in_a_task_is_a_result_with_is_error(protocol: str) -> None:
    app, _ = make_app()
    async with memory(app, protocol) as client:
        handle = await client.call_tool_as_task("failing_job")
        result = await handle.result()
    assert (result.is_error, result.text) == (True, "no such file")


@pytest.mark.parametrize("protocol", ERAS)
async def test_cancel_reaches_the_tool_and_the_task_ends_cancelled(protocol: str) -> None:
    app, gates = make_app()
    async with memory(app, protocol) as client:
        handle = await client.call_tool_as_task("forever")
        await gates["started"].wait()
        await handle.cancel()
        with anyio.fail_after(5):
            await gates["cancelled"].wait()
        state = await handle.wait()
        assert state is not None and state.status == "cancelled"
        with pytest.raises(TaskCancelled):
            await handle.result()


@pytest.mark.parametrize("protocol", ERAS)
async def test_reattach_by_id_after_the_first_client_closed(protocol: str) -> None:
    app, gates = make_app()
    ada = Principal("ada")
    async with memory(app, protocol, principal=ada) as first:
        handle = await first.call_tool_as_task("held")
        task_id = handle.id
        await gates["started"].wait()
    assert isinstance(task_id, str)
    async with memory(app, protocol, principal=ada) as second:
        again = await second.task(task_id)
        assert again.status == "working"
        gates["release"].set()
        assert (await again.result()).text == "released"


@pytest.mark.parametrize("protocol", ERAS)
async def test_another_principal_gets_task_not_found(protocol: str) -> None:
    app, gates = make_app()
    async with memory(app, protocol, principal=Principal("ada")) as first:
        handle = await first.call_tool_as_task("held")
        assert handle.id is not None
        async with memory(app, protocol, principal=Principal("eve")) as other:
            with pytest.raises(TaskNotFound):
                await other.task(handle.id)
            with pytest.raises(TaskNotFound):
                await other.task("no-such-task")
        gates["release"].set()
        await handle.result()


@pytest.mark.parametrize("protocol", ["2025-06-18", CORE, EXT])
async def test_a_plain_tool_called_as_a_task_is_answered_at_once(protocol: str) -> None:
    app, _ = make_app()

    @app.tool
    def add(a: int, b: int) -> int:
        return a + b

    async with memory(app, protocol) as client:
        handle = await client.call_tool_as_task("add", {"a": 2, "b": 3})
        assert (handle.id, handle.status, (await handle.result()).data) == (None, "completed", 5)


@pytest.mark.parametrize("protocol", ERAS)
def test_run_task_gives_the_statuses_and_the_result(protocol: str) -> None:
    app, _ = make_app()
    run = run_task(app, "build", protocol=protocol, target="docs")
    assert (run.statuses, run.result and run.result.text, run.error) == (
        ["working", "completed"],
        "built docs",
        None,
    )
    assert isinstance(run.task_id, str)


def test_run_task_with_cancel_shows_the_cancel() -> None:
    app, _ = make_app()
    run = run_task(app, "forever", cancel=True)
    assert (run.statuses, run.result, type(run.error)) == (
        ["working", "cancelled"],
        None,
        TaskCancelled,
    )


async def test_ext_a_call_that_ends_within_the_servers_budget_is_answered_inline() -> None:
    app = Server("inline")  # the default Tasks(): a call becomes a task after 0.5 s

    @app.tool(task="optional")
    def quick_build(target: str) -> str:
        return f"built {target}"

    async with memory(app, EXT) as client:
        handle = await client.call_tool_as_task("quick_build", {"target": "docs"})
        assert (handle.id, handle.status, (await handle.result()).text) == (
            None,
            "completed",
            "built docs",
        )


@pytest.mark.parametrize("protocol", ERAS)
async def test_an_expired_task_is_task_not_found(protocol: str) -> None:
    now = [1_000_000.0]
    app = Server("expiring", tasks=Tasks(budget=0, ttl_ms=60_000, clock=lambda: now[0]))
    release = anyio.Event()

    @app.tool(task="required")
    async def held() -> str:
        await release.wait()
        return "released"

    async with memory(app, protocol) as client:
        handle = await client.call_tool_as_task("held", ttl=30)
        assert handle.state is not None
        # 2025-11-25 asks for 30 s and gets it; 2026-07-28 cannot ask: the server's 60 s
        assert handle.state.ttl_ms == {CORE: 30_000, EXT: 60_000}[protocol]
        assert handle.id is not None
        now[0] += 61
        with pytest.raises(TaskNotFound):
            await client.task(handle.id)
        release.set()


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_tasks_sampling_is_answered_by_the_sample_callback(protocol: str) -> None:
    app = Server("sampling", tasks=Tasks(budget=0))

    @app.tool(task="optional")
    async def summarize(text: str, ctx: Context) -> str:
        answer = await ctx.sample(f"Summarize: {text}", max_tokens=20)
        return f"summary: {answer.text}"

    prompts: list[str] = []

    def sample(request: SamplingRequest) -> str:
        prompts.append(request.messages[0].text)
        return "short"

    async with memory(app, protocol, sample=sample) as client:
        handle = await client.call_tool_as_task("summarize", {"text": "a long story"})
        assert handle.id is not None
        assert (await handle.result()).text == "summary: short"
    assert prompts == ["Summarize: a long story"]
