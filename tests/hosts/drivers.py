"""One interface for every host and framework the tests drive: point it at an MCP server, let a
scripted model make the calls, and get back what the model was shown.

Each host's harness (claude_code.py, codex_cli.py, ...) implements `Driver`; the matrix
(tests/hosts/test_matrix.py) runs every driver over the same servers and checks what reached the
model. A driver reduces the host's own shape of a tool result to `Part`s (scripts.py) and takes off
exactly the framing the host itself adds around every result (a prefix, a wrapper tag), so the
scripted model reads what a model would read as the result's own words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from tests.hosts.scripts import Part, Script

Transport = Literal["stdio", "http"]


@dataclass(frozen=True)
class Target:
    """The MCP server a host is pointed at, under the name `name` in the host's config: a
    command for stdio (`argv`, run in `cwd`), or a Streamable HTTP `url`."""

    name: str
    argv: tuple[str, ...] = ()
    url: str = ""
    env: tuple[tuple[str, str], ...] = ()
    cwd: Path | None = None

    @property
    def transport(self) -> Transport:
        return "http" if self.url else "stdio"


@dataclass
class Seen:
    """What the model was shown during one run."""

    offered: list[str]
    """The names of the tools the host offered the model (in the host's naming)."""
    results: list[list[Part]] = field(default_factory=list)
    """What each call gave back to the model, in order, as parts."""
    failed: list[bool] = field(default_factory=list)
    """For each call: whether the host told the model, in its own structure, that the call
    failed (an is_error flag, a failure status); text that says so is in `results`."""
    saved: dict[str, bytes] = field(default_factory=dict)
    """Files the host saved for its model (big results, audio), by path, when it does that."""


class Driver(Protocol):
    key: str
    """The host's profile key (src/plainmcp/hosts/profiles.py), e.g. "codex-cli"."""
    transports: tuple[Transport, ...]
    """Which transports it is driven over here."""

    def problem(self) -> str | None:
        """Why it cannot run here (not installed, wrong version), or None."""
        ...

    def tool_name(self, server: str, tool: str) -> str:
        """The name the host gives the model for `tool` of the server named `server`."""
        ...

    def run(self, target: Target, script: Script, *, timeout: float = 300) -> Seen:
        """One run: the host starts (or connects to) `target`, the scripted model makes the
        calls `script` decides from what it was shown, then ends the turn."""
        ...


def run_id(driver: Driver, transport: Transport | str) -> str:
    """A run's name in the matrix: the profile key, the driver's `mode` when it has one (a
    framework driven two ways, e.g. LangChain's "session" and "per-call"), the transport."""
    mode = getattr(driver, "mode", "")
    return "-".join(part for part in (driver.key, mode, transport) if part)


def tool_named(driver: Driver, server: str) -> Callable[[str], str]:
    """A `name` function for scripts.follow_continuation: the server's tool name as the host
    names it."""
    return lambda tool: driver.tool_name(server, tool)


def offered_all(seen: Seen, driver: Driver, server: str, tools: Sequence[str]) -> list[str]:
    """Which of `tools` the host did not offer the model (none, when all went through)."""
    return [t for t in tools if driver.tool_name(server, t) not in seen.offered]
