"""What each real host declares when it connects (its revision, server/discover or not, its
client capabilities: tasks, extensions, experimental, elicitation, sampling, roots) is exactly
what its host profile says (the `declared*` cells), read from the record of every message it
sent (declared.py); and what a tool declared to run as a task does for it.

Over stdio every message is read from the relay's record; over Streamable HTTP from the
server's client log and from its `capabilities` tool, which the model calls (what the server's
tools see the host declared). Exact both ways: a host update that starts declaring tasks, skills
or any extension, or stops declaring something, fails here until its profile says so. Each
headless run is one `jobs` server (fixture_server.py) whose model calls `report`
(task="optional": it becomes a task wherever it can) and `build` (task="required"): no host run
headless asks for tasks, so `report` answers each with its plain result. Claude Code's terminal
UI asks for the tasks extension, and runs `report` as a task: the model is told it moved to the
background, and gets its result in a task notification; from a server of 2025-11-25 it takes no
task.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from plainmcp.hosts.profiles import CLAUDE_CODE, CODEX_CLI, COPILOT_CLI, GEMINI_CLI, HostProfile
from plainmcp.hosts.profiles.cells import Declared
from tests.hosts import declared as d
from tests.hosts import needs
from tests.hosts.claude_code import ClaudeCode, run_claude
from tests.hosts.claude_code_tui import run_tui
from tests.hosts.codex_cli import CodexCli
from tests.hosts.copilot_cli import CopilotCli
from tests.hosts.drivers import Seen, Target
from tests.hosts.fixture_server import BUILD_DONE, LOG_ENV, REPORT_AS_TASK, REPORT_IN_CALL
from tests.hosts.gemini_cli import GeminiCli
from tests.hosts.scripts import ToolUse, sequence, text_of
from tests.http_server import http_server
from tests.mcp_schemas import validate_relay_record

JOBS = "tests/hosts/fixture_server.py:jobs"

HOSTS = {
    "claude-code": (ClaudeCode(), CLAUDE_CODE),
    "copilot-cli": (CopilotCli(), COPILOT_CLI),
    "gemini-cli": (GeminiCli(), GEMINI_CLI),
    "codex-cli": (CodexCli(), CODEX_CLI),
}
DISCOVERING = [key for key, (_, p) in HOSTS.items() if p.declared_legacy.value is not None]

BUILD_SEEN = {
    # 2026-07-28 without the extension: -32021, as each host hands it on
    "claude-code": ("Tool 'build' runs only as a task", True),
    "copilot-cli": ("McpError: MCP error -32021: Tool 'build' runs only as a task", False),
    # 2025-06-18 has no tasks: the tool runs as any other
    "gemini-cli": (BUILD_DONE, False),
    "codex-cli": (BUILD_DONE, False),
}
"""What the model is shown for the task="required" tool (its text, and whether the host flags
the call as failed)."""


@dataclass
class Run:
    key: str
    lines: list[str]
    """The relay's record."""
    seen: Seen


def run_jobs(key: str, record: Path, *, legacy: bool = False) -> Run:
    """One headless run through the relay whose model calls `report`, then `build`."""
    driver = HOSTS[key][0]
    needs.require(driver.problem())
    target = Target("fx", argv=d.relayed(record, "jobs", legacy=legacy))
    calls = [ToolUse(driver.tool_name("fx", t)) for t in ("report", "build")]
    seen = driver.run(target, sequence(*calls))
    return Run(key, record.read_text().splitlines(), seen)


@pytest.fixture(scope="module", params=list(HOSTS))
def host_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_jobs(request.param, tmp_path_factory.mktemp(request.param) / "record")


def profile_of(run: Run) -> HostProfile:
    return HOSTS[run.key][1]


def value(profile: HostProfile, cell: str) -> Declared:
    found = getattr(profile, cell).value
    assert isinstance(found, Declared), f"{profile.key}.{cell} is not known"
    return found


def test_what_a_host_declares_is_its_profile(host_run: Run) -> None:
    expected = value(profile_of(host_run), "declared")
    assert d.declared(host_run.lines) == expected
    if expected.discover:
        # every 2026-07-28 request carries the same capabilities in its _meta
        later = d.stateless_capabilities(host_run.lines)
        assert later and all(c == expected.object for c in later), later
    else:
        assert "server/discover" not in d.methods(host_run.lines)


def test_a_tool_that_may_run_as_a_task_answers_the_hosts_plain_call(host_run: Run) -> None:
    calls = [m for m in d.sent(host_run.lines) if m.get("method") == "tools/call"]
    assert [c["params"]["name"] for c in calls] == ["report", "build"]
    assert not any("task" in c["params"] for c in calls)
    assert text_of(host_run.seen.results[0]) == REPORT_IN_CALL
    assert host_run.seen.failed[0] is False
    seen = (text_of(host_run.seen.results[1]), host_run.seen.failed[1])
    assert seen == BUILD_SEEN[host_run.key]


def test_what_the_server_wrote_to_each_host_is_valid(host_run: Run, tmp_path: Path) -> None:
    saved = tmp_path / "record"
    saved.write_text("".join(line + "\n" for line in host_run.lines))
    revision = value(profile_of(host_run), "declared").revision
    # at least the handshake or discover, tools/list and the two calls
    assert validate_relay_record(saved, revision) >= 4


@pytest.mark.parametrize("key", list(HOSTS))
def test_what_a_host_declares_over_http_is_its_profile(key: str, tmp_path: Path) -> None:
    driver, profile = HOSTS[key]
    needs.require(driver.problem())
    expected = profile.declared_http.value or value(profile, "declared")
    log = tmp_path / "clients.jsonl"
    with http_server(JOBS, env={LOG_ENV: str(log)}) as server:
        calls = [ToolUse(driver.tool_name("fx", t)) for t in ("capabilities", "report")]
        seen = driver.run(Target("fx", url=server.url), sequence(*calls))
    first = json.loads(log.read_text().splitlines()[0])
    method = "server/discover" if expected.discover else "initialize"
    assert (first["method"], first["revision"]) == (method, expected.revision)
    assert first["capabilities"] == expected.object
    # what the server's tools see the host declared (ctx.client_capabilities), as the model got it
    assert json.loads(text_of(seen.results[0])) == expected.object
    assert text_of(seen.results[1]) == REPORT_IN_CALL


@pytest.mark.parametrize("key", DISCOVERING)
def test_a_host_refused_server_discover_falls_back_to_its_profiles_initialize(
    key: str, tmp_path: Path
) -> None:
    profile = HOSTS[key][1]
    run = run_jobs(key, tmp_path / "record", legacy=True)
    assert d.declared(run.lines) == value(profile, "declared")
    assert d.fallback(run.lines) == value(profile, "declared_legacy")
    assert text_of(run.seen.results[0]) == REPORT_IN_CALL


def test_no_host_driven_headless_asks_for_tasks_or_skills() -> None:
    for _, profile in HOSTS.values():
        for cell in ("declared", "declared_legacy"):
            found = getattr(profile, cell).value
            if found is not None:
                assert (found.tasks, found.skills) == (False, False), (profile.key, cell)


NOTIFICATION = re.compile(r"<task-notification>.*?</task-notification>", re.S)


def test_claude_codes_terminal_ui_runs_a_task_and_hands_its_model_the_result(
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.fifo"
    calls = [ToolUse("mcp__fx__report"), ToolUse("mcp__fx__build")]
    run = run_tui(d.relayed(record, "jobs"), record, calls, until=REPORT_AS_TASK)
    expected = value(CLAUDE_CODE, "declared_interactive")
    assert d.declared(run.record) == expected
    assert (expected.tasks, expected.skills) == (True, False)
    later = d.stateless_capabilities(run.record)
    assert later and all(c == expected.object for c in later), later
    # report became a task at once (the tool asked to), which Claude Code polled to its end;
    # build ended within the server's budget: answered inline, as a plain result
    replies = [json.loads(line[2:]) for line in run.record if line.startswith("S ")]
    created = [r["result"] for r in replies if r.get("result", {}).get("resultType") == "task"]
    assert [c["status"] for c in created] == ["working"]
    task = created[0]["taskId"]
    gets = [m for m in d.sent(run.record) if m.get("method") == "tasks/get"]
    assert gets and {m["params"]["taskId"] for m in gets} == {task}
    assert text_of(run.parts[1]) == BUILD_DONE
    # the model: first told the task moved to the background, then handed its result
    moved = text_of(run.parts[0])
    local = re.fullmatch(
        rf'MCP tool "fx/report" started server-side task {re.escape(task)}\. It was moved to the'
        r" background as task (\w+) and keeps running on the server; you'll receive a"
        r" notification with the result when it completes, and you can keep working in the"
        r' meantime\. To stop it, use TaskStop with task_id "\1"; the result arrives as a task'
        r" notification\.",
        moved,
    )
    assert local, moved
    found = NOTIFICATION.findall(json.dumps(run.heard["messages"], ensure_ascii=False))
    assert [json.loads(f'"{n}"') for n in found] == [
        f"<task-notification>\n<task-id>{local.group(1)}</task-id>\n<status>completed</status>\n"
        f"<summary>MCP task {task} (fx/report) completed.</summary>\n"
        f"<result>\n{REPORT_AS_TASK}\n</result>\n</task-notification>"
    ]


def test_claude_codes_terminal_ui_takes_no_task_from_a_2025_11_25_server(tmp_path: Path) -> None:
    # refused server/discover, it falls back to the same initialize as `claude -p`: no `tasks`
    # (Claude Code does not take 2025-11-25's core tasks), so the plain call answers
    record = tmp_path / "record.fifo"
    calls = [ToolUse("mcp__fx__report"), ToolUse("mcp__fx__build")]
    run = run_tui(d.relayed(record, "jobs", legacy=True), record, calls)
    assert d.declared(run.record) == value(CLAUDE_CODE, "declared_interactive")
    assert d.fallback(run.record) == value(CLAUDE_CODE, "declared_legacy")
    assert [text_of(parts) for parts in run.parts] == [
        REPORT_IN_CALL,
        "Tool 'build' runs only as a task: call it with params.task",
    ]


def test_claude_code_declares_the_apps_extension_only_when_asked_to(tmp_path: Path) -> None:
    needs.require(ClaudeCode().problem())
    record = tmp_path / "record"
    argv = d.relayed(record)
    entry = {"type": "stdio", "command": argv[0], "args": list(argv[1:])}
    run_claude(
        {"fx": entry},
        sequence(ToolUse("mcp__fx__both")),
        env={"CLAUDE_CODE_MCP_APPS_HOST": "1"},
    )
    apps = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
    plain = value(CLAUDE_CODE, "declared")
    assert d.declared(record) == Declared.of(
        plain.revision, plain.discover, {**plain.object, "extensions": apps}
    )
