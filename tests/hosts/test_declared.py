"""What each real host declares when it connects (its revision, server/discover or not, its
client capabilities: tasks, extensions, experimental, elicitation, sampling, roots) is exactly
what its host profile says (the `declared*` cells), read from the record of every message it
sent (declared.py).

Exact both ways: a host update that starts declaring tasks, skills or any extension, or stops
declaring something, fails here until its profile says so. Each run makes one plain tool call,
so the capabilities every later 2026-07-28 request carries are checked too.
"""

from __future__ import annotations

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
from tests.hosts.drivers import Driver, Target
from tests.hosts.fixture_server import BOTH_TEXT
from tests.hosts.gemini_cli import GeminiCli
from tests.hosts.scripts import ToolUse, sequence, text_of

HOSTS = [
    pytest.param(ClaudeCode(), CLAUDE_CODE, id="claude-code"),
    pytest.param(CopilotCli(), COPILOT_CLI, id="copilot-cli"),
    pytest.param(GeminiCli(), GEMINI_CLI, id="gemini-cli"),
    pytest.param(CodexCli(), CODEX_CLI, id="codex-cli"),
]
DISCOVERING = [h for h in HOSTS if h.values[1].declared_legacy.value is not None]  # type: ignore[union-attr]


def run_once(driver: Driver, record: Path, *, legacy: bool = False) -> list[str]:
    """One headless run through the relay whose model calls `both` once; the record's lines."""
    needs.require(driver.problem())
    target = Target("fx", argv=d.relayed(record, legacy=legacy))
    seen = driver.run(target, sequence(ToolUse(driver.tool_name("fx", "both"))))
    assert BOTH_TEXT in text_of(seen.results[0])
    return record.read_text().splitlines()


def value(cell_profile: HostProfile, cell: str) -> Declared:
    found = getattr(cell_profile, cell).value
    assert isinstance(found, Declared), f"{cell_profile.key}.{cell} is not known"
    return found


@pytest.mark.parametrize(("driver", "profile"), HOSTS)
def test_what_a_host_declares_is_its_profile(
    driver: Driver, profile: HostProfile, tmp_path: Path
) -> None:
    lines = run_once(driver, tmp_path / "record")
    expected = value(profile, "declared")
    assert d.declared(lines) == expected
    if expected.discover:
        # every 2026-07-28 request carries the same capabilities in its _meta
        later = d.stateless_capabilities(lines)
        assert later and all(c == expected.object for c in later), later
    else:
        assert "server/discover" not in d.methods(lines)


@pytest.mark.parametrize(("driver", "profile"), DISCOVERING)
def test_a_host_refused_server_discover_falls_back_to_its_profiles_initialize(
    driver: Driver, profile: HostProfile, tmp_path: Path
) -> None:
    lines = run_once(driver, tmp_path / "record", legacy=True)
    assert d.declared(lines) == value(profile, "declared")
    assert d.fallback(lines) == value(profile, "declared_legacy")


def test_no_host_driven_headless_asks_for_tasks_or_skills() -> None:
    for param in HOSTS:
        profile = param.values[1]
        assert isinstance(profile, HostProfile)
        for cell in ("declared", "declared_legacy"):
            found = getattr(profile, cell).value
            if found is not None:
                assert (found.tasks, found.skills) == (False, False), (profile.key, cell)


def test_claude_codes_terminal_ui_declares_the_tasks_extension(tmp_path: Path) -> None:
    record = tmp_path / "record.fifo"
    run = run_tui(d.relayed(record), record, [ToolUse("mcp__fx__both")])
    expected = value(CLAUDE_CODE, "declared_interactive")
    assert d.declared(run.record) == expected
    assert (expected.tasks, expected.skills) == (True, False)
    later = d.stateless_capabilities(run.record)
    assert later and all(c == expected.object for c in later), later
    assert BOTH_TEXT in text_of(run.parts[0])


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
