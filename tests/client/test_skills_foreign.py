"""plainmcp's client reading skills from a server nobody here wrote: FastMCP 4.2.3's
SkillsDirectoryProvider (servers/fastmcp_skills.py) over stdio. Its entries, digests and
frontmatter (YAML read by another library) pass the client's checks; at 2025-11-25, where
FastMCP declares no skills, nothing is asked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from plainmcp.client import SKILLS_EXTENSION, Client, McpError
from tests.client.test_foreign_servers import needs_fastmcp

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).parent / "servers" / "fastmcp_skills.py"
SKILL_MD = (
    "---\nname: deploy\ndescription: Deploy the service safely\nlicense: Apache-2.0\n"
    'metadata:\n  version: "2.1"\n---\n\nRead references/CHECKLIST.md first.\n'
)
URI = "skill://ops/deploy/SKILL.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    needs_fastmcp()
    skill = tmp_path / "ops" / "deploy"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references" / "CHECKLIST.md").write_text("Check the canary.\n")
    return tmp_path


async def test_fastmcps_skills_are_listed_loaded_and_read_verified(folder: Path) -> None:
    async with Client.stdio(sys.executable, str(SERVER), str(folder)) as client:
        assert client.protocol_version == "2026-07-28"
        (entry,) = await client.list_skills()
        assert (entry.uri, entry.frontmatter) == (
            URI,
            {
                "name": "deploy",
                "description": "Deploy the service safely",
                "license": "Apache-2.0",
                "metadata": {"version": "2.1"},
            },
        )
        assert isinstance(entry.resources, tuple)
        assert [(f.uri, f.size) for f in entry.resources] == [
            (URI, len(SKILL_MD)),
            ("skill://ops/deploy/references/CHECKLIST.md", 18),
        ]
        assert await client.get_skill(URI) == entry
        loaded = await client.load_skill(entry)
        checklist = await client.read_skill_file(loaded, "references/CHECKLIST.md")
    assert (loaded.text, loaded.body) == (SKILL_MD, "\nRead references/CHECKLIST.md first.\n")
    assert checklist == b"Check the canary.\n"


async def test_at_2025_11_25_fastmcp_declares_no_skills_and_is_not_asked(folder: Path) -> None:
    async with Client.stdio(
        sys.executable,
        str(SERVER),
        str(folder),
        protocol="2025-11-25",
        extensions={SKILLS_EXTENSION: {}},
    ) as client:
        assert "extensions" not in client.capabilities
        with pytest.raises(McpError) as caught:
            await client.list_skills()
    assert (caught.value.code, caught.value.message) == (
        -32601,
        f"The server does not declare {SKILLS_EXTENSION}: no skills/list",
    )
