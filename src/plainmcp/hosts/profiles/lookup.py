"""Which row a client gets: every profile in the table's order (GENERIC last), chosen by the
`clientInfo.name` it sends, and a cell's value with GENERIC's in place of an unknown one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plainmcp.hosts.profiles.anthropic import CLAUDE_CODE, CLAUDE_DESKTOP
from plainmcp.hosts.profiles.cells import GENERIC, HostProfile
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
from plainmcp.hosts.profiles.sdks import FASTMCP_CLIENT, FASTMCP_DEFAULT, PYTHON_SDK, SDK_DEFAULT

PROFILES: tuple[HostProfile, ...] = (
    CLAUDE_CODE,
    CLAUDE_DESKTOP,
    CURSOR,
    VSCODE,
    COPILOT_CLI,
    GEMINI_CLI,
    CODEX_CLI,
    OPENCODE,
    KILO_CLI,
    QWEN_CODE,
    CONTINUE_CLI,
    SDK_DEFAULT,
    FASTMCP_DEFAULT,
    PYTHON_SDK,
    OPENAI_AGENTS,
    PYDANTIC_AI,
    LANGCHAIN,
    FASTMCP_CLIENT,
    GENERIC,
)
"""Every profile; GENERIC last."""


_BY_NAME: dict[str, HostProfile] = {name.lower(): p for p in PROFILES for name in p.client_names}
_BY_PREFIX: tuple[tuple[str, HostProfile], ...] = tuple(
    (start.lower(), p) for p in PROFILES for start in p.client_prefixes
)
_SEEN: dict[object, HostProfile] = {}
"""`clientInfo.name` as sent -> profile, so a known client costs one dict lookup per request."""
_SEEN_MAX = 1024


def profile_for(client_info: Mapping[str, Any]) -> HostProfile:
    """The profile of the client that sent `client_info`; GENERIC for any other."""
    name = client_info.get("name")
    try:
        return _SEEN[name]
    except (KeyError, TypeError):
        pass
    profile = _by_name(name) if isinstance(name, str) else GENERIC
    if isinstance(name, str) and len(_SEEN) < _SEEN_MAX:
        # Names are the client's to choose: remember a bounded number.
        _SEEN[name] = profile
    return profile


def _by_name(name: str) -> HostProfile:
    lowered = name.lower()
    found = _BY_NAME.get(lowered)
    if found is not None:
        return found
    return next((p for start, p in _BY_PREFIX if lowered.startswith(start)), GENERIC)


def known(profile: HostProfile, cell: str) -> Any:
    """A cell's value, or GENERIC's where the profile's is unknown."""
    value = getattr(profile, cell).value
    return getattr(GENERIC, cell).value if value is None else value
