"""The rows of Anthropic's own hosts: Claude Code and Claude Desktop."""

from __future__ import annotations

from plainmcp.hosts.profiles.cells import UNKNOWN, Cell, Declared, HostProfile

_CC_TEST = "tests/hosts/test_claude_code.py (2.1.328, driven here)"
_CC_BIN = "@anthropic-ai/claude-code@2.1.328, bin/claude.exe"
_CC_DOCS = "https://code.claude.com/docs/en/mcp"
_CC_DECLARED = "tests/hosts/test_declared.py (2.1.328, driven here)"
_CC_CAPABILITIES = {"roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}}

CLAUDE_CODE = HostProfile(
    key="claude-code",
    title="Claude Code",
    client_names=("claude-code",),
    reads=Cell("structured", f"{_CC_TEST}; anthropics/claude-code#54450, #55677, #79944"),
    error_blocks=Cell("all", f"{_CC_TEST}; older versions: the first only (#1804)"),
    images=Cell("shown", _CC_TEST),
    audio=Cell("file", _CC_TEST),
    embedded=Cell("text", _CC_TEST),
    links=Cell("text", f"{_CC_TEST}; dropped before, anthropics/claude-code#53453"),
    limit=Cell(50_000, f"{_CC_TEST}; anthropics/claude-code#42869; {_CC_DOCS}"),
    limit_raise=Cell(
        "MAX_MCP_OUTPUT_TOKENS (default 25,000 tokens); per tool, the server's"
        ' _meta["anthropic/maxResultSizeChars"] (up to 500,000)',
        f"anthropics/claude-code#42869; {_CC_DOCS}",
    ),
    max_result_size_meta=Cell(True, f"{_CC_TEST}; anthropics/claude-code#42869, #78478"),
    reads_resources=Cell(True, f"{_CC_TEST} (ReadMcpResourceTool when the server has resources)"),
    limit_unit=Cell("characters", f"{_CC_TEST}: 50,000 characters of 2- and 3-byte letters"),
    verified=f"2.1.328 (clientInfo name from {_CC_BIN})",
    # Observed 2026-12-02 with 2.1.328 (`claude -p`, `claude mcp list`, and the terminal UI),
    # the record of every message through tests/interop/relay.py; pinned by test_declared.py.
    declared=Cell(
        Declared.of("2026-07-28", True, _CC_CAPABILITIES),
        f"{_CC_DECLARED}: `claude -p`; the same in every request's _meta. With"
        " CLAUDE_CODE_MCP_APPS_HOST=1 it adds extensions"
        ' {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}',
    ),
    declared_legacy=Cell(
        Declared.of("2025-11-25", False, _CC_CAPABILITIES),
        f"{_CC_DECLARED}: server/discover answered -32601, then this initialize",
    ),
    declared_interactive=Cell(
        Declared.of(
            "2026-07-28",
            True,
            {**_CC_CAPABILITIES, "extensions": {"io.modelcontextprotocol/tasks": {}}},
        ),
        f"{_CC_DECLARED}: the terminal UI (entrypoint `cli`) declares the tasks extension, the"
        " `-p` one does not (its remote flag tengu_glowing_lark defaults on for entrypoint cli;"
        f" CLAUDE_CODE_DISABLE_MCP_TASKS turns it off: {_CC_BIN}); no skills: the binary names"
        " io.modelcontextprotocol/skills, but the switch beside it returns false in this build",
    ),
)

CLAUDE_DESKTOP = HostProfile(
    key="claude-desktop",
    title="Claude Desktop",
    client_names=("claude-ai",),
    reads=UNKNOWN,
    error_blocks=UNKNOWN,
    images=Cell("shown", "anthropics/claude-ai-mcp#643 (shown, one turn late), #969"),
    audio=UNKNOWN,
    embedded=UNKNOWN,
    links=UNKNOWN,
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=Cell(False, "anthropics/claude-code#78478 (its code agent drops it)"),
    reads_resources=UNKNOWN,
    verified="clientInfo claude-ai 0.1.0 in 0x4m4/hexstrike-ai#11 (2025-08)",
)
