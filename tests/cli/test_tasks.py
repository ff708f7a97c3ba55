"""`plainmcp call --task` and `plainmcp task`: a tool run as a task, its status lines and
progress on stderr, its result on stdout, detached and reattached by id; through real stdio
and HTTP. Output is exact, with the task's (random) id read from what the command printed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from plainmcp.cli.task import reattach_command
from tests.http_server import HttpServer, http_server


def plainmcp(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["call", "server.py", "build", "--detach"], "--detach and --ttl go with --task"),
        (["call", "server.py", "build", "--ttl", "5"], "--detach and --ttl go with --task"),
        (
            ["call", "server.py", "build", "--task", "--detach"],
            "--detach needs the URL of a running server: a server file is started by this"
            " command and ends with it, and its task with it",
        ),
    ],
)
def test_task_options_that_cannot_be_carried_out_exit_2(args: list[str], error: str) -> None:
    proc = plainmcp(*args)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"plainmcp call: {error}\n")


def test_task_status_and_cancel_exclude_each_other() -> None:
    proc = plainmcp("task", "http://127.0.0.1:9/mcp", "abc", "--status", "--cancel")
    assert proc.returncode == 2
    assert proc.stderr.endswith(
        "plainmcp task: error: argument --cancel: not allowed with argument --status\n"
    )


SERVER = str(Path(__file__).resolve().parents[1] / "client" / "servers" / "task_tools.py")
ERAS = ["2025-11-25", "2026-07-28"]


@pytest.fixture(scope="module")
def served() -> Iterator[HttpServer]:
    with http_server(SERVER) as server:
        yield server


def split(stderr: str, task_id: str) -> tuple[list[str], list[str]]:
    """stderr's status lines (the id as ID) and its other lines, each in order: the progress
    a server sends may come before or after the status line the call's answer gave."""
    lines = stderr.replace(task_id, "ID").splitlines()
    return [x for x in lines if x.startswith("task ID: ")], [
        x for x in lines if not x.startswith("task ID: ")
    ]


def task_id_in(stderr: str) -> str:
    first = stderr.split("task ", 1)[1]
    return first.split(":", 1)[0]


@pytest.mark.parametrize("target", ["file", "url"])
def test_call_task_shows_status_and_progress_then_prints_the_result(
    target: str, request: pytest.FixtureRequest
) -> None:
    where = SERVER if target == "file" else request.getfixturevalue("served").url
    proc = plainmcp("call", where, "build", "target=docs", "--task")
    assert (proc.returncode, proc.stdout) == (0, "built docs\n")
    statuses, others = split(proc.stderr, task_id_in(proc.stderr))
    assert statuses == ["task ID: working", "task ID: completed"]
    assert others == ["progress 1/2: compiling", "[info] compiled docs", "progress 2/2: linking"]


def test_call_task_at_2026_shows_the_progress_as_the_tasks_status() -> None:
    proc = plainmcp("call", SERVER, "build", "target=docs", "--task", "--protocol", "2026-07-28")
    assert (proc.returncode, proc.stdout) == (0, "built docs\n")
    statuses, others = split(proc.stderr, task_id_in(proc.stderr))
    assert (statuses[0], statuses[-1], others) == (
        "task ID: working",
        "task ID: completed: linking",
        [],
    )


def test_call_task_of_a_tool_without_tasks_is_answered_at_once() -> None:
    proc = plainmcp("call", SERVER, "add", "a=2", "b=3", "--task")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        "5\n",
        "plainmcp call: the server answered at once, without a task\n",
    )


@pytest.mark.parametrize("protocol", ERAS)
def test_detach_then_status_cancel_and_wait_by_id(served: HttpServer, protocol: str) -> None:
    url = served.url
    started = plainmcp("call", url, "forever", "--task", "--detach", "--protocol", protocol)
    task_id = started.stdout.strip()
    assert (started.returncode, started.stdout) == (0, f"{task_id}\n")
    again = f"plainmcp task {url} {task_id}"
    assert started.stderr == (
        f"task {task_id}: working\n(detached: `{again}` waits for it, `{again} --cancel` ends it)\n"
    )
    status = plainmcp("task", url, task_id, "--status", "--protocol", protocol)
    assert (status.returncode, status.stdout, status.stderr) == (
        0,
        f"task {task_id}: working\n",
        "",
    )
    cancel = plainmcp("task", url, task_id, "--cancel", "--protocol", protocol)
    assert (cancel.returncode, cancel.stdout, cancel.stderr) == (
        0,
        f"task {task_id}: cancelled: The task was cancelled.\n",
        "",
    )
    waited = plainmcp("task", url, task_id, "--protocol", protocol)
    assert (waited.returncode, waited.stdout, waited.stderr) == (
        1,
        "",
        f"task {task_id}: cancelled: The task was cancelled.\n"
        "plainmcp task: The task was cancelled.\n",
    )


def test_reattach_waits_for_the_result_and_prints_it(served: HttpServer) -> None:
    started = plainmcp("call", served.url, "build", "target=site", "--task", "--detach")
    task_id = started.stdout.strip()
    waited = plainmcp("task", served.url, task_id)
    assert (waited.returncode, waited.stdout) == (0, "built site\n")
    assert waited.stderr.replace(task_id, "ID").splitlines()[-1] == "task ID: completed"


def test_an_id_that_starts_with_a_dash_is_reattached_after_double_dash(
    served: HttpServer,
) -> None:
    assert reattach_command("URL", "-x1") == "plainmcp task URL -- -x1"
    assert reattach_command("URL", "x-1") == "plainmcp task URL x-1"
    proc = plainmcp("task", served.url, "--", "-x1")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1,
        "",
        "plainmcp task: No task '-x1': Failed to retrieve task: Task not found\n",
    )


def test_an_unknown_task_id_exits_1_saying_so(served: HttpServer) -> None:
    proc = plainmcp("task", served.url, "nope")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1,
        "",
        "plainmcp task: No task 'nope': Failed to retrieve task: Task not found\n",
    )


EVERYTHING = str(Path(__file__).resolve().parents[2] / "examples" / "everything_server.py")


@pytest.mark.parametrize("protocol", ERAS)
def test_a_failed_task_exits_1_with_its_protocol_error(protocol: str) -> None:
    proc = plainmcp("call", EVERYTHING, "protocol_error_job", "--task", "--protocol", protocol)
    assert (proc.returncode, proc.stdout) == (1, "")
    task_id = task_id_in(proc.stderr)
    lines = proc.stderr.replace(task_id, "ID").splitlines()
    needs = "protocol_error_job needs the client capability com.example/never"
    assert (lines[0], lines[-2], lines[-1]) == (
        "task ID: working",
        f"task ID: failed: {needs}",
        f"plainmcp call: the task failed: error -32021: {needs}",
    )
