"""Who openai-agents and LangChain's MCP adapters say they are, at which revision, and how many
sessions LangChain opens per call, read from the server side (fixture_server.py's client log):
what the profile rows "mcp" and "langchain-mcp-adapters" (src/plainmcp/hosts/profiles.py) rest
on. What each hands its model is the host matrix's (test_matrix.py, test_anchors.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import cast

import pytest

from tests.hosts import needs
from tests.hosts.claude_code import serve
from tests.hosts.drivers import Driver, Target
from tests.hosts.fixture_server import LOG_ENV
from tests.hosts.langchain_agent import LangChain, Mode
from tests.hosts.openai_agents_agent import OpenAiAgents
from tests.hosts.scripts import ToolUse, sequence
from tests.hosts.test_claude_code import client_log

SDK_DEFAULT = {"name": "mcp", "version": "0.1.0"}
"""The Python SDK's ClientSession's default clientInfo (mcp 2.3.0 and 1.30.0 alike)."""

ADDS = [ToolUse("add", {"a": 1, "b": 2}), ToolUse("add", {"a": 3, "b": 4})]


def logged_run(driver: Driver, tmp_path: Path) -> list[dict[str, object]]:
    """Two calls of the demo's `add`; every request the server saw, in order."""
    needs.require(driver.problem())
    log = tmp_path / "client.jsonl"
    target = Target("fx", argv=(sys.executable, *serve("demo")), env=((LOG_ENV, str(log)),))
    seen = driver.run(target, sequence(*ADDS))
    assert [[p.text for p in parts] for parts in seen.results] == [["3"], ["7"]]
    return client_log(log)


def test_openai_agents_sends_the_sdk_default_name_at_2026_07_28(tmp_path: Path) -> None:
    entries = logged_run(OpenAiAgents(), tmp_path)
    assert {str(e["clientInfo"]) for e in entries} == {str(SDK_DEFAULT)}
    assert {e["revision"] for e in entries} == {"2026-07-28"}
    assert "initialize" not in [e["method"] for e in entries]


@pytest.mark.parametrize(("mode", "sessions"), [("session", 1), ("per-call", 3)])
def test_langchain_sends_the_sdk_default_name_at_2025_11_25(
    mode: str, sessions: int, tmp_path: Path
) -> None:
    """mcp 1.30.0 under the adapters: a 2025-11-25 handshake; get_tools() opens one session to
    list the tools and one more for each call (each over stdio a server process of its own)."""
    entries = logged_run(LangChain(cast(Mode, mode)), tmp_path)
    methods = [e["method"] for e in entries]
    assert methods.count("initialize") == sessions
    assert methods.count("tools/call") == len(ADDS)
    assert {str(e["clientInfo"]) for e in entries if e["method"] != "initialize"} == {
        str(SDK_DEFAULT)
    }
    assert {e["revision"] for e in entries} == {"2025-11-25"}
