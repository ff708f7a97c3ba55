"""plainmcp's client as the conformance suite's client under test: the suite runs
`python examples/conformance_client.py URL` with the scenario in MCP_CONFORMANCE_SCENARIO, its
context (JSON) in MCP_CONFORMANCE_CONTEXT and the revision in MCP_CONFORMANCE_PROTOCOL_VERSION.
The scenarios are grouped by what they test: conformance_core.py (the protocol), conformance_auth.py
(authorization), conformance_skills.py (the skills extension). `--list` prints every name this
runner knows, which is what scripts/conformance_clients.py runs and scores.

Exit 0 when the scenario ran, 1 when the client refused what the server sent (some scenarios
expect that), 2 for a scenario this runner does not know.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from plainmcp.client import McpError, SkillVerificationError
from plainmcp.client.oauth import AuthorizationError

Scenario = Callable[[str, dict[str, Any]], Awaitable[None]]
GROUPS = ("conformance_core", "conformance_auth", "conformance_skills")


def scenarios() -> dict[str, Scenario]:
    """Every group's SCENARIOS; a group whose file is absent contributes none."""
    found: dict[str, Scenario] = {}
    for group in GROUPS:
        try:
            module = importlib.import_module(group)
        except ModuleNotFoundError as exc:
            if exc.name != group:
                raise
            continue
        found.update(module.SCENARIOS)
    return found


async def run(url: str, scenario: str, context: dict[str, Any]) -> int:
    body = scenarios().get(scenario)
    if body is None:
        print(f"conformance_client: no scenario {scenario!r}", file=sys.stderr)
        return 2
    try:
        await body(url, context)
    except (McpError, SkillVerificationError, AuthorizationError) as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 1
    return 0


def main() -> None:
    if sys.argv[1:] == ["--list"]:
        print("\n".join(sorted(scenarios())))
        return
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    sys.exit(anyio.run(run, sys.argv[-1], scenario, context))


if __name__ == "__main__":
    main()
