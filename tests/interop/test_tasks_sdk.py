"""Clients nobody here wrote running tasks on plainmcp over Streamable HTTP, as far as each
supports them (docs/hosts.md, "Tasks in the SDK clients"):

- the official Python SDK client (PyPI `mcp` 2.3.0): no tasks of its own. Its call_tool has no
  `task`; at 2025-11-25 its session refuses the CreateTaskResult a `task` call gets even sent
  raw (every tools/call result is validated as a CallToolResult); at 2026-07-28 its extensions
  framework (ClientExtension, ResultClaim) lets an application add the tasks extension, and
  then call_tool runs a task through tasks/get to its result;
- the TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0): no tasks of its own either
  (callTool and request() refuse a tools/call result carrying `task`, and a tasks/get at
  2026-07-28 before sending it), but the official
  @modelcontextprotocol/ext-tasks 0.2.2 runs tasks on both eras through it (ts_tasks.mjs).

The server is tests/hosts/fixture_server.py:jobs: `report` (task="optional") becomes a task
wherever it can, `build` (task="required"). Each client's declared capabilities are read from
the server's side (its client log).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.types import (
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CreateTaskResult,
    TaskMetadata,
)
from mcp_types import Request, RequestParams, Result
from pydantic import ConfigDict, ValidationError

from plainmcp.hosts.profiles import PYTHON_SDK
from plainmcp.hosts.profiles.cells import Declared
from tests.hosts.fixture_server import BUILD_DONE, LOG_ENV, REPORT_AS_TASK, REPORT_IN_CALL
from tests.http_server import HttpServer, http_server
from tests.interop.tools import INTEROP_DIR, NODE_MODULES, ensure_ts_client, node22_bin

pytestmark = pytest.mark.anyio

JOBS = "tests/hosts/fixture_server.py:jobs"
TASKS = "io.modelcontextprotocol/tasks"
SERVER_META = {
    "io.modelcontextprotocol/serverInfo": {"name": "plainmcp-hosts-jobs", "version": "0.1.0"}
}
CORE_TASKS = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
"""The `tasks` capability plainmcp declares at 2025-11-25."""


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tasks-sdk") / "clients.jsonl"


@pytest.fixture(scope="module")
def jobs(log: Path) -> Iterator[HttpServer]:
    with http_server(JOBS, env={LOG_ENV: str(log)}) as server:
        yield server


def declared(log: Path, client: str, method: str) -> list[Any]:
    """The capabilities `client` declared with each of its `method` requests, in order."""
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    return [
        line.get("capabilities")
        for line in lines
        if line["clientInfo"].get("name") == client and line["method"] == method
    ]


def text(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if block.type == "text"]


# --- the Python SDK client: the extension an application writes for 2026-07-28 ------------------


class TaskCreated(Result):
    """A 2026-07-28 CreateTaskResult (flat, `resultType: "task"`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    poll_interval_ms: int | None = None


class TaskParams(RequestParams):
    task_id: str


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # SEP-2663: Mcp-Name is the task's id


class GotTask(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    result: dict[str, Any] | None = None


class TasksExtension(ClientExtension):
    """io.modelcontextprotocol/tasks through the SDK's extensions framework: a claim on the
    `task` result type whose resolver polls tasks/get at the server's interval to its end."""

    identifier = TASKS

    def __init__(self) -> None:
        self.polls: list[str] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskCreated, resolve=self.resolve)]

    async def resolve(self, created: TaskCreated, ctx: ClaimContext) -> CallToolResult:
        while True:
            got = await ctx.session.send_request(
                GetTask(params=TaskParams(task_id=created.task_id)), GotTask
            )
            self.polls.append(got.status)
            if got.status == "completed":
                return CallToolResult.model_validate(got.result)
            assert got.status == "working", got
            await anyio.sleep((created.poll_interval_ms or 1000) / 1000)


def info(name: str) -> Any:
    from mcp.types import Implementation

    return Implementation(name=name, version="0.0.1")


async def test_python_sdk_declares_what_its_profile_says(jobs: HttpServer, log: Path) -> None:
    async with Client(jobs.url, client_info=info("py-auto")) as client:  # mode "auto"
        version = client.protocol_version
        await client.call_tool("report", {})
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    first = next(line for line in lines if line["clientInfo"]["name"] == "py-auto")
    assert first["method"] == "server/discover"
    assert Declared.of(version, True, first["capabilities"]) == PYTHON_SDK.declared.value
    async with Client(jobs.url, mode="legacy", client_info=info("py-handshake")) as client:
        version = client.protocol_version
        capabilities = await client.call_tool("capabilities", {})
    assert isinstance(capabilities.structured_content, dict)
    found = Declared.of(version, False, capabilities.structured_content)
    assert found == PYTHON_SDK.declared_legacy.value


async def test_python_sdk_legacy_declares_no_tasks_and_gets_the_plain_result(
    jobs: HttpServer, log: Path
) -> None:
    async with Client(jobs.url, mode="legacy", client_info=info("py-legacy")) as client:
        assert (
            client.server_capabilities.model_dump(by_alias=True, exclude_none=True)["tasks"]
            == CORE_TASKS
        )
        result = await client.call_tool("report", {})
        capabilities = await client.call_tool("capabilities", {})
    assert (text(result), result.is_error) == ([REPORT_IN_CALL], False)
    assert capabilities.structured_content == {}


async def test_python_sdk_legacy_session_refuses_the_create_task_result(jobs: HttpServer) -> None:
    # mcp/client/session.py ClientSession.send_request validates every tools/call result as a
    # CallToolResult (mcp_types.methods.validate_server_result): a task's answer fails there.
    async with Client(jobs.url, mode="legacy", client_info=info("py-raw")) as client:
        request = CallToolRequest(
            params=CallToolRequestParams(name="report", arguments={}, task=TaskMetadata(ttl=60_000))
        )
        with pytest.raises(ValidationError) as refused:
            await client.session.send_request(request, CreateTaskResult)
    assert [(e["loc"], e["type"]) for e in refused.value.errors()] == [(("content",), "missing")]


async def test_python_sdk_2026_without_the_extension_gets_the_plain_result(
    jobs: HttpServer, log: Path
) -> None:
    async with Client(jobs.url, mode="2026-07-28", client_info=info("py-2026")) as client:
        result = await client.call_tool("report", {})
    assert (text(result), result.is_error, result.meta) == ([REPORT_IN_CALL], False, SERVER_META)
    assert declared(log, "py-2026", "tools/call") == [{}]


async def test_python_sdk_2026_runs_a_task_through_its_extensions_framework(
    jobs: HttpServer, log: Path
) -> None:
    tasks = TasksExtension()
    async with Client(
        jobs.url, mode="2026-07-28", client_info=info("py-tasks"), extensions=[tasks]
    ) as client:
        result = await client.call_tool("report", {})
    assert result.model_dump(by_alias=True, exclude_none=True) == {
        "_meta": SERVER_META,
        "content": [{"type": "text", "text": REPORT_AS_TASK}],
        "isError": False,
        "resultType": "complete",
    }
    assert tasks.polls and tasks.polls[-1] == "completed"
    assert set(tasks.polls[:-1]) <= {"working"}
    assert declared(log, "py-tasks", "tools/call") == [{"extensions": {TASKS: {}}}]
    assert declared(log, "py-tasks", "tasks/get") == [{"extensions": {TASKS: {}}}] * len(
        tasks.polls
    )


# --- the TypeScript SDK client and @modelcontextprotocol/ext-tasks -------------------------------

TS_TASKS = INTEROP_DIR / "ts_tasks.mjs"
EXT_TASKS = NODE_MODULES / "@modelcontextprotocol" / "ext-tasks" / "package.json"
EXT_TASKS_VERSION = "0.2.2"
"""Installed beside the client as a dependency of @modelcontextprotocol/inspector (the lockfile
pins it)."""


def run_ts_tasks(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """ts_tasks.mjs on `job`: its records by step (asserted to end with "done")."""
    ensure_ts_client()
    assert json.loads(EXT_TASKS.read_text())["version"] == EXT_TASKS_VERSION
    done = subprocess.run(
        [str(node22_bin()), str(TS_TASKS), json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=INTEROP_DIR,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"ts_tasks.mjs exited {done.returncode}:\n{done.stderr}"
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records and records[-1] == {"step": "done"}, done.stdout
    return {r["step"]: r for r in records}


REFUSED = {
    "name": "SdkError",
    "code": "INVALID_RESULT",
    "message": 'Invalid result for tools/call: [\n  {\n    "code": "custom",\n    "message":'
    " \"content is required when the body carries 'task' — another result family cannot"
    ' default into an empty tools/call success",\n    "path": []\n  }\n]',
}


def plain(*texts: str, **more: Any) -> dict[str, Any]:
    return {**more, "content": [{"type": "text", "text": t} for t in texts], "isError": False}


def test_typescript_client_legacy_refuses_a_task_and_ext_tasks_runs_one(
    jobs: HttpServer, log: Path
) -> None:
    steps = run_ts_tasks({"url": jobs.url, "mode": "legacy", "extTools": ["report", "build"]})
    assert steps["serverTasks"] == {
        "step": "serverTasks",
        "era": "legacy",
        "tasks": CORE_TASKS,
        "extension": None,
    }
    assert steps["plain"]["result"] == plain(REPORT_IN_CALL)
    assert steps["callToolTask"]["error"] == REFUSED
    assert steps["raw"]["error"] == REFUSED
    for name, done in (("report", REPORT_AS_TASK), ("build", BUILD_DONE)):
        record = steps[f"extTasks:{name}"]
        assert record["status"] == "completed"
        related = record["result"]["_meta"]["io.modelcontextprotocol/related-task"]
        assert record["result"] == plain(
            done, _meta={"io.modelcontextprotocol/related-task": related}
        )
    assert steps["capabilities"]["result"]["structuredContent"] == {}


def test_typescript_client_2026_ext_tasks_runs_a_task_with_the_hosts_raw_dispatch(
    jobs: HttpServer, log: Path
) -> None:
    steps = run_ts_tasks({"url": jobs.url, "mode": "2026-07-28", "extTools": ["report", "build"]})
    assert steps["serverTasks"] == {
        "step": "serverTasks",
        "era": "modern",
        "tasks": None,
        "extension": {},
    }
    assert steps["plain"]["result"] == plain(REPORT_IN_CALL, _meta=SERVER_META)
    assert steps["tasksGet"]["error"] == {
        "name": "SdkError",
        "code": "METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION",
        "message": "Method 'tasks/get' is not supported by the negotiated protocol version"
        " (wire era 2026-07-28)",
    }
    # report becomes a task at once; build ends within the server's budget: answered inline
    for name, done in (("report", REPORT_AS_TASK), ("build", BUILD_DONE)):
        assert steps[f"extTasks:{name}"] == {
            "step": f"extTasks:{name}",
            "status": "completed",
            "result": {"resultType": "complete", **plain(done, _meta=SERVER_META)},
        }
    calls = declared(log, "plainmcp-interop-ts-tasks-2026-07-28", "tools/call")
    assert calls[-3:] == [{}, {"extensions": {TASKS: {}}}, {"extensions": {TASKS: {}}}]
    assert set(
        map(json.dumps, declared(log, "plainmcp-interop-ts-tasks-2026-07-28", "tasks/get"))
    ) == {json.dumps({"extensions": {TASKS: {}}})}
