"""`plainmcp install` and `uninstall` as a user runs them: the file each writes, what it keeps,
its refusals (exit 2, the file untouched), and the commands it writes starting from elsewhere."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import anyio
import pytest

from plainmcp.cli import main
from plainmcp.cli.install import parse_env_file, plainmcp_requirement
from plainmcp.cli.usage import UsageError
from plainmcp.client import Client

SERVER = """\
from plainmcp import Server

app = Server("notes")
print("imported")  # an import that prints must not reach the snippet on stdout


@app.tool
def add(a: int, b: int) -> int:
    return a + b
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME, a project folder as the cwd, and a PATH without host CLIs."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / "server.py").write_text(SERVER)
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.chdir(project)
    return home


def run(*args: str) -> int:
    return main(list(args))


def served(project: Path) -> list[str]:
    return ["-m", "plainmcp", "run", str(project / "server.py")]


def test_json_prints_the_snippet_only(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("install", "json", "server.py") == 0
    out, err = capsys.readouterr()
    project = Path.cwd()
    assert json.loads(out) == {
        "mcpServers": {"notes": {"command": sys.executable, "args": served(project)}}
    }
    assert err == "imported\n"


def test_cursor_user_scope_keeps_other_servers(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{\n  "mcpServers": {\n    "other": {"command": "x"}\n  }\n}\n')
    assert run("install", "cursor", "server.py", "--env", "A=1", "--name", "mine") == 0
    assert capsys.readouterr().out == f"Cursor (user scope): added mine in {config}\n"
    assert json.loads(config.read_text()) == {
        "mcpServers": {
            "other": {"command": "x"},
            "mine": {"command": sys.executable, "args": served(Path.cwd()), "env": {"A": "1"}},
        }
    }
    assert config.read_text().startswith('{\n  "mcpServers": {\n    "other": {"command": "x"},\n')


def test_an_entry_of_the_same_name_needs_force(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("install", "vscode", "server.py", "--scope", "project") == 0
    config = Path.cwd() / ".vscode" / "mcp.json"
    before = config.read_text()
    assert run("install", "vscode", "server.py", "--scope", "project", "--env", "A=1") == 2
    assert capsys.readouterr().err.endswith(
        f"plainmcp install: {config} already has a server named 'notes': --force replaces it,"
        " --name adds it under another name\n"
    )
    assert config.read_text() == before
    assert (
        run("install", "vscode", "server.py", "--scope", "project", "--force", "--env", "A=1") == 0
    )
    assert capsys.readouterr().out == f"VS Code (project scope): replaced notes in {config}\n"
    assert json.loads(config.read_text())["servers"]["notes"]["env"] == {"A": "1"}


def test_a_malformed_file_is_never_overwritten(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".gemini" / "settings.json"
    config.parent.mkdir()
    broken = '{\n  "theme": "dark",\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n'
    config.write_text(broken)
    assert run("install", "gemini-cli", "server.py") == 2
    assert capsys.readouterr().err == (
        "imported\n"
        f"plainmcp install: {config}:5: a comma before '}}' is not allowed here; fix the file"
        " first (it was left as it was)\n"
    )
    assert config.read_text() == broken


def test_claude_code_without_the_claude_command_edits_its_files(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Path.cwd()
    state = home / ".claude.json"
    state.write_text('{\n  "numStartups": 2\n}\n')
    assert run("install", "claude-code", "server.py") == 0
    assert run("install", "claude-code", "server.py", "--scope", "user", "--name", "u") == 0
    url = "http://127.0.0.1:8000/mcp"
    assert run("install", "claude-code", url, "--scope", "project", "--name", "web") == 0
    assert capsys.readouterr().out.splitlines()[:3] == [
        f"Claude Code (local scope): added notes in {state}",
        f"Claude Code (user scope): added u in {state}",
        f"Claude Code (project scope): added web in {project / '.mcp.json'}",
    ]
    entry = {"type": "stdio", "command": sys.executable, "args": served(project)}
    assert json.loads(state.read_text()) == {
        "numStartups": 2,
        "projects": {project.as_posix(): {"mcpServers": {"notes": entry}}},
        "mcpServers": {"u": entry},
    }
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"web": {"type": "http", "url": url}}
    }
    assert run("uninstall", "claude-code", "notes") == 0
    assert run("uninstall", "claude-code", "u", "--scope", "user") == 0
    assert json.loads(state.read_text()) == {
        "numStartups": 2,
        "projects": {project.as_posix(): {"mcpServers": {}}},
        "mcpServers": {},
    }


def test_codex_toml_with_env_file_and_uninstall(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "o3"\n')
    (Path.cwd() / ".env").write_text("# keys\nexport TOKEN='s3cret'\nMODE=fast\n")
    assert (
        run("install", "codex-cli", "server.py:app", "--env-file", ".env", "--env", "MODE=slow")
        == 0
    )
    assert config.read_text() == (
        '# mine\nmodel = "o3"\n\n[mcp_servers.notes]\n'
        f"command = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(['-m', 'plainmcp', 'run', str(Path.cwd() / 'server.py') + ':app'])}"
        "\n\n"
        '[mcp_servers.notes.env]\nTOKEN = "s3cret"\nMODE = "slow"\n'
    )
    assert run("uninstall", "codex-cli", "notes") == 0
    assert config.read_text() == '# mine\nmodel = "o3"\n'
    assert run("uninstall", "codex-cli", "notes") == 2
    assert capsys.readouterr().err.endswith(
        f"plainmcp uninstall: {config} has no server named 'notes' (user scope)\n"
    )


def test_config_writes_the_file_given(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "desktop.json"
    assert run("install", "claude-desktop", "server.py", "--config", str(target)) == 0
    assert json.loads(target.read_text()) == {
        "mcpServers": {"notes": {"command": sys.executable, "args": served(Path.cwd())}}
    }


def test_the_default_claude_desktop_file(home: Path) -> None:
    assert run("install", "claude-desktop", "server.py") == 0
    folder = "Library/Application Support" if sys.platform == "darwin" else ".config"
    written = home / folder / "Claude" / "claude_desktop_config.json"
    assert list(json.loads(written.read_text())["mcpServers"]) == ["notes"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["claude-desktop", "http://h/mcp"],
            "Claude Desktop adds remote servers under Settings → Connectors,"
            " not in its config file",
        ),
        (
            ["cursor", "http://h/mcp", "--env", "A=1"],
            "--env: for a server the host starts, not a URL",
        ),
        (["cursor", "server.py", "--header", "A: b"], "--header is for a remote server (a URL)"),
        (
            ["cursor", "server.py", "--scope", "local"],
            "Cursor has no local scope (it has user, project)",
        ),
        (["cursor", "missing.py"], "missing.py does not exist"),
        (["cursor", "server.py", "--env", "A"], "--env takes KEY=VALUE, not 'A'"),
        (
            ["cursor", "server.py", "--uv"],
            "--uv needs uv, which is not on PATH: install uv (https://docs.astral.sh/uv/) or drop"
            " --uv/--with",
        ),
        (
            ["json", "server.py", "--scope", "user"],
            "json prints the snippet: --scope, --config and --force are for hosts",
        ),
        (
            ["cursor", "server.py", "--python", "/nope/python"],
            "--python /nope/python is not an executable",
        ),
    ],
)
def test_refusals_exit_2_and_write_nothing(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert run("install", *args) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"plainmcp install: {message}"
    assert not (home / ".cursor").exists()


def test_python_without_plainmcp_is_refused(home: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare" / "bin" / "python"
    bare.parent.mkdir(parents=True)
    bare.write_text("#!/bin/sh\nexit 1\n")
    bare.chmod(bare.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(UsageError, match="cannot import plainmcp: install it there"):
        from plainmcp.cli.install import _python

        _python(str(bare))


def test_uv_runs_plainmcp_with_the_packages_asked_for(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uv = tmp_path / "bin" / "uv"
    uv.parent.mkdir()
    uv.write_text("#!/bin/sh\nexit 0\n")  # only found on PATH here, never run
    uv.chmod(uv.stat().st_mode | stat.S_IXUSR)
    assert run("install", "json", "server.py", "--with", "pandas", "--python", "3.12") == 0
    out, err = capsys.readouterr()
    assert err == ""  # not imported here: its packages are uv's to install
    assert json.loads(out)["mcpServers"]["server"] == {
        "command": str(uv),
        "args": [
            "run",
            "--no-project",
            "--with",
            plainmcp_requirement(),
            "--with",
            "pandas",
            "--python",
            "3.12",
            "plainmcp",
            "run",
            str(Path.cwd() / "server.py"),
        ],
    }


def test_plainmcp_requirement_is_the_folder_it_was_installed_from() -> None:
    # scripts/setup installs this checkout with pip install -e: uv gets the same folder.
    assert Path(plainmcp_requirement()) == Path(__file__).resolve().parents[2]


def test_parse_env_file() -> None:
    text = "# c\n\nA=1\nexport B = two words \nC=\"q\"\nD='x=y'\n"
    assert parse_env_file(text, ".env") == {"A": "1", "B": "two words", "C": "q", "D": "x=y"}
    with pytest.raises(UsageError, match=r"^\.env:2: not a KEY=VALUE line: 'oops'$"):
        parse_env_file("A=1\noops\n", ".env")


def test_a_written_command_serves_from_any_folder(home: Path, tmp_path: Path) -> None:
    assert run("install", "cursor", "server.py") == 0
    written = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["notes"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def session() -> str:
        env = {"PATH": os.defpath}
        async with Client.stdio(written["command"], *written["args"], env=env, cwd=elsewhere) as c:
            result = await c.call_tool("add", {"a": 2, "b": 3})
            return result.text

    assert anyio.run(session) == "5"
