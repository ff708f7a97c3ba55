"""The client's skills end to end, at 2025-11-25 (initialize) and 2026-07-28 (stateless), over
Streamable HTTP: against plainmcp's own skills server (plainmcp.skills), every page listed and
each file read only when asked; against a server whose files are not what its entry says, each
load refused with its exact message and nothing more read."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import httpx2
import orjson
import pytest

from plainmcp import Server
from plainmcp.client import (
    SKILLS_EXTENSION,
    Client,
    LoadedSkill,
    McpError,
    Page,
    SkillInfo,
    SkillVerificationError,
)
from plainmcp.extensions import Extension
from plainmcp.skills import Skills
from plainmcp.skills.extension import SKILLS_GET, SKILLS_LIST
from plainmcp.wire.methods import Method

pytestmark = pytest.mark.anyio

URL = "http://127.0.0.1/mcp"
ERAS = ("2025-11-25", "2026-07-28")
OPENING = {
    "2025-11-25": ["initialize", "notifications/initialized"],
    "2026-07-28": ["server/discover"],
}
"""What each revision sends on connecting: no skill is listed, no file read."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Recording(httpx2.AsyncBaseTransport):
    """The ASGI transport, noting each JSON-RPC message the client POSTs: its method, and the
    `uri` or `cursor` it names."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.sent: list[tuple[str, str | None]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST":
            message = orjson.loads(await request.aread())
            params = message.get("params") or {}
            self.sent.append((message["method"], params.get("uri") or params.get("cursor")))
        return await self.inner.handle_async_request(request)


@asynccontextmanager
async def session(
    app: Server, protocol: str, **options: Any
) -> AsyncIterator[tuple[Client, Recording]]:
    http_app = app.http_app()
    async with http_app.lifespan():
        recording = Recording(httpx2.ASGITransport(http_app))
        async with Client.http(
            URL, protocol=protocol, transport=recording, listen=False, **options
        ) as client:
            yield client, recording


def catalog() -> Server:
    """plainmcp's skills server: three skills defined in Python, one skill per page."""
    skills = Skills()
    files: dict[str, str | bytes] = {"GUIDE.md": "G\n", "logo.png": b"\x89PNG\x00\xff"}
    skills.add("alpha", description="First", body="Read GUIDE.md.\n", files=files)
    skills.add("beta", description="Second", body="B\n", frontmatter={"license": "MIT"})
    skills.add("gamma", description="Third", body="C\n", prefix="team")
    return Server("catalog", extensions=[skills], page_size=1)


ALPHA = "skill://alpha/SKILL.md"


@pytest.mark.parametrize("protocol", ERAS)
async def test_listing_reads_every_page_and_no_file_is_read_until_asked(protocol: str) -> None:
    async with session(catalog(), protocol) as (client, recording):
        skills = await client.list_skills()
        assert [(s.uri, s.frontmatter) for s in skills] == [
            (ALPHA, {"name": "alpha", "description": "First"}),
            (
                "skill://beta/SKILL.md",
                {"name": "beta", "description": "Second", "license": "MIT"},
            ),
            ("skill://team/gamma/SKILL.md", {"name": "gamma", "description": "Third"}),
        ]
        first: Page[SkillInfo] = await client.page("skills/list")
        assert ([s.uri for s in first.items], first.next_cursor is not None) == ([ALPHA], True)
        assert await client.get_skill(ALPHA) == skills[0]
        listed = [*recording.sent]
        loaded = await client.load_skill(skills[0])
        after_load = [*recording.sent]
        guide = await client.read_skill_file(loaded, "GUIDE.md")
    cursors = [c for m, c in listed if m == "skills/list" and c is not None]
    assert listed == [
        *((m, None) for m in OPENING[protocol]),
        ("skills/list", None),
        ("skills/list", cursors[0]),
        ("skills/list", cursors[1]),
        ("skills/list", None),
        ("skills/get", ALPHA),
    ]
    assert after_load[len(listed) :] == [("resources/read", ALPHA)]
    assert recording.sent[len(after_load) :] == [("resources/read", "skill://alpha/GUIDE.md")]
    assert (loaded.body, loaded.frontmatter, guide) == (
        "\nRead GUIDE.md.\n",
        {"name": "alpha", "description": "First"},
        b"G\n",
    )


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_binary_file_comes_as_a_blob_and_is_verified_as_its_bytes(protocol: str) -> None:
    async with session(catalog(), protocol) as (client, recording):
        alpha = await client.get_skill(ALPHA)
        logo = await client.read_skill_file(alpha, "logo.png")
    assert logo == b"\x89PNG\x00\xff"
    assert recording.sent[len(OPENING[protocol]) :] == [
        ("skills/get", ALPHA),
        ("resources/read", "skill://alpha/logo.png"),
    ]


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_skill_known_only_by_its_uri_is_got_then_read(protocol: str) -> None:
    async with session(catalog(), protocol) as (client, recording):
        loaded = await client.load_skill("skill://team/gamma/SKILL.md")
        with pytest.raises(McpError) as unknown:
            await client.get_skill("skill://nobody/SKILL.md")
    assert isinstance(loaded, LoadedSkill) and loaded.body == "\nC\n"
    assert recording.sent[len(OPENING[protocol]) :] == [
        ("skills/get", "skill://team/gamma/SKILL.md"),
        ("resources/read", "skill://team/gamma/SKILL.md"),
        ("skills/get", "skill://nobody/SKILL.md"),
    ]
    assert (unknown.value.code, unknown.value.message) == (
        -32602,
        "No skill is served at skill://nobody/SKILL.md",
    )


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_server_without_the_extension_is_not_asked(protocol: str) -> None:
    async with session(Server("plain"), protocol) as (client, recording):
        with pytest.raises(McpError) as listing:
            await client.list_skills()
        with pytest.raises(McpError) as getting:
            await client.get_skill(ALPHA)
    assert [(e.value.code, e.value.message) for e in (listing, getting)] == [
        (-32601, f"The server does not declare {SKILLS_EXTENSION}: no skills/list"),
        (-32601, f"The server does not declare {SKILLS_EXTENSION}: no skills/get"),
    ]
    assert recording.sent == [(m, None) for m in OPENING[protocol]]


# --- a server whose files are not what its entry says ------------------------------------------

SKILL_URI = "skill://pdf-processing/SKILL.md"
DESCRIPTION = "Extract, fill, and assemble PDFs"
FORMS = "skill://pdf-processing/references/FORMS.md"
HONEST = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDFs\n---\n\nBody.\n"
SERVED = {
    "digest": HONEST.replace("Body.", "Evil!"),
    "size": HONEST + "more\n",
    "frontmatter": HONEST.replace("Extract, fill, and assemble PDFs", "Exfiltrate credentials"),
}
"""The SKILL.md each mode serves; the entry describes HONEST (for frontmatter: the bytes
served, so only the frontmatter differs)."""


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class Manifest(Extension):
    """A skills extension serving one fixed entry, whatever the files say."""

    id: ClassVar[str] = SKILLS_EXTENSION
    since: ClassVar[str] = "2025-11-25"

    def __init__(self, entry: dict[str, Any]) -> None:
        self.entry = entry

    def methods(self) -> Sequence[tuple[Method, Any]]:
        return ((SKILLS_LIST, self.list_skills), (SKILLS_GET, self.get_skill))

    async def list_skills(self, core: Any, ex: Any) -> Mapping[str, Any]:
        return {"skills": [self.entry]}

    async def get_skill(self, core: Any, ex: Any) -> Mapping[str, Any]:
        return {"skill": self.entry}


def tampered(mode: str) -> Server:
    described = SERVED[mode] if mode == "frontmatter" else HONEST
    entry = {
        "uri": SKILL_URI,
        "frontmatter": {"name": "pdf-processing", "description": DESCRIPTION},
        "resources": [
            {"uri": SKILL_URI, "digest": digest(described), "size": len(described.encode())},
            {"uri": FORMS, "digest": digest("Forms.\n"), "size": 7},
        ],
    }
    app = Server("tampered", extensions=[Manifest(entry)])
    app.add_resource(SERVED[mode], SKILL_URI, mime_type="text/markdown")
    app.add_resource("Forms, tampered.\n", FORMS, mime_type="text/markdown")
    return app


REFUSALS = {
    "digest": f"{SKILL_URI}: read content of {digest(SERVED['digest'])}, the entry says"
    f" {digest(HONEST)}",
    "size": f"{SKILL_URI}: read {len(SERVED['size'])} bytes, the entry says {len(HONEST)}",
    "frontmatter": f"{SKILL_URI}: frontmatter 'description' is 'Exfiltrate credentials', the"
    " entry says 'Extract, fill, and assemble PDFs'",
}


@pytest.mark.parametrize("protocol", ERAS)
@pytest.mark.parametrize("mode", list(SERVED))
async def test_a_skill_md_unlike_its_entry_is_refused_and_nothing_more_is_read(
    protocol: str, mode: str
) -> None:
    # The seam serves an extension's methods to a client that declared it: this one does.
    async with session(tampered(mode), protocol, extensions={SKILLS_EXTENSION: {}}) as (
        client,
        recording,
    ):
        (skill,) = await client.list_skills()
        with pytest.raises(SkillVerificationError) as caught:
            await client.load_skill(skill)
    assert (str(caught.value), caught.value.check, caught.value.uri) == (
        REFUSALS[mode],
        mode,
        SKILL_URI,
    )
    assert recording.sent[len(OPENING[protocol]) :] == [
        ("skills/list", None),
        ("resources/read", SKILL_URI),
    ]


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_supporting_file_unlike_its_entry_or_unlisted_is_refused(protocol: str) -> None:
    app = tampered("frontmatter")
    app.add_resource("---\nname: pdf-processing\n---\n", SKILL_URI.replace("SKILL", "OTHER"))
    async with session(app, protocol, extensions={SKILLS_EXTENSION: {}}) as (client, recording):
        (skill,) = await client.list_skills()
        with pytest.raises(SkillVerificationError) as wrong:
            await client.read_skill_file(skill, "references/FORMS.md")
        with pytest.raises(SkillVerificationError) as unlisted:
            await client.read_skill_file(skill, "OTHER.md")
    assert (str(wrong.value), wrong.value.check) == (
        f"{FORMS}: read 17 bytes, the entry says 7",
        "size",
    )
    assert (str(unlisted.value), unlisted.value.check) == (
        f"skill://pdf-processing/OTHER.md: is not listed in the entry of {SKILL_URI}",
        "unlisted",
    )
    assert recording.sent[len(OPENING[protocol]) :] == [
        ("skills/list", None),
        ("resources/read", FORMS),
    ]


@pytest.mark.parametrize("protocol", ERAS)
async def test_a_dynamic_skill_has_its_frontmatter_checked_and_its_files_read_as_served(
    protocol: str,
) -> None:
    entry = {
        "uri": SKILL_URI,
        "frontmatter": {"name": "pdf-processing", "description": DESCRIPTION},
        "resources": "dynamic",
    }
    app = Server("generated", extensions=[Manifest(entry)])
    app.add_resource(SERVED["digest"], SKILL_URI, mime_type="text/markdown")
    app.add_resource("Forms, generated.\n", FORMS, mime_type="text/markdown")
    async with session(app, protocol, extensions={SKILLS_EXTENSION: {}}) as (client, _):
        loaded = await client.load_skill(SKILL_URI)
        forms = await client.read_skill_file(loaded, "references/FORMS.md")
        forged = SkillInfo(SKILL_URI, {**entry["frontmatter"], "license": "MIT"}, "dynamic")
        with pytest.raises(SkillVerificationError) as caught:
            await client.load_skill(forged)
    assert (loaded.body, forms) == ("\nEvil!\n", b"Forms, generated.\n")
    assert str(caught.value) == f"{SKILL_URI}: frontmatter has no 'license', the entry has one"
