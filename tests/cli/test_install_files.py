"""`plainmcp install` and the files it writes: the step a project scope needs before its host
uses the server, a URL named by the server itself, line ends and modes kept as the host would,
concurrent installs into one file, and a file nested too deep for the reader."""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp.cli import main
from plainmcp.cli.config_lock import lock_file, locked
from tests.http_server import http_server

SERVER = 'from plainmcp import Server\n\napp = Server("notes")\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A throwaway HOME, a project folder as the cwd with server.py, no host CLI on PATH and
    the usual umask (022)."""
    home, folder = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    folder.mkdir()
    (folder / "server.py").write_text(SERVER)
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.chdir(folder)
    old = os.umask(0o022)
    yield folder
    os.umask(old)


def home_of(project: Path) -> Path:
    return project.parent / "home"


# --- what a project scope needs first ----------------------------------------------------------


def test_a_project_scope_install_says_the_step_its_host_needs_first(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for host in ("claude-code", "codex-cli", "gemini-cli", "cursor", "vscode"):
        assert main(["install", host, "server.py", "--scope", "project"]) == 0
    codex = home_of(project) / ".codex" / "config.toml"
    assert capsys.readouterr().out.splitlines() == [
        f"Claude Code (project scope): added notes in {project / '.mcp.json'}",
        "next: Claude Code asks before it starts a server from .mcp.json: run `claude` in"
        f" {project} and approve notes when it asks (until then `claude mcp list` shows it as"
        " pending approval)",
        f"Codex CLI (project scope): added notes in {project / '.codex' / 'config.toml'}",
        f"next: Codex CLI reads {project / '.codex' / 'config.toml'} only in a project it trusts"
        f' (until then `codex mcp list` shows none of its servers): add [projects."{project}"]'
        f' with trust_level = "trusted" to {codex}, or, in a git repository, run `codex` in'
        f" {project} and answer 1. Trust and continue when it asks",
        f"Gemini CLI (project scope): added notes in {project / '.gemini' / 'settings.json'}",
        "next: Gemini CLI starts MCP servers only in a folder it trusts (until then `gemini mcp"
        f" list` shows them as disabled): run `gemini` in {project} and answer 1. Trust folder"
        " when it asks whether you trust the files there",
        f"Cursor (project scope): added notes in {project / '.cursor' / 'mcp.json'}",
        f"VS Code (project scope): added notes in {project / '.vscode' / 'mcp.json'}",
    ]


# --- a URL's name ------------------------------------------------------------------------------


def test_a_url_is_named_by_the_server_itself(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "web.py").write_text(
        'from plainmcp import Server\n\napp = Server("Sales notes.v2")\n'
    )
    with http_server(project / "web.py") as server:
        assert main(["install", "cursor", server.url, "--scope", "project"]) == 0
    config = project / ".cursor" / "mcp.json"
    out, err = capsys.readouterr()
    assert (out, err) == (f"Cursor (project scope): added Sales-notes-v2 in {config}\n", "")
    assert json.loads(config.read_text()) == {
        "mcpServers": {"Sales-notes-v2": {"type": "http", "url": server.url}}
    }


def test_an_unreachable_url_is_named_after_its_host_and_says_why(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as bound:  # bound, not listening: every connection is refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}/mcp"
        assert main(["install", "json", url]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"mcpServers": {"127-0-0-1": {"type": "http", "url": url}}}
    assert err == (
        f"plainmcp install: could not ask {url} for its name (ConnectionClosed: HTTP POST to"
        f" {url} failed: All connection attempts failed (code -32000)); named it 127-0-0-1"
        " after the URL's host (--name gives another)\n"
    )


# --- line ends and modes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "file", "before"),
    [
        (
            "cursor",
            ".cursor/mcp.json",
            '{\r\n  "mcpServers": {\r\n    "a": {"command": "x"}\r\n  }\r\n}\r\n',
        ),
        ("vscode", ".vscode/mcp.json", '// mine\r\n{\r\n  "servers": {}\r\n}\r\n'),
        ("codex-cli", ".codex/config.toml", '# mine\r\nmodel = "o3"\r\n'),
    ],
)
def test_a_crlf_file_comes_back_crlf(project: Path, host: str, file: str, before: str) -> None:
    config = project / file
    config.parent.mkdir()
    config.write_bytes(before.encode())
    assert main(["install", host, "server.py", "--scope", "project"]) == 0
    written = config.read_bytes().decode()
    assert written.count("\n") == written.count("\r\n") > before.count("\n")
    assert written.startswith(before.split("\r\n")[0] + "\r\n")
    assert main(["uninstall", host, "notes", "--scope", "project"]) == 0
    after = config.read_bytes().decode()
    assert after.count("\n") == after.count("\r\n")
    if host == "codex-cli":
        assert after == before


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_get_the_mode_their_host_gives_its_own(project: Path) -> None:
    home = home_of(project)
    for host, scope in [
        ("claude-code", "project"),
        ("claude-code", "user"),
        ("codex-cli", "user"),
        ("codex-cli", "project"),
        ("gemini-cli", "user"),
        ("cursor", "project"),
        ("vscode", "project"),
        ("claude-desktop", "user"),
    ]:
        assert main(["install", host, "server.py", "--scope", scope]) == 0
    desktop = "Library/Application Support" if sys.platform == "darwin" else ".config"
    assert {
        str(p.relative_to(project.parent)): oct(mode(p))
        for p in [
            project / ".mcp.json",
            home / ".claude.json",
            home / ".codex" / "config.toml",
            project / ".codex" / "config.toml",
            home / ".gemini" / "settings.json",
            project / ".cursor" / "mcp.json",
            project / ".vscode" / "mcp.json",
            home / desktop / "Claude" / "claude_desktop_config.json",
        ]
    } == {
        "project/.mcp.json": "0o644",  # as `claude mcp add --scope project` makes it
        "home/.claude.json": "0o600",  # as Claude Code makes its state file
        "home/.codex/config.toml": "0o600",  # as `codex mcp add` makes it
        "project/.codex/config.toml": "0o644",
        "home/.gemini/settings.json": "0o644",  # as `gemini mcp add` makes it
        "project/.cursor/mcp.json": "0o644",
        "project/.vscode/mcp.json": "0o644",
        f"home/{desktop}/Claude/claude_desktop_config.json": "0o644",
    }


def test_uninstall_from_no_file_makes_no_folder(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["uninstall", "cursor", "notes", "--scope", "project"]) == 2
    assert capsys.readouterr().err == (
        f"plainmcp uninstall: {project / '.cursor' / 'mcp.json'} has no server named 'notes'"
        " (project scope)\n"
    )
    assert not (project / ".cursor").exists()


def test_an_existing_file_keeps_its_mode(project: Path) -> None:
    config = project / ".mcp.json"
    config.write_text("{}\n")
    config.chmod(0o640)
    assert main(["install", "claude-code", "server.py", "--scope", "project"]) == 0
    assert mode(config) == 0o640
    assert list(json.loads(config.read_text())["mcpServers"]) == ["notes"]


# --- one file, many installs -------------------------------------------------------------------


def _install(start: Any, folder: str, index: int) -> None:
    os.chdir(folder)
    start.wait()
    code = main(["install", "cursor", "server.py", "--scope", "project", "--name", f"s{index}"])
    sys.exit(code)


def _count(start: Any, file: str, flock: bool) -> None:
    path = Path(file)
    start.wait()
    for _ in range(20):
        with locked(path, flock=flock):
            path.write_text(str(int(path.read_text()) + 1))


def all_at_once(target: Any, runs: list[tuple[Any, ...]]) -> list[int | None]:
    """`target(barrier, *args)` in one process per run, all released by one barrier once every
    process has started; their exit codes (forked where the OS can: a fresh interpreter each
    would take seconds on two cores)."""
    spawn = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    start = spawn.Barrier(len(runs))
    procs = [spawn.Process(target=target, args=(start, *args)) for args in runs]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    return [proc.exitcode for proc in procs]


def test_ten_concurrent_installs_into_one_file_all_land(project: Path) -> None:
    """Ten processes, started and waiting on one barrier, install into one file at once."""
    codes = all_at_once(_install, [(str(project), i) for i in range(10)])
    assert codes == [0] * 10
    servers = json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]
    assert sorted(servers, key=lambda n: int(n[1:])) == [f"s{i}" for i in range(10)]
    assert not lock_file(project / ".cursor" / "mcp.json").exists()


@pytest.mark.parametrize("flock", [True, False], ids=["flock", "lock-file"])
def test_the_lock_serializes_read_modify_write(tmp_path: Path, flock: bool) -> None:
    """Both ways of locking: fcntl.flock on POSIX, the O_EXCL lock file elsewhere."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    assert all_at_once(_count, [(str(counter), flock)] * 5) == [0] * 5
    assert counter.read_text() == "100"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter"]


def test_a_lock_file_left_behind_is_named_after_the_wait(tmp_path: Path) -> None:
    from plainmcp.cli.usage import UsageError

    config = tmp_path / "mcp.json"
    lock_file(config).write_text("")
    ticks = iter([0.0, 10.0, 31.0])
    with pytest.raises(UsageError) as held, locked(config, flock=False, clock=lambda: next(ticks)):
        pass
    assert str(held.value) == (
        f"{config} is being changed by another plainmcp install (its lock {lock_file(config)}"
        f" has been there over 30 s): try again, or remove {lock_file(config)} if no install is"
        " running"
    )


# --- a file nested too deep --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "file", "text", "reason"),
    [
        (
            "cursor",
            ".cursor/mcp.json",
            '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}\n",
            "1: objects and arrays are nested deeper than 100 levels here",
        ),
        (
            "codex-cli",
            ".codex/config.toml",
            "a = " + "[" * 50_000 + "]" * 50_000 + "\n",
            " arrays or inline tables are nested deeper than Python's TOML reader can follow",
        ),
    ],
)
def test_a_file_nested_50000_deep_is_refused_and_left_as_it_was(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    host: str,
    file: str,
    text: str,
    reason: str,
) -> None:
    config = project / file
    config.parent.mkdir()
    config.write_text(text)
    before = config.read_bytes()
    assert main(["install", host, "server.py", "--scope", "project"]) == 2
    assert capsys.readouterr().err == (
        f"plainmcp install: {config}:{reason}; fix the file first (it was left as it was)\n"
    )
    assert config.read_bytes() == before
