"""The rows of IDEs and their extensions: Cursor, VS Code's Copilot agent mode."""

from __future__ import annotations

from plainmcp.hosts.profiles.cells import UNKNOWN, Cell, HostProfile

_VSCODE = "src/vs/workbench/contrib/mcp/common/mcpServerRequestHandler.ts@microsoft/vscode"

CURSOR = HostProfile(
    key="cursor",
    title="Cursor",
    client_names=("cursor-vscode",),
    reads=UNKNOWN,
    error_blocks=UNKNOWN,
    images=UNKNOWN,
    audio=UNKNOWN,
    embedded=UNKNOWN,
    links=UNKNOWN,
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=Cell(True, "https://cursor.com/docs/mcp (resources supported)"),
    verified="clientInfo cursor-vscode as public servers' client detection code matches it",
)

VSCODE = HostProfile(
    key="vscode",
    title="VS Code (GitHub Copilot agent mode)",
    client_names=("Visual Studio Code", "Visual Studio Code - Insiders"),
    reads=Cell("structured", "microsoft/vscode#290063"),
    error_blocks=UNKNOWN,
    images=UNKNOWN,
    audio=UNKNOWN,
    embedded=UNKNOWN,
    links=UNKNOWN,
    limit=UNKNOWN,
    limit_raise=UNKNOWN,
    max_result_size_meta=UNKNOWN,
    reads_resources=UNKNOWN,
    verified=f"clientInfo name is productService.nameLong ({_VSCODE})",
)
