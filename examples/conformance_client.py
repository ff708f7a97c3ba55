"""plainmcp's client as the conformance suite's client under test: the suite runs
`python examples/conformance_client.py URL` with the scenario in MCP_CONFORMANCE_SCENARIO and
its context (JSON) in MCP_CONFORMANCE_CONTEXT. The authorization scenarios are in
conformance_auth.py. Exit 0 when the scenario ran, 1 when the client refused (some scenarios
expect that), 2 for a scenario this runner does not know."""

from __future__ import annotations

import json
import os
import sys

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from conformance_auth import SCENARIOS

from plainmcp.client import McpError


async def run(url: str, scenario: str, context: dict[str, object]) -> int:
    body = SCENARIOS.get(scenario)
    if body is None:
        print(f"conformance_client: no scenario {scenario!r}", file=sys.stderr)
        return 2
    try:
        await body(url, context)
    except McpError as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 1
    return 0


def main() -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    sys.exit(anyio.run(run, sys.argv[-1], scenario, context))


if __name__ == "__main__":
    main()
