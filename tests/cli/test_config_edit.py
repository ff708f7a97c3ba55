"""Each host format edited in place: exact file contents, other entries and comments kept,
--force, and a malformed file refused with its line."""

from __future__ import annotations

import pytest

from plainmcp.cli import config_edit
from plainmcp.cli.host_configs import HOSTS, Launch, Remote, entry

LAUNCH = Launch("/v/bin/python", ("-m", "plainmcp", "run", "/s/server.py"))
SERVERS = ("mcpServers",)


def add(host: str, text: str, name: str = "demo", *, force: bool = False, keys=SERVERS) -> str:
    return config_edit.add(HOSTS[host], text, keys, name, entry(HOSTS[host], LAUNCH), force=force)


CURSOR_BEFORE = """\
{
    "mcpServers": {
        "other": {"command": "npx", "args": ["-y", "other"]}
    },
    "theme": "dark"
}
"""

CURSOR_AFTER = """\
{
    "mcpServers": {
        "other": {"command": "npx", "args": ["-y", "other"]},
        "demo": {
            "command": "/v/bin/python",
            "args": [
                "-m",
                "plainmcp",
                "run",
                "/s/server.py"
            ]
        }
    },
    "theme": "dark"
}
"""


def test_json_keeps_other_servers_and_settings_byte_for_byte() -> None:
    after = add("cursor", CURSOR_BEFORE)
    assert after == CURSOR_AFTER
    assert config_edit.remove(HOSTS["cursor"], after, SERVERS, "demo") == CURSOR_BEFORE


def test_a_new_file() -> None:
    assert add("claude-desktop", "") == (
        "{\n"
        '  "mcpServers": {\n'
        '    "demo": {\n'
        '      "command": "/v/bin/python",\n'
        '      "args": [\n'
        '        "-m",\n'
        '        "plainmcp",\n'
        '        "run",\n'
        '        "/s/server.py"\n'
        "      ]\n"
        "    }\n"
        "  }\n"
        "}\n"
    )


def test_an_existing_entry_is_replaced_only_with_force() -> None:
    with pytest.raises(config_edit.Exists):
        add("cursor", CURSOR_BEFORE, "other")
    replaced = add("cursor", CURSOR_BEFORE, "other", force=True)
    assert replaced == CURSOR_BEFORE.replace(
        '{"command": "npx", "args": ["-y", "other"]}',
        "{\n"
        '            "command": "/v/bin/python",\n'
        '            "args": [\n'
        '                "-m",\n'
        '                "plainmcp",\n'
        '                "run",\n'
        '                "/s/server.py"\n'
        "            ]\n"
        "        }",
    )


VSCODE_BEFORE = """\
// Servers for this workspace.
{
\t"inputs": [],
\t"servers": {
\t\t/* the linter */
\t\t"lint": {"type": "stdio", "command": "lint"}, // keep me
\t},
}
"""

VSCODE_AFTER = """\
// Servers for this workspace.
{
\t"inputs": [],
\t"servers": {
\t\t/* the linter */
\t\t"lint": {"type": "stdio", "command": "lint"}, // keep me
\t\t"web": {
\t\t\t"type": "http",
\t\t\t"url": "https://example.com/mcp"
\t\t},
\t},
}
"""


def test_jsonc_keeps_comments_tabs_and_trailing_commas() -> None:
    host = HOSTS["vscode"]
    value = entry(host, Remote("https://example.com/mcp"))
    after = config_edit.add(host, VSCODE_BEFORE, ("servers",), "web", value, force=False)
    assert after == VSCODE_AFTER
    assert config_edit.remove(host, after, ("servers",), "web") == VSCODE_BEFORE
    without_lint = config_edit.remove(host, VSCODE_BEFORE, ("servers",), "lint")
    assert without_lint == VSCODE_BEFORE.replace(
        '\t\t"lint": {"type": "stdio", "command": "lint"}, // keep me\n', ""
    )


def test_gemini_takes_comments_but_not_trailing_commas() -> None:
    text = '// mine\n{"mcpServers": {"a": {"command": "x"}}}\n'
    assert add("gemini-cli", text) == (
        '// mine\n{"mcpServers": {"a": {"command": "x"}, "demo": {"command": "/v/bin/python",'
        ' "args": ["-m", "plainmcp", "run", "/s/server.py"]}}}\n'
    )
    with pytest.raises(config_edit.Malformed) as caught:
        add("gemini-cli", '{\n  "mcpServers": {},\n}\n')
    assert (caught.value.line, str(caught.value)) == (3, "a comma before '}' is not allowed here")


@pytest.mark.parametrize(
    ("host", "text", "line", "message"),
    [
        (
            "cursor",
            '{\n  "mcpServers": {\n    "a": {"command": "x"}\n  \n',
            5,
            "'}' is missing at the end of the file",
        ),
        (
            "claude-code",
            "{\n  // no comments in strict JSON\n}\n",
            2,
            "comments are not allowed in this file",
        ),
        (
            "claude-desktop",
            '{\n  "mcpServers": {\n    "a": 1 "b": 2\n  }\n}\n',
            3,
            "expected ',' or '}'",
        ),
        ("vscode", '{\n  "servers": {"a": tru}\n}', 2, "unexpected 't'"),
        ("cursor", '{"mcpServers": "none"}', 1, '"mcpServers" is not an object'),
        ("cursor", "[]", 1, "the file must hold a JSON object"),
        (
            "codex-cli",
            '[mcp_servers.a]\ncommand = "x"\ncommand = "y"\n',
            3,
            "Cannot overwrite a value",
        ),
    ],
)
def test_a_malformed_file_is_refused_with_its_line(
    host: str, text: str, line: int, message: str
) -> None:
    with pytest.raises(config_edit.Malformed) as caught:
        add(host, text)
    assert (caught.value.line, str(caught.value)) == (line, message)


def test_claude_code_local_scope_makes_the_project_entry() -> None:
    text = (
        '{\n  "numStartups": 3,\n  "projects": {\n    "/p": {\n      "allowedTools": []\n'
        "    }\n  }\n}\n"
    )
    keys = HOSTS["claude-code"].servers_path("local", "/p")
    host = HOSTS["claude-code"]
    value = entry(host, Remote("http://127.0.0.1:8000/mcp"))
    after = config_edit.add(host, text, keys, "web", value, force=False)
    assert after == (
        '{\n  "numStartups": 3,\n  "projects": {\n    "/p": {\n      "allowedTools": [],\n'
        '      "mcpServers": {\n        "web": {\n          "type": "http",\n'
        '          "url": "http://127.0.0.1:8000/mcp"\n        }\n      }\n    }\n  }\n}\n'
    )
    assert config_edit.existing(host, after, keys, "web") == value
    assert config_edit.existing(host, after, ("mcpServers",), "web") is None


CODEX_BEFORE = """\
# My Codex settings.
model = "o3"

[mcp_servers.docs]
command = "npx" # the docs server
args = ["-y", "docs"]
"""

CODEX_AFTER = """\
# My Codex settings.
model = "o3"

[mcp_servers.docs]
command = "npx" # the docs server
args = ["-y", "docs"]

[mcp_servers.demo]
command = "/v/bin/python"
args = ["-m", "plainmcp", "run", "/s/server.py"]

[mcp_servers.demo.env]
KEY = "v"
"""


def test_toml_keeps_comments_and_other_servers() -> None:
    host = HOSTS["codex-cli"]
    value = entry(host, Launch(LAUNCH.command, LAUNCH.args, {"KEY": "v"}))
    after = config_edit.add(host, CODEX_BEFORE, ("mcp_servers",), "demo", value, force=False)
    assert after == CODEX_AFTER
    assert config_edit.remove(host, after, ("mcp_servers",), "demo") == CODEX_BEFORE
    with pytest.raises(config_edit.Exists):
        config_edit.add(host, after, ("mcp_servers",), "docs", value, force=False)
    forced = config_edit.add(host, CODEX_BEFORE, ("mcp_servers",), "docs", value, force=True)
    assert forced == (
        '# My Codex settings.\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "/v/bin/python"\n'
        'args = ["-m", "plainmcp", "run", "/s/server.py"]\n\n[mcp_servers.docs.env]\nKEY = "v"\n'
    )


def test_toml_remote_server() -> None:
    host = HOSTS["codex-cli"]
    value = entry(host, Remote("http://127.0.0.1:8000/mcp", {"X-Key": "k"}))
    assert config_edit.add(host, "", ("mcp_servers",), "web", value, force=False) == (
        '[mcp_servers.web]\nurl = "http://127.0.0.1:8000/mcp"\n\n'
        '[mcp_servers.web.http_headers]\nX-Key = "k"\n'
    )


def test_removing_what_is_not_there() -> None:
    assert config_edit.remove(HOSTS["cursor"], CURSOR_BEFORE, SERVERS, "nope") is None
    assert config_edit.remove(HOSTS["cursor"], "", SERVERS, "nope") is None
    assert config_edit.remove(HOSTS["codex-cli"], CODEX_BEFORE, ("mcp_servers",), "x") is None
