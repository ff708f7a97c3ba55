"""The conformance suite's skills client scenarios (SEP-2640), each as a host would run it.

The skills ones list the server's skills (and read nothing more), or list them and load one,
which reads its SKILL.md, verifies it, and only then reads its other files. A verification
failure raises SkillVerificationError: examples/conformance_client.py exits 1 for it, which is
what the verify-* scenarios expect. examples/conformance_client.py dispatches the names in
SCENARIOS.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any

from plainmcp.client import SKILLS_EXTENSION, Client, SkillInfo


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


def connected(
    body: Callable[[Client], Awaitable[None]],
) -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """`body` on a client that declares the skills extension, at the suite's revision."""

    async def scenario(url: str, context: dict[str, Any]) -> None:
        protocol = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "auto")
        async with Client.http(url, protocol=protocol, extensions={SKILLS_EXTENSION: {}}) as client:
            await body(client)

    return scenario


SCENARIOS: dict[str, Callable[[str, dict[str, Any]], Awaitable[None]]] = {
    "sep-2640-client-no-prefetch": connected(list_only),
    "sep-2640-client-verify-digest": connected(list_and_load),
    "sep-2640-client-verify-size": connected(list_and_load),
    "sep-2640-client-verify-frontmatter": connected(list_and_load),
}
