"""What each known MCP client does with a tool result, as data.

Like `wire/revisions.py` for revisions, this table is the only place that knows hosts apart: the
renderer reads it (hosts/adapt.py), `plainmcp check` reads it, and docs/hosts.md is generated from
it (hosts/page.py). A profile is chosen by the `clientInfo.name` the client
sends (at `initialize`, or in each 2026-07-28 request's `_meta`).

Every cell cites its source: an issue, the client's docs or code, or a test of this project that
drives the real host. A cell nobody verified is `UNKNOWN` and takes the generic behaviour.
"""

from plainmcp.hosts.profiles.anthropic import CLAUDE_CODE, CLAUDE_DESKTOP
from plainmcp.hosts.profiles.cells import (
    GENERIC,
    UNKNOWN,
    Carried,
    Cell,
    ErrorBlocks,
    HostProfile,
    Reads,
    TextJoin,
)
from plainmcp.hosts.profiles.cli_agents import (
    CODEX_CLI,
    CONTINUE_CLI,
    COPILOT_CLI,
    GEMINI_CLI,
    KILO_CLI,
    OPENCODE,
    QWEN_CODE,
)
from plainmcp.hosts.profiles.frameworks import LANGCHAIN, OPENAI_AGENTS, PYDANTIC_AI
from plainmcp.hosts.profiles.ides import CURSOR, VSCODE
from plainmcp.hosts.profiles.lookup import PROFILES, known, profile_for
from plainmcp.hosts.profiles.sdks import FASTMCP_CLIENT, FASTMCP_DEFAULT, PYTHON_SDK, SDK_DEFAULT

__all__ = [
    "CLAUDE_CODE",
    "CLAUDE_DESKTOP",
    "CODEX_CLI",
    "CONTINUE_CLI",
    "COPILOT_CLI",
    "CURSOR",
    "FASTMCP_CLIENT",
    "FASTMCP_DEFAULT",
    "GEMINI_CLI",
    "GENERIC",
    "KILO_CLI",
    "LANGCHAIN",
    "OPENAI_AGENTS",
    "OPENCODE",
    "PROFILES",
    "PYDANTIC_AI",
    "PYTHON_SDK",
    "QWEN_CODE",
    "SDK_DEFAULT",
    "UNKNOWN",
    "VSCODE",
    "Carried",
    "Cell",
    "ErrorBlocks",
    "HostProfile",
    "Reads",
    "TextJoin",
    "known",
    "profile_for",
]
