"""`plainmcp install` checked by the real hosts: Claude Code and Gemini CLI start (or connect to)
what it configured and report it connected; Codex CLI, which lists without connecting, reads
back exactly the entry written. Every run has a throwaway HOME; the hosts are the pinned ones
scripts/setup installs in tests/hosts/node_modules (skipped locally without them, failed in CI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.hosts import needs
from tests.hosts.claude_code import FIXTURE, HOSTS_DIR, claude_problem
from tests.http_server import http_server

BIN = HOSTS_DIR / "node_modules" / ".bin"
VERSIONS = {"gemini": "0.61.0", "codex": "codex-cli 0.169.0"}
TARGET = f"{FIXTURE}:demo"
NAME = "plainmcp-demo"  # the demo Server's own name, the default --name
SERVED = f"{sys.executable} -m plainmcp run {TARGET}"


def host_problem(binary: str) -> str | None:
    """Why the pinned `binary` cannot be run here, or None."""
    if binary == "claude":
        return claude_problem()
    path = BIN / binary
    if not path.exists():
        return f"{binary} is not installed in {BIN} (run scripts/setup)"
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=60, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{path} does not run: {exc}"
    if out != VERSIONS[binary]:
        return f"{path} is {out!r}, expected {VERSIONS[binary]!r} (re-run scripts/setup)"
    return None


@dataclass
class Machine:
    """A throwaway HOME and project folder, with the hosts' CLIs first on PATH."""

    home: Path
    project: Path
    trust_gemini: bool = True
    """GEMINI_CLI_TRUST_WORKSPACE=true: Gemini CLI trusts every folder (else it asks)."""

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANTHROPIC_", "CLAUDE", "MCP_", "OTEL_", "GEMINI_", "CODEX_"))
        }
        path = os.pathsep.join([str(BIN), str(Path(sys.executable).parent), os.defpath])
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            PATH=path,
            DISABLE_AUTOUPDATER="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        if self.trust_gemini:
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        return env

    def run(self, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(command),
            cwd=self.project,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def plainmcp(self, *args: str) -> str:
        proc = self.run(sys.executable, "-m", "plainmcp", *args)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def host(self, binary: str, *args: str, stream: str = "stdout") -> str:
        proc = self.run(str(BIN / binary), *args)
        assert proc.returncode == 0, (
            f"{binary} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
        )
        out: str = getattr(proc, stream)
        return out


@pytest.fixture
def machine(tmp_path: Path) -> Iterator[Machine]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    yield Machine(home, project)


@pytest.fixture
def web() -> Iterator[str]:
    with http_server(TARGET) as server:
        yield server.url


def require(binary: str) -> None:
    needs.require(host_problem(binary))


# --- Claude Code -------------------------------------------------------------------------------


def test_claude_code_connects_to_the_stdio_server_it_was_given(machine: Machine) -> None:
    require("claude")
    out = machine.plainmcp("install", "claude-code", TARGET)
    state = machine.home / ".claude.json"
    assert out == (
        f"Claude Code (local scope): added {NAME} in {state} (through claude mcp add-json)\n"
    )
    listed = machine.host("claude", "mcp", "list")
    assert f"{NAME}: {SERVED} - ✔ Connected" in listed.splitlines()
    saved = json.loads(state.read_text())["projects"][machine.project.as_posix()]["mcpServers"]
    assert saved == {
        NAME: {
            "type": "stdio",
            "command": sys.executable,
            "args": ["-m", "plainmcp", "run", TARGET],
        }
    }


def test_claude_code_connects_to_the_http_server_it_was_given(machine: Machine, web: str) -> None:
    require("claude")
    machine.plainmcp("install", "claude-code", web, "--name", "web", "--scope", "user")
    listed = machine.host("claude", "mcp", "list").splitlines()
    assert f"web: {web} (HTTP) - ✔ Connected" in listed


def test_claude_code_force_and_uninstall_go_through_claude(machine: Machine) -> None:
    require("claude")
    machine.plainmcp("install", "claude-code", TARGET, "--scope", "user")
    again = machine.run(
        sys.executable, "-m", "plainmcp", "install", "claude-code", TARGET, "--scope", "user"
    )
    assert again.returncode == 2
    assert "already has a server named 'plainmcp-demo': --force replaces it" in again.stderr
    machine.plainmcp("install", "claude-code", TARGET, "--scope", "user", "--force", "--env", "A=1")
    saved = json.loads((machine.home / ".claude.json").read_text())["mcpServers"][NAME]
    assert saved["env"] == {"A": "1"}
    assert f"{NAME}: {SERVED} - ✔ Connected" in machine.host("claude", "mcp", "list").splitlines()
    machine.plainmcp("uninstall", "claude-code", NAME, "--scope", "user")
    assert NAME not in json.loads((machine.home / ".claude.json").read_text())["mcpServers"]
    assert NAME not in machine.host("claude", "mcp", "list")


def test_claude_code_reads_the_project_file_and_asks_before_using_it(machine: Machine) -> None:
    require("claude")
    out = machine.plainmcp("install", "claude-code", TARGET, "--scope", "project")
    assert out.splitlines()[1] == (
        "next: Claude Code asks before it starts a server from .mcp.json: run `claude` in"
        f" {machine.project} and approve {NAME} when it asks (until then `claude mcp list`"
        " shows it as pending approval)"
    )
    assert (machine.project / ".mcp.json").stat().st_mode & 0o777 == 0o644  # as claude's own
    assert json.loads((machine.project / ".mcp.json").read_text()) == {
        "mcpServers": {
            NAME: {
                "type": "stdio",
                "command": sys.executable,
                "args": ["-m", "plainmcp", "run", TARGET],
            }
        }
    }
    listed = machine.host("claude", "mcp", "list").splitlines()
    assert f"{NAME}: {SERVED} - ⏸ Pending approval (run `claude` to approve)" in listed


# --- Gemini CLI --------------------------------------------------------------------------------


def test_gemini_cli_connects_to_both_servers_and_keeps_the_comments(
    machine: Machine, web: str
) -> None:
    require("gemini")
    settings = machine.home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('// my settings\n{\n  "ui": {"theme": "GitHub"}\n}\n')
    machine.plainmcp("install", "gemini-cli", TARGET)
    machine.plainmcp("install", "gemini-cli", web, "--name", "web")
    assert settings.read_text().startswith('// my settings\n{\n  "ui": {"theme": "GitHub"},\n')
    listed = machine.host("gemini", "mcp", "list", stream="stderr").splitlines()  # its stderr
    assert f"✓ {NAME}: {SERVED} (stdio) - Connected" in listed
    assert f"✓ web: {web} (http) - Connected" in listed


def test_gemini_cli_starts_a_project_server_once_the_folder_is_trusted(machine: Machine) -> None:
    """Without GEMINI_CLI_TRUST_WORKSPACE, as a user runs it: the step install names, done as
    answering "1. Trust folder" does it (interactively: checked by hand in tmux), connects."""
    require("gemini")
    machine.trust_gemini = False
    out = machine.plainmcp("install", "gemini-cli", TARGET, "--scope", "project")
    assert out.splitlines()[1] == (
        "next: Gemini CLI starts MCP servers only in a folder it trusts (until then `gemini mcp"
        f" list` shows them as disabled): run `gemini` in {machine.project} and answer 1. Trust"
        " folder when it asks whether you trust the files there"
    )
    listed = machine.host("gemini", "mcp", "list", stream="stderr").splitlines()
    assert f"○ {NAME}: {SERVED} (stdio) - Disabled" in listed
    trusted = machine.home / ".gemini" / "trustedFolders.json"
    trusted.write_text(json.dumps({str(machine.project): "TRUST_FOLDER"}))
    listed = machine.host("gemini", "mcp", "list", stream="stderr").splitlines()
    assert f"✓ {NAME}: {SERVED} (stdio) - Connected" in listed


# --- Codex CLI ---------------------------------------------------------------------------------


def test_codex_cli_reads_a_project_file_once_the_project_is_trusted(machine: Machine) -> None:
    require("codex")
    out = machine.plainmcp("install", "codex-cli", TARGET, "--scope", "project")
    project_file = machine.project / ".codex" / "config.toml"
    user_file = machine.home / ".codex" / "config.toml"
    assert out.splitlines() == [
        f"Codex CLI (project scope): added {NAME} in {project_file}",
        f"next: Codex CLI reads {project_file} only in a project it trusts (until then `codex"
        f' mcp list` shows none of its servers): add [projects."{machine.project}"] with'
        f' trust_level = "trusted" to {user_file}, or, in a git repository, run `codex` in'
        f" {machine.project} and answer 1. Trust and continue when it asks",
    ]
    assert json.loads(machine.host("codex", "mcp", "list", "--json")) == []
    user_file.parent.mkdir()
    user_file.write_text(
        f'[projects.{json.dumps(str(machine.project))}]\ntrust_level = "trusted"\n'
    )
    listed = json.loads(machine.host("codex", "mcp", "list", "--json"))
    assert [(s["name"], s["transport"]["args"]) for s in listed] == [
        (NAME, ["-m", "plainmcp", "run", TARGET])
    ]


def test_codex_cli_lists_the_entries_written(machine: Machine) -> None:
    require("codex")
    machine.plainmcp("install", "codex-cli", TARGET, "--env", "A=1")
    machine.plainmcp("install", "codex-cli", "http://127.0.0.1:8000/mcp", "--name", "web")
    listed = {s["name"]: s for s in json.loads(machine.host("codex", "mcp", "list", "--json"))}
    assert listed[NAME]["transport"] == {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-m", "plainmcp", "run", TARGET],
        "env": {"A": "1"},
        "env_vars": [],
        "cwd": None,
    }
    assert listed["web"]["transport"]["type"] == "streamable_http"
    assert listed["web"]["transport"]["url"] == "http://127.0.0.1:8000/mcp"
    assert [s["enabled"] for s in listed.values()] == [True, True]
    machine.plainmcp("uninstall", "codex-cli", "web")
    assert [s["name"] for s in json.loads(machine.host("codex", "mcp", "list", "--json"))] == [NAME]
