"""The host table: each host's file per OS and scope, and its entry for a command or a URL."""

from __future__ import annotations

import pytest

from plainmcp.cli.host_configs import (
    HOSTS,
    JSON_SNIPPET,
    Launch,
    Remote,
    entry,
    resolve,
    server_name,
)

HOME = {"macos": "/Users/ann", "linux": "/home/ann", "windows": "C:\\Users\\ann"}
CWD = {"macos": "/Users/ann/proj", "linux": "/home/ann/proj", "windows": "C:\\Users\\ann\\proj"}
ENV = {"windows": {"APPDATA": "C:\\Users\\ann\\AppData\\Roaming"}, "macos": {}, "linux": {}}

# host, scope -> the file on macOS, Linux, Windows (each from the host's docs, `Host.doc`).
PLACES = {
    ("claude-code", "local"): (
        "/Users/ann/.claude.json",
        "/home/ann/.claude.json",
        "C:\\Users\\ann\\.claude.json",
    ),
    ("claude-code", "project"): (
        "/Users/ann/proj/.mcp.json",
        "/home/ann/proj/.mcp.json",
        "C:\\Users\\ann\\proj\\.mcp.json",
    ),
    ("claude-code", "user"): (
        "/Users/ann/.claude.json",
        "/home/ann/.claude.json",
        "C:\\Users\\ann\\.claude.json",
    ),
    ("claude-desktop", "user"): (
        "/Users/ann/Library/Application Support/Claude/claude_desktop_config.json",
        "/home/ann/.config/Claude/claude_desktop_config.json",
        "C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
    ),
    ("cursor", "user"): (
        "/Users/ann/.cursor/mcp.json",
        "/home/ann/.cursor/mcp.json",
        "C:\\Users\\ann\\.cursor\\mcp.json",
    ),
    ("cursor", "project"): (
        "/Users/ann/proj/.cursor/mcp.json",
        "/home/ann/proj/.cursor/mcp.json",
        "C:\\Users\\ann\\proj\\.cursor\\mcp.json",
    ),
    ("vscode", "user"): (
        "/Users/ann/Library/Application Support/Code/User/mcp.json",
        "/home/ann/.config/Code/User/mcp.json",
        "C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json",
    ),
    ("vscode", "project"): (
        "/Users/ann/proj/.vscode/mcp.json",
        "/home/ann/proj/.vscode/mcp.json",
        "C:\\Users\\ann\\proj\\.vscode\\mcp.json",
    ),
    ("gemini-cli", "user"): (
        "/Users/ann/.gemini/settings.json",
        "/home/ann/.gemini/settings.json",
        "C:\\Users\\ann\\.gemini\\settings.json",
    ),
    ("gemini-cli", "project"): (
        "/Users/ann/proj/.gemini/settings.json",
        "/home/ann/proj/.gemini/settings.json",
        "C:\\Users\\ann\\proj\\.gemini\\settings.json",
    ),
    ("codex-cli", "user"): (
        "/Users/ann/.codex/config.toml",
        "/home/ann/.codex/config.toml",
        "C:\\Users\\ann\\.codex\\config.toml",
    ),
    ("codex-cli", "project"): (
        "/Users/ann/proj/.codex/config.toml",
        "/home/ann/proj/.codex/config.toml",
        "C:\\Users\\ann\\proj\\.codex\\config.toml",
    ),
}


def test_every_scope_of_every_host_is_pinned() -> None:
    assert sorted(PLACES) == sorted((h.name, s) for h in HOSTS.values() for s in h.scopes)


@pytest.mark.parametrize(("host", "scope"), sorted(PLACES))
def test_the_file_of_each_host_scope_and_os(host: str, scope: str) -> None:
    files = tuple(
        str(
            resolve(
                HOSTS[host].places[scope][os_name],
                os_name,
                ENV[os_name],
                HOME[os_name],
                CWD[os_name],
            )
        )
        for os_name in ("macos", "linux", "windows")
    )
    assert files == PLACES[(host, scope)]


def test_default_scopes() -> None:
    assert {h.name: h.default_scope for h in HOSTS.values()} == {
        "claude-code": "local",
        "claude-desktop": "user",
        "cursor": "user",
        "vscode": "user",
        "gemini-cli": "user",
        "codex-cli": "user",
    }


def test_environment_overrides_of_the_base_folders() -> None:
    codex = HOSTS["codex-cli"].places["user"]["linux"]
    assert str(resolve(codex, "linux", {"CODEX_HOME": "/opt/codex"}, "/h", "/p")) == (
        "/opt/codex/config.toml"
    )
    vscode = HOSTS["vscode"].places["user"]["linux"]
    assert str(resolve(vscode, "linux", {"XDG_CONFIG_HOME": "/x"}, "/h", "/p")) == (
        "/x/Code/User/mcp.json"
    )


def test_claude_codes_local_scope_lives_under_the_project() -> None:
    host = HOSTS["claude-code"]
    assert host.servers_path("local", "/home/ann/proj") == (
        "projects",
        "/home/ann/proj",
        "mcpServers",
    )
    assert host.servers_path("user", "/home/ann/proj") == ("mcpServers",)
    assert host.servers_path("project", "/home/ann/proj") == ("mcpServers",)


LAUNCH = Launch("/v/bin/python", ("-m", "plainmcp", "run", "/s/server.py"), {"KEY": "v"})
REMOTE = Remote("https://example.com/mcp", {"Authorization": "Bearer t"})
ARGS = ["-m", "plainmcp", "run", "/s/server.py"]


def test_stdio_entries() -> None:
    entries = {name: entry(host, LAUNCH) for name, host in HOSTS.items()}
    plain = {"command": "/v/bin/python", "args": ARGS, "env": {"KEY": "v"}}
    typed = {"type": "stdio", **plain}
    assert entries == {
        "claude-code": typed,
        "claude-desktop": plain,
        "cursor": plain,
        "vscode": typed,
        "gemini-cli": plain,
        "codex-cli": plain,
    }
    assert list(entries["vscode"]) == ["type", "command", "args", "env"]
    assert entry(JSON_SNIPPET, Launch("/p", ())) == {"command": "/p", "args": []}


def test_remote_entries() -> None:
    headers = {"Authorization": "Bearer t"}
    url = "https://example.com/mcp"
    assert {n: entry(h, REMOTE) for n, h in HOSTS.items() if h.remote is not None} == {
        "claude-code": {"type": "http", "url": url, "headers": headers},
        "cursor": {"type": "http", "url": url, "headers": headers},
        "vscode": {"type": "http", "url": url, "headers": headers},
        "gemini-cli": {"httpUrl": url, "headers": headers},
        "codex-cli": {"url": url, "http_headers": headers},
    }


def test_claude_desktop_takes_no_url() -> None:
    with pytest.raises(ValueError, match="Settings → Connectors"):
        entry(HOSTS["claude-desktop"], REMOTE)


def test_server_names_every_host_takes() -> None:
    assert server_name("demo") == "demo"
    assert server_name("my server.v2") == "my-server-v2"
    assert server_name("127.0.0.1") == "127-0-0-1"
    assert server_name("***") == "server"
