"""plainmcp's client as the conformance suite's client under test (scripts/conformance runs it).

The suite starts a scenario's server, then runs `python scripts/conformance_client.py URL` with
the scenario's name in MCP_CONFORMANCE_SCENARIO and the revision in
MCP_CONFORMANCE_PROTOCOL_VERSION. Each scenario does here what a host would: the skills ones
list the server's skills (and read nothing more), or list them and load one, which reads its
SKILL.md, verifies it, and only then reads its other files. Exit 0 when the scenario ran; 1 when
the client refused what the server sent (a verification failure: the scenario expects that);
2 for a scenario this runner does not know.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable

import anyio

from plainmcp.client import SKILLS_EXTENSION, Client, SkillInfo, SkillVerificationError


async def list_only(client: Client) -> None:
    """A host builds its registry from the entries: no file is read until a skill is loaded."""
    for skill in await client.list_skills():
        print(f"listed {skill.uri}: {skill.description}")


async def list_and_load(client: Client) -> None:
    """The user picks the first skill: its SKILL.md is read and verified, then its files."""
    skills: list[SkillInfo] = await client.list_skills()
    loaded = await client.load_skill(skills[0])
    print(f"loaded {loaded.info.uri} ({len(loaded.text)} characters)")
    if isinstance(loaded.info.resources, tuple):
        for record in loaded.info.resources:
            if record.uri != loaded.info.uri:
                data = await client.read_skill_file(loaded, record.uri)
                print(f"read {record.uri} ({len(data)} bytes)")


SCENARIOS: dict[str, Callable[[Client], Awaitable[None]]] = {
    "sep-2640-client-no-prefetch": list_only,
    "sep-2640-client-verify-digest": list_and_load,
    "sep-2640-client-verify-size": list_and_load,
    "sep-2640-client-verify-frontmatter": list_and_load,
}


async def run(url: str, scenario: str, protocol: str) -> int:
    body = SCENARIOS.get(scenario)
    if body is None:
        print(f"conformance_client: no scenario {scenario!r}", file=sys.stderr)
        return 2
    async with Client.http(url, protocol=protocol, extensions={SKILLS_EXTENSION: {}}) as client:
        try:
            await body(client)
        except SkillVerificationError as exc:
            print(f"refused: {exc}", file=sys.stderr)
            return 1
    return 0


def main() -> None:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    protocol = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "auto")
    sys.exit(anyio.run(run, url, scenario, protocol))


if __name__ == "__main__":
    main()
