"""Where each host keeps its MCP servers and how it spells one: one row of data per host.

Sans-I/O: a place is resolved from an OS name, the environment and two folders handed in, and an
entry is built from a command or a URL; reading and writing files is install.py's job. Every
path and key below is the host's own documentation (`doc` of each row), checked against the real
Claude Code, Gemini CLI and Codex CLI in tests/hosts/test_install_hosts.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Any, Literal

OS = Literal["macos", "linux", "windows"]
Format = Literal["json", "jsonc", "toml"]
"""json: strict JSON; jsonc: comments allowed (see `Host.trailing_commas`); toml: TOML."""

Base = Literal["home", "cwd", "appdata", "xdg_config", "app_support", "codex_home"]


@dataclass(frozen=True)
class Place:
    """A file under a base folder: home, cwd (the project), %APPDATA%, $XDG_CONFIG_HOME (else
    ~/.config), ~/Library/Application Support, $CODEX_HOME (else ~/.codex)."""

    base: Base
    path: str  # relative, with forward slashes


@dataclass(frozen=True)
class Host:
    name: str
    title: str
    doc: str
    places: Mapping[str, Mapping[OS, Place]]
    """scope -> OS -> file; the first scope is the default."""
    format: Format
    servers: tuple[str, ...] = ("mcpServers",)
    """The keys leading to the servers object; "{cwd}" stands for the project folder."""
    scoped_servers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Scopes whose servers object lies elsewhere in the same file."""
    stdio: Mapping[str, str] = field(default_factory=dict)
    """Extra keys of a stdio entry (e.g. {"type": "stdio"})."""
    remote: Mapping[str, str] | None = None
    """Extra keys of a remote entry, or None when the host's config takes no URL."""
    url_key: str = "url"
    headers_key: str = "headers"
    trailing_commas: bool = False
    cli: str | None = None
    """The host's own command that adds servers for the scopes that live in its state file."""
    cli_scopes: tuple[str, ...] = ()
    no_remote: str = ""
    """What to do instead when the host takes no URL in its config."""
    private: tuple[str, ...] = ()
    """Scopes whose file the host itself creates readable by its owner only (0600); a new file
    of the other scopes gets the usual mode (0666 less the umask: 0644 under umask 022)."""
    next_step: Mapping[str, str] = field(default_factory=dict)
    """scope -> what to do before the host uses a server added there, with {cwd}, {name},
    {path} (the file written), {cwd_toml} (cwd as a TOML string) and {user_file} filled in."""

    @property
    def scopes(self) -> tuple[str, ...]:
        return tuple(self.places)

    @property
    def default_scope(self) -> str:
        return next(iter(self.places))

    def servers_path(self, scope: str, cwd: str) -> tuple[str, ...]:
        keys = self.scoped_servers.get(scope, self.servers)
        return tuple(cwd if key == "{cwd}" else key for key in keys)


def _everywhere(base: Base, path: str) -> Mapping[OS, Place]:
    return {os_name: Place(base, path) for os_name in ("macos", "linux", "windows")}


CLAUDE_CODE_DOC = "https://code.claude.com/docs/en/mcp"

HOSTS: Mapping[str, Host] = {
    host.name: host
    for host in (
        Host(
            name="claude-code",
            title="Claude Code",
            doc=CLAUDE_CODE_DOC,
            places={
                "local": _everywhere("home", ".claude.json"),
                "project": _everywhere("cwd", ".mcp.json"),
                "user": _everywhere("home", ".claude.json"),
            },
            format="json",
            scoped_servers={"local": ("projects", "{cwd}", "mcpServers")},
            stdio={"type": "stdio"},
            remote={"type": "http"},
            cli="claude",
            cli_scopes=("local", "user"),
            # `claude mcp add` makes ~/.claude.json 0600 and .mcp.json 0644 (Claude Code 2.1).
            private=("local", "user"),
            next_step={
                "project": "Claude Code asks before it starts a server from .mcp.json: run"
                " `claude` in {cwd} and approve {name} when it asks (until then `claude mcp"
                " list` shows it as pending approval)"
            },
        ),
        Host(
            name="claude-desktop",
            title="Claude Desktop",
            doc="https://modelcontextprotocol.io/docs/develop/connect-local-servers",
            places={
                "user": {
                    "macos": Place("app_support", "Claude/claude_desktop_config.json"),
                    # No Linux build from Anthropic; the community builds read this file.
                    "linux": Place("xdg_config", "Claude/claude_desktop_config.json"),
                    "windows": Place("appdata", "Claude/claude_desktop_config.json"),
                }
            },
            format="json",
            no_remote="Claude Desktop adds remote servers under Settings → Connectors,"
            " not in its config file",
        ),
        Host(
            name="cursor",
            title="Cursor",
            doc="https://cursor.com/docs/mcp",
            places={
                "user": _everywhere("home", ".cursor/mcp.json"),
                "project": _everywhere("cwd", ".cursor/mcp.json"),
            },
            format="json",
            remote={"type": "http"},
        ),
        Host(
            name="vscode",
            title="VS Code",
            doc="https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
            places={
                # The user profile folder: code.visualstudio.com/docs/configure/settings
                "user": {
                    "macos": Place("app_support", "Code/User/mcp.json"),
                    "linux": Place("xdg_config", "Code/User/mcp.json"),
                    "windows": Place("appdata", "Code/User/mcp.json"),
                },
                "project": _everywhere("cwd", ".vscode/mcp.json"),
            },
            format="jsonc",
            servers=("servers",),
            stdio={"type": "stdio"},
            remote={"type": "http"},
            trailing_commas=True,
        ),
        Host(
            name="gemini-cli",
            title="Gemini CLI",
            doc="https://geminicli.com/docs/tools/mcp-server/",
            places={
                "user": _everywhere("home", ".gemini/settings.json"),
                "project": _everywhere("cwd", ".gemini/settings.json"),
            },
            # Comments are read (Gemini CLI 0.61.0 strips them); a trailing comma is an error.
            format="jsonc",
            remote={},
            url_key="httpUrl",
            # In a folder it does not trust, Gemini CLI 0.61.0 lists every MCP server, the
            # user's too, as disabled; `gemini mcp add` makes settings.json 0644.
            # Answering "Trust folder" writes {"FOLDER": "TRUST_FOLDER"} to
            # ~/.gemini/trustedFolders.json.
            next_step={
                "user": "Gemini CLI starts MCP servers only in a folder it trusts (elsewhere"
                " `gemini mcp list` shows them as disabled): run `gemini` in the folder you"
                " work in and answer 1. Trust folder when it asks whether you trust the files"
                " there",
                "project": "Gemini CLI starts MCP servers only in a folder it trusts (until"
                " then `gemini mcp list` shows them as disabled): run `gemini` in {cwd} and"
                " answer 1. Trust folder when it asks whether you trust the files there",
            },
        ),
        Host(
            name="codex-cli",
            title="Codex CLI",
            doc="https://developers.openai.com/codex/mcp",
            places={
                "user": _everywhere("codex_home", "config.toml"),
                # Read only in a project Codex trusts.
                "project": _everywhere("cwd", ".codex/config.toml"),
            },
            format="toml",
            servers=("mcp_servers",),
            remote={},
            headers_key="http_headers",
            # `codex mcp add` makes config.toml 0600 (Codex CLI 0.169); a project's is yours.
            private=("user",),
            # Codex asks in a git repository ("Trust this folder?"), and answering "Trust and
            # continue" writes that table; outside one it does not ask.
            next_step={
                "project": "Codex CLI reads {path} only in a project it trusts (until then"
                " `codex mcp list` shows none of its servers): add [projects.{cwd_toml}] with"
                ' trust_level = "trusted" to {user_file}, or, in a git repository, run `codex`'
                " in {cwd} and answer 1. Trust and continue when it asks"
            },
        ),
    )
}

JSON_SNIPPET = Host(
    name="json",
    title="an mcpServers snippet",
    doc="https://modelcontextprotocol.io/docs/develop/connect-local-servers",
    places={},
    format="json",
    remote={"type": "http"},
)
"""`plainmcp install json`: the standard form, printed rather than written."""

HOST_NAMES = (*HOSTS, JSON_SNIPPET.name)


def host_named(name: str) -> Host:
    return JSON_SNIPPET if name == JSON_SNIPPET.name else HOSTS[name]


def resolve(place: Place, os_name: OS, env: Mapping[str, str], home: str, cwd: str) -> PurePath:
    """The file a place names on `os_name` (Windows paths on Windows, whatever runs this)."""
    flavor: type[PurePath] = PureWindowsPath if os_name == "windows" else PurePosixPath
    homes = flavor(home)
    bases: dict[Base, PurePath] = {
        "home": homes,
        "cwd": flavor(cwd),
        "appdata": flavor(env["APPDATA"]) if env.get("APPDATA") else homes / "AppData/Roaming",
        "xdg_config": flavor(env.get("XDG_CONFIG_HOME") or homes / ".config"),
        "app_support": homes / "Library/Application Support",
        "codex_home": flavor(env["CODEX_HOME"]) if env.get("CODEX_HOME") else homes / ".codex",
    }
    return bases[place.base] / place.path


@dataclass(frozen=True)
class Launch:
    """A stdio server: the command a host starts, with its arguments and environment."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Remote:
    """A Streamable HTTP server the host connects to."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)


def entry(host: Host, server: Launch | Remote) -> dict[str, Any]:
    """The host's entry for one server, keys in the order its documentation shows them."""
    if isinstance(server, Launch):
        out: dict[str, Any] = {**host.stdio, "command": server.command, "args": list(server.args)}
        if server.env:
            out["env"] = dict(server.env)
        return out
    if host.remote is None:
        raise ValueError(host.no_remote)
    out = {**host.remote, host.url_key: server.url}
    if server.headers:
        out[host.headers_key] = dict(server.headers)
    return out


def is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def server_name(text: str) -> str:
    """A name every host takes (Claude Code allows letters, digits, - and _ only)."""
    return _UNSAFE.sub("-", text).strip("-") or "server"
