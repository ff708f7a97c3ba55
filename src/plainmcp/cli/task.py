"""Tasks on the command line: `plainmcp call ... --task` runs a tool as a task (its status and
progress on stderr, its result on stdout as `call` prints it; `--detach` prints the task's id
and leaves it running), and `plainmcp task TARGET ID` reattaches to one by id (waits for its
result, or `--status`, or `--cancel`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from plainmcp.cli.connect import Target, connect_and_run, parse_headers

if TYPE_CHECKING:
    from plainmcp.cli.ask import TerminalAsker
    from plainmcp.cli.feedback import Feedback
    from plainmcp.client import CallToolResult, Client, ClientOptions, TaskHandle, TaskState


def task_options(feedback: Feedback, asker: TerminalAsker) -> ClientOptions:
    """The client options of a command running a task: the tasks extension declared (the
    2026-07-28 server decides by it), the task's progress and logs shown as `call` shows them,
    its questions asked on the terminal."""
    from plainmcp.client import TASKS_EXTENSION

    return {
        "elicit": asker,
        "extensions": {TASKS_EXTENSION: {}},
        "on_progress": feedback.on_progress,
        "on_log": feedback.on_log,
    }


def status_line(task_id: str, state: TaskState) -> str:
    """`task ID: status` and the server's status message, when it has one."""
    line = f"task {task_id}: {state.status}"
    return f"{line}: {state.status_message}" if state.status_message else line


def task_ended(exc: Exception) -> str | None:
    """What to say of a task that ended without a result (None: `exc` is no such end)."""
    from plainmcp.client import TaskCancelled, TaskFailed, TaskNotFound

    if isinstance(exc, TaskFailed):
        return f"the task failed: error {exc.code}: {exc.message}"
    if isinstance(exc, TaskCancelled | TaskNotFound):
        return exc.message
    return None


class TaskCall:
    """`call --task`: the call made as a task, followed to its result (or left, detached)."""

    def __init__(self, client: Client, args: argparse.Namespace, feedback: Feedback) -> None:
        self.client = client
        self.args = args
        self.feedback = feedback

    async def run(self, arguments: dict[str, Any]) -> CallToolResult | int:
        """The result, or the exit code once detached."""
        args = self.args
        handle = await self.client.call_tool_as_task(args.tool, arguments, ttl=args.ttl)
        if handle.id is None:
            self.feedback.say("plainmcp call: the server answered at once, without a task")
            return await handle.result()
        assert handle.state is not None
        self.feedback.say(status_line(handle.id, handle.state))
        if args.detach:
            again = reattach_command(args.target, handle.id)
            self.feedback.say(f"(detached: `{again}` waits for it, `{again} --cancel` ends it)")
            print(handle.id)
            return 0
        return await follow(handle, self.feedback)


def reattach_command(target: str, task_id: str) -> str:
    """The command that reattaches to a task; `--` before an id that would read as an option
    (another server's ids may start with `-`)."""
    separator = "-- " if task_id.startswith("-") else ""
    return f"plainmcp task {target} {separator}{task_id}"


async def follow(handle: TaskHandle, feedback: Feedback) -> CallToolResult:
    """Wait for a task, each status it moves through on stderr, and take its result."""
    task_id = handle.id
    assert task_id is not None
    await handle.wait(on_status=lambda state: feedback.say(status_line(task_id, state)))
    feedback.stop()
    return await handle.result()


def cmd_task(args: argparse.Namespace) -> int:
    """`plainmcp task TARGET ID`: a task started earlier, by id."""
    from plainmcp.cli.ask import TerminalAsker
    from plainmcp.cli.call import print_result
    from plainmcp.cli.feedback import Feedback
    from plainmcp.client import TaskCancelled, TaskFailed, TaskNotFound

    where = Target("task", args.target, args.protocol, parse_headers(args.header, args.bearer))
    asker = TerminalAsker()
    feedback = Feedback()

    async def body(client: Client) -> int:
        try:
            handle = await client.task(args.id)
        except TaskNotFound as exc:
            print(f"plainmcp task: {task_ended(exc)}", file=sys.stderr)
            return 1
        except ValueError as exc:
            print(f"plainmcp task: {exc}", file=sys.stderr)
            return 1
        assert handle.state is not None
        if args.status:
            print(status_line(args.id, handle.state))
            return 0
        if args.cancel:
            await handle.cancel()
            if not handle.done:  # 2026-07-28 acknowledges only: where is it now?
                await handle.refresh()
            assert handle.state is not None
            print(status_line(args.id, handle.state))
            return 0
        feedback.say(status_line(args.id, handle.state))
        try:
            result = await follow(handle, feedback)
        except (TaskCancelled, TaskFailed, TaskNotFound) as exc:
            print(f"plainmcp task: {task_ended(exc)}", file=sys.stderr)
            return 1
        return await print_result(client, result, args, "task", "result")

    with feedback:
        return connect_and_run(where, body, **task_options(feedback, asker))


def check_task_arguments(args: argparse.Namespace) -> None:
    """`call`'s task options that cannot be carried out, as usage errors before connecting."""
    from plainmcp.cli.connect import is_url
    from plainmcp.cli.usage import UsageError

    if (args.detach or args.ttl is not None) and not args.task:
        raise UsageError("--detach and --ttl go with --task")
    if args.detach and not is_url(args.target):
        raise UsageError(
            "--detach needs the URL of a running server: a server file is started by this"
            " command and ends with it, and its task with it"
        )


def add_task_arguments(p: argparse.ArgumentParser) -> None:
    """`call`'s task options."""
    p.add_argument(
        "--task",
        action="store_true",
        help="run the tool as a task (2025-11-25, 2026-07-28): its status on stderr as it"
        " changes; a server without tasks answers at once",
    )
    p.add_argument(
        "--ttl",
        metavar="SECONDS",
        type=float,
        help="with --task: how long the server should keep the task (2025-11-25 asks for it)",
    )
    p.add_argument(
        "--detach",
        action="store_true",
        help="with --task: print the task's id and exit 0, leaving it running"
        " (`plainmcp task TARGET ID` reattaches)",
    )
