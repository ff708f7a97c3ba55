"""plainmcp.skills.extension: `Skills` on a Server, through the in-memory client at both eras
that have the extension (a session at 2025-11-25, stateless 2026-07-28), with exact results
checked against SEP-2640's shapes (tests/skills/wire.py) and, by conftest, every message
against the official schema of its revision."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp import Server
from plainmcp.client import Client, McpError
from plainmcp.middleware import Middleware, NextRequest, RequestInfo
from plainmcp.skills import SkillError, Skills
from tests.skills import wire
from tests.skills.wire import Checked

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def checked() -> Any:
    """Every message the Checked servers of a test wrote is valid."""
    Checked.failures.clear()
    yield
    assert Checked.failures == []


ERAS = ("2025-11-25", "2026-07-28")
SKILLS_ID = "io.modelcontextprotocol/skills"
GUIDE = "Say hello, then ask how the day went.\n"
BODY = "# Greeting\n\nRead references/GUIDE.md first.\n"
SKILL_MD = (
    "---\nname: greeting\ndescription: Greet someone warmly\nlicense: MIT\n---\n\n" + BODY
).encode()


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def served(page_size: int = 1000) -> tuple[Server, Skills]:
    skills = Skills()
    skills.add(
        "greeting",
        description="Greet someone warmly",
        body=BODY,
        files={"references/GUIDE.md": GUIDE, "assets/logo.bin": b"\x00\xff"},
        frontmatter={"license": "MIT"},
    )
    skills.add("farewell", description="Say goodbye", body="Wave.\n", prefix="acme/social")
    return Checked("skills-test", page_size=page_size, extensions=[skills]), skills


@pytest.fixture(params=ERAS)
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    app, _ = served()
    async with Client.memory(app, protocol_version=request.param) as c:
        yield c


async def call(client: Client, method: str, params: dict[str, Any] | None = None) -> Any:
    result = await client.request(method, params or {})
    wire.check(method, result, client.protocol_version)
    return {k: v for k, v in result.items() if k not in ("_meta", "resultType")}


GREETING = {
    "uri": "skill://greeting/SKILL.md",
    "frontmatter": {"name": "greeting", "description": "Greet someone warmly", "license": "MIT"},
    "resources": [
        {"uri": "skill://greeting/SKILL.md", "digest": sha(SKILL_MD), "size": len(SKILL_MD)},
        {"uri": "skill://greeting/assets/logo.bin", "digest": sha(b"\x00\xff"), "size": 2},
        {
            "uri": "skill://greeting/references/GUIDE.md",
            "digest": sha(GUIDE.encode()),
            "size": len(GUIDE),
        },
    ],
}
FAREWELL_MD = b"---\nname: farewell\ndescription: Say goodbye\n---\n\nWave.\n"
FAREWELL = {
    "uri": "skill://acme/social/farewell/SKILL.md",
    "frontmatter": {"name": "farewell", "description": "Say goodbye"},
    "resources": [
        {
            "uri": "skill://acme/social/farewell/SKILL.md",
            "digest": sha(FAREWELL_MD),
            "size": len(FAREWELL_MD),
        }
    ],
}


def cache(client: Client, ttl: int) -> dict[str, Any]:
    """The freshness hints a revision puts on a cacheable result (none before 2026-07-28)."""
    return {"ttlMs": ttl, "cacheScope": "public"} if client.protocol_version >= ERAS[1] else {}


async def test_the_extension_is_declared_inline_beside_resources(client: Client) -> None:
    assert client.capabilities["extensions"] == {SKILLS_ID: {"directoryRead": True}}
    assert "resources" in client.capabilities


async def test_skills_list_gives_every_entry_whole(client: Client) -> None:
    assert await call(client, "skills/list") == {
        "skills": [GREETING, FAREWELL],
        **cache(client, 60000),
    }


@pytest.mark.parametrize("era", ERAS)
async def test_skills_list_pages_never_split_an_entry(era: str) -> None:
    app, _ = served(page_size=1)
    async with Client.memory(app, protocol_version=era) as client:
        first = await call(client, "skills/list")
        assert first["skills"] == [GREETING]
        second = await call(client, "skills/list", {"cursor": first["nextCursor"]})
        assert second == {"skills": [FAREWELL], **cache(client, 60000)}
        with pytest.raises(McpError) as refused:
            await client.request("skills/list", {"cursor": "not-a-cursor"})
        assert (refused.value.code, refused.value.message) == (
            -32602,
            "Invalid params: unknown cursor",
        )


async def test_skills_get_gives_the_listed_entry_and_no_cursor(client: Client) -> None:
    got = await call(client, "skills/get", {"uri": "skill://acme/social/farewell/SKILL.md"})
    assert got == {"skill": FAREWELL, **cache(client, 0)}


async def test_skills_get_of_an_unknown_uri_is_invalid_params(client: Client) -> None:
    for uri in (
        "skill://nope/SKILL.md",
        "skill://greeting/references/GUIDE.md",
        "skill://greeting",
    ):
        with pytest.raises(McpError) as refused:
            await client.request("skills/get", {"uri": uri})
        assert (refused.value.code, refused.value.message) == (
            -32602,
            f"No skill is served at {uri}",
        )
    with pytest.raises(McpError) as missing:
        await client.request("skills/get", {})
    assert missing.value.code == -32602


async def test_every_file_is_a_resource_and_the_skill_md_is_named_by_its_frontmatter(
    client: Client,
) -> None:
    listed = await client.request("resources/list")
    assert listed["resources"] == [
        {
            "uri": "skill://greeting/SKILL.md",
            "name": "greeting",
            "description": "Greet someone warmly",
            "mimeType": "text/markdown",
            "size": len(SKILL_MD),
        },
        {
            "uri": "skill://greeting/assets/logo.bin",
            "name": "greeting/assets/logo.bin",
            "mimeType": "application/octet-stream",
            "size": 2,
        },
        {
            "uri": "skill://greeting/references/GUIDE.md",
            "name": "greeting/references/GUIDE.md",
            "mimeType": "text/markdown",
            "size": len(GUIDE),
        },
        {
            "uri": "skill://acme/social/farewell/SKILL.md",
            "name": "farewell",
            "description": "Say goodbye",
            "mimeType": "text/markdown",
            "size": len(FAREWELL_MD),
        },
    ]


async def test_each_read_has_the_bytes_its_entry_digests(client: Client) -> None:
    for entry in (GREETING, FAREWELL):
        for item in entry["resources"]:
            read = await client.request("resources/read", {"uri": item["uri"]})
            [contents] = read["contents"]
            data = (
                contents["text"].encode()
                if "text" in contents
                else base64.b64decode(contents["blob"])
            )
            assert (sha(data), len(data)) == (item["digest"], item["size"])
    read = await client.request("resources/read", {"uri": "skill://greeting/SKILL.md"})
    assert read["contents"] == [
        {
            "uri": "skill://greeting/SKILL.md",
            "mimeType": "text/markdown",
            "text": SKILL_MD.decode(),
        }
    ]


async def test_directory_read_lists_direct_children_and_subfolders(client: Client) -> None:
    root = await call(client, "resources/directory/read", {"uri": "skill://greeting"})
    assert root == {
        "resources": [
            {
                "uri": "skill://greeting/SKILL.md",
                "name": "SKILL.md",
                "mimeType": "text/markdown",
                "size": len(SKILL_MD),
            },
            {"uri": "skill://greeting/assets", "name": "assets", "mimeType": "inode/directory"},
            {
                "uri": "skill://greeting/references",
                "name": "references",
                "mimeType": "inode/directory",
            },
        ]
    }
    prefix = await call(client, "resources/directory/read", {"uri": "skill://acme"})
    assert prefix == {
        "resources": [
            {"uri": "skill://acme/social", "name": "social", "mimeType": "inode/directory"}
        ]
    }


async def test_directory_read_of_a_file_or_nothing_is_invalid_params(client: Client) -> None:
    for uri, why in (
        ("skill://greeting/SKILL.md", "is not a directory resource"),
        ("skill://greeting/missing", "is not served"),
        ("skill://greeting/", "is not served"),
    ):
        with pytest.raises(McpError) as refused:
            await client.request("resources/directory/read", {"uri": uri})
        assert (refused.value.code, refused.value.message) == (-32602, f"{uri} {why}")


@pytest.mark.parametrize("era", ERAS)
async def test_directory_read_pages(era: str) -> None:
    app, _ = served(page_size=2)
    async with Client.memory(app, protocol_version=era) as client:
        first = await call(client, "resources/directory/read", {"uri": "skill://greeting"})
        assert [r["name"] for r in first["resources"]] == ["SKILL.md", "assets"]
        rest = await call(
            client,
            "resources/directory/read",
            {"uri": "skill://greeting", "cursor": first["nextCursor"]},
        )
        assert rest == {
            "resources": [
                {
                    "uri": "skill://greeting/references",
                    "name": "references",
                    "mimeType": "inode/directory",
                }
            ]
        }


@pytest.mark.parametrize("era", ["2024-11-05", "2025-06-18"])
async def test_before_2025_11_25_there_is_no_extension_only_resources(era: str) -> None:
    app, _ = served()
    async with Client.memory(app, protocol_version=era) as client:
        assert "extensions" not in client.capabilities
        for method in ("skills/list", "skills/get", "resources/directory/read"):
            with pytest.raises(McpError) as refused:
                await client.request(method, {"uri": "skill://greeting/SKILL.md"})
            assert (refused.value.code, refused.value.message) == (
                -32601,
                f"Method not found: {method}",
            )
        read = await client.request("resources/read", {"uri": "skill://greeting/SKILL.md"})
        assert read["contents"][0]["text"] == SKILL_MD.decode()


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_declares_the_extension_is_served_the_same(era: str) -> None:
    app, _ = served()
    declared = {"extensions": {SKILLS_ID: {}}}
    async with Client.memory(app, protocol_version=era, capabilities=declared) as client:
        assert (await call(client, "skills/list"))["skills"] == [GREETING, FAREWELL]


def test_the_server_made_with_it_has_its_files_as_resources_before_any_other() -> None:
    skills = Skills()
    skills.add("first", description="Added before the server", body="")
    app = Server("bound", extensions=[skills])
    app.add_resource("text", "test://after", name="after")
    assert [r.uri for r in app.resources.resources] == ["skill://first/SKILL.md", "test://after"]
    skills.bind(app)  # bound once: binding again registers nothing twice
    assert len(app.resources) == 2


async def test_a_skill_added_after_the_server_is_made_is_listed_and_read() -> None:
    app, skills = served()
    uri = skills.add("later", description="Added after the server", body="Late.\n")
    assert uri == "skill://later/SKILL.md"
    async with Client.memory(app, protocol_version=ERAS[1]) as client:
        listed = await call(client, "skills/list")
        assert [s["uri"] for s in listed["skills"]] == [GREETING["uri"], FAREWELL["uri"], uri]
        read = await client.request("resources/read", {"uri": uri})
        assert read["contents"][0]["text"].endswith("\nLate.\n")


def test_one_skills_given_to_two_servers_registers_on_both() -> None:
    skills = Skills()
    one, two = Server("one", extensions=[skills]), Server("two", extensions=[skills])
    skills.add("shared", description="On both servers", body="")
    assert [[r.uri for r in app.resources.resources] for app in (one, two)] == [
        ["skill://shared/SKILL.md"],
        ["skill://shared/SKILL.md"],
    ]


@pytest.mark.parametrize("era", ERAS)
async def test_a_client_that_declares_nothing_is_served_after_middleware_is_added(
    era: str,
) -> None:
    seen: list[str] = []

    class Look(Middleware):
        async def on_request(self, request: RequestInfo, call_next: NextRequest) -> Any:
            seen.append(request.method)
            return await call_next(request)

    app, _ = served()
    app.add_middleware(Look())  # builds the method table again
    async with Client.memory(app, protocol_version=era) as client:
        assert (await call(client, "skills/list"))["skills"] == [GREETING, FAREWELL]
        got = await call(client, "skills/get", {"uri": FAREWELL["uri"]})
        assert got["skill"] == FAREWELL
        folder = await call(client, "resources/directory/read", {"uri": "skill://acme"})
        assert [r["uri"] for r in folder["resources"]] == ["skill://acme/social"]
    assert seen[-3:] == [  # through the middleware, after the handshake
        "skills/list",
        "skills/get",
        "resources/directory/read",
    ]


async def test_a_file_changed_on_disk_is_refused_not_served_with_a_stale_digest(
    tmp_path: Path,
) -> None:
    home = tmp_path / "notes"
    home.mkdir()
    (home / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes\n---\nBody\n")
    skills = Skills(tmp_path)
    app = Checked("changed", extensions=[skills])
    (home / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes\n---\nNew\n")
    async with Client.memory(app, protocol_version=ERAS[1]) as client:
        with pytest.raises(McpError) as refused:
            await client.request("resources/read", {"uri": "skill://notes/SKILL.md"})
        assert (refused.value.code, refused.value.message) == (
            -32603,
            "notes/SKILL.md changed on disk after the server loaded it; the server serves only"
            " the bytes its skills/list entry names (restart it to serve the new ones)",
        )


def test_two_skills_at_one_uri_are_refused() -> None:
    skills = Skills()
    skills.add("twice", description="One", body="")
    with pytest.raises(SkillError) as refused:
        skills.add("twice", description="Two", body="")
    assert str(refused.value) == "two skills are served at skill://twice/SKILL.md"
    assert [s.uri for s in skills.skills] == ["skill://twice/SKILL.md"]
