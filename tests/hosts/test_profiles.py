"""The host table (hosts.profiles): choosing a row by clientInfo.name, every cell sourced, and
docs/hosts.md generated from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from plainmcp.hosts.page import hosts_markdown
from plainmcp.hosts.profiles import (
    CLAUDE_CODE,
    GENERIC,
    PROFILES,
    SDK_DEFAULT,
    HostProfile,
    known,
    profile_for,
)
from plainmcp.hosts.profiles.cells import Declared
from tests.hosts.comparison import head_of

DOCS = Path(__file__).resolve().parents[2] / "docs" / "hosts.md"
CELLS = (
    "reads",
    "error_blocks",
    "images",
    "audio",
    "embedded",
    "links",
    "limit",
    "limit_raise",
    "max_result_size_meta",
    "reads_resources",
    "text_join",
    "error_marked",
    "limit_unit",
    "json_text_parsed",
    "declared",
    "declared_http",
    "declared_legacy",
    "declared_interactive",
)


def test_docs_hosts_md_is_generated_from_the_table() -> None:
    # The page's part before the comparison's marker line (tests/hosts/comparison.py).
    assert head_of(DOCS.read_text(encoding="utf-8")) == hosts_markdown(), (
        "docs/hosts.md is stale: python -m tests.hosts.comparison"
    )


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("claude-code", "claude-code"),
        ("Claude-Code", "claude-code"),
        ("claude-ai", "claude-desktop"),
        ("cursor-vscode", "cursor"),
        ("Visual Studio Code", "vscode"),
        ("Visual Studio Code - Insiders", "vscode"),
        ("copilot-cli", "copilot-cli"),
        ("github-copilot-developer", "copilot-cli"),
        ("codex-mcp-client", "codex-cli"),
        ("mcp", "mcp"),
        ("fastmcp", "fastmcp"),
        ("opencode", "opencode"),
        ("kilo", "kilo-cli"),
        ("continue-cli-client", "continue-cli"),
        # Qwen Code adds the server's name from its config to its own.
        ("qwen-cli-mcp-client-mx", "qwen-code"),
        ("QWEN-CLI-MCP-CLIENT-my server", "qwen-code"),
        ("qwen-cli-mcp-client", "generic"),
        ("plainmcp", "generic"),
        ("", "generic"),
    ],
)
def test_a_profile_is_chosen_by_the_client_name(name: str, key: str) -> None:
    assert profile_for({"name": name, "version": "1"}).key == key
    assert profile_for({"name": name}).key == key  # the second look is the remembered one


@pytest.mark.parametrize("info", [{}, {"name": None}, {"name": 7}, {"name": ["claude-code"]}])
def test_a_missing_or_odd_name_gets_the_generic_profile(info: dict[str, object]) -> None:
    assert profile_for(info) is GENERIC


def test_keys_and_names_are_unique_and_generic_is_last() -> None:
    keys = [p.key for p in PROFILES]
    names = [n.lower() for p in PROFILES for n in p.client_names]
    assert len(set(keys)) == len(keys)
    assert len(set(names)) == len(names)
    assert PROFILES[-1] is GENERIC and GENERIC.client_names == ()


def test_the_rows_the_issue_asks_for_are_there() -> None:
    keys = {p.key for p in PROFILES}
    assert {
        "claude-code",
        "claude-desktop",
        "cursor",
        "vscode",
        "openai-agents",
        "pydantic-ai",
        "langchain-mcp-adapters",
        "python-sdk",
        "fastmcp-client",
        "generic",
    } <= keys


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.key)
def test_every_cell_names_its_source(profile: HostProfile) -> None:
    for cell in CELLS:
        value = getattr(profile, cell)
        assert value.source, f"{profile.key}.{cell} has no source"
        assert (value.value is None) or value.source != "unknown", f"{profile.key}.{cell}"


def test_unknown_cells_take_the_generic_value() -> None:
    assert CLAUDE_CODE.limit.value == 50_000
    assert known(CLAUDE_CODE, "limit") == 50_000
    assert SDK_DEFAULT.links.value is None
    assert known(SDK_DEFAULT, "links") == "shown"
    assert known(GENERIC, "limit") is None


def test_the_generated_page_cites_each_cell() -> None:
    page = hosts_markdown()
    assert (
        "| With both content and structuredContent, the model gets | structured |"
        " tests/hosts/test_claude_code.py (2.1.328, driven here);"
        " anthropics/claude-code#54450, #55677, #79944 |"
    ) in page
    assert "| Inline limit | 50,000 |" in page
    assert "| Counted in | bytes | tests/hosts/test_codex_cli.py" in page
    assert page.count("\n## ") == len(PROFILES) + 1  # and the SDK clients' tasks


def test_a_declared_cell_is_the_capabilities_object_whatever_its_key_order() -> None:
    one = Declared.of("2026-07-28", True, {"roots": {"listChanged": True}, "elicitation": {}})
    other = Declared.of("2026-07-28", True, {"elicitation": {}, "roots": {"listChanged": True}})
    assert one == other and hash(one) == hash(other)
    assert one.capabilities == '{"elicitation":{},"roots":{"listChanged":true}}'
    assert one.object == {"roots": {"listChanged": True}, "elicitation": {}}
    assert (one.tasks, one.skills, one.extensions) == (False, False, ())


@pytest.mark.parametrize(
    ("capabilities", "tasks", "skills"),
    [
        ({"tasks": {"requests": {"elicitation": {"create": {}}}}}, True, False),
        ({"extensions": {"io.modelcontextprotocol/tasks": {}}}, True, False),
        ({"extensions": {"io.modelcontextprotocol/skills": {}}}, False, True),
        ({"extensions": {"io.modelcontextprotocol/ui": {}}}, False, False),
        ({"experimental": {"tasks": {}}}, False, False),
    ],
)
def test_tasks_and_skills_are_read_from_the_capability_or_the_extension(
    capabilities: dict[str, object], tasks: bool, skills: bool
) -> None:
    declared = Declared.of("2025-11-25", False, capabilities)
    assert (declared.tasks, declared.skills) == (tasks, skills)


def test_the_generated_page_says_what_claude_code_declares() -> None:
    assert (
        "| Declares in its terminal UI | 2026-07-28 by server/discover; tasks yes, skills no;"
        ' capabilities `{"elicitation":{"form":{},"url":{}},'
        '"extensions":{"io.modelcontextprotocol/tasks":{}},"roots":{"listChanged":true}}` |'
    ) in hosts_markdown()
