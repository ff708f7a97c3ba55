"""`plainmcp call --task` and `plainmcp task`: a tool run as a task, its status lines and
progress on stderr, its result on stdout, detached and reattached by id; through real stdio
and HTTP. Output is exact, with the task's (random) id read from what the command printed."""

from __future__ import annotations

import subprocess
import sys

import pytest


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
