"""A resources/read matches its URI against the templates once: the HTTP endpoint's scope check
(asked before serving, for the 403 step-up), the handler's scope check and the read share one
match, in memory, over stdio and over HTTP with bearer auth; registering or removing a
resource forgets what was matched. Counted at `UriTemplate.match`, which every template match
goes through."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from plainmcp import Principal
from plainmcp.client import Client
from plainmcp.resources import MEMO_SIZE
from plainmcp.transports.http import BearerAuth
from plainmcp.uri_templates import UriTemplate
from tests.servers_client.resource_matches import make_app

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent / "servers_client" / "resource_matches.py"
READER = Principal("reader", frozenset({"notes:read"}))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def matched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every URI matched against a template in this process, in order."""
    seen: list[str] = []
    original = UriTemplate.match

    def counted(self: UriTemplate, uri: str) -> Any:
        seen.append(uri)
        return original(self, uri)

    monkeypatch.setattr(UriTemplate, "match", counted)
    return seen


async def texts(client: Client, *uris: str) -> list[str | None]:
    return [(await client.read_resource(uri)).text for uri in uris]


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_one_match_per_read_in_memory(matched: list[str], rev: str) -> None:
    async with Client.memory(make_app(), protocol=rev, principal=READER) as client:
        assert await texts(client, "notes://by-id/a", "notes://by-id/b") == ["note a", "note b"]
        assert matched == ["notes://by-id/a", "notes://by-id/b"]
        assert await texts(client, "notes://by-id/a") == ["note a"]
    assert matched == ["notes://by-id/a", "notes://by-id/b"]  # the latest URIs are kept


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_one_match_per_read_over_stdio(rev: str) -> None:
    async with Client.stdio(sys.executable, str(SERVER), protocol=rev) as client:
        assert await texts(client, "notes://by-id/a", "notes://by-id/b") == ["note a", "note b"]
        assert (await client.call_tool("matches")).data == ["notes://by-id/a", "notes://by-id/b"]


@pytest.fixture
async def http_transport() -> AsyncIterator[httpx2.ASGITransport]:
    app = make_app().http_app(
        auth=BearerAuth({"reader-token": READER}.get, ["https://as.example.com"])
    )
    async with app.lifespan():
        yield httpx2.ASGITransport(app)


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
async def test_one_match_per_read_over_http_with_auth(
    matched: list[str], http_transport: httpx2.ASGITransport, rev: str
) -> None:
    async with Client.http(
        "http://127.0.0.1:8000/mcp",
        auth="reader-token",
        transport=http_transport,
        protocol=rev,
        listen=False,
    ) as client:
        assert await texts(client, "notes://by-id/a", "notes://by-id/b") == ["note a", "note b"]
    assert matched == ["notes://by-id/a", "notes://by-id/b"]


def test_a_change_to_the_registry_forgets_the_matches(matched: list[str]) -> None:
    app = make_app()
    resources = app.resources
    first = resources.match("notes://by-id/a")
    assert first is not None and first[1] == {"note": "a"}
    resources.remove("notes://by-id/{note}")
    assert resources.match("notes://by-id/a") is None
    resources.add(lambda key: key.upper(), "notes://by-id/{key}", name="upper")
    again = resources.match("notes://by-id/a")
    assert again is not None and (again[0].name, again[1]) == ("upper", {"key": "a"})
    assert matched == ["notes://by-id/a", "notes://by-id/a"]  # the empty registry matches none


def test_the_matches_kept_are_bounded(matched: list[str]) -> None:
    resources = make_app().resources
    uris = [f"notes://by-id/{n}" for n in range(MEMO_SIZE + 1)]
    for uri in uris:
        resources.match(uri)
    resources.match(uris[-1])  # kept
    resources.match(uris[0])  # pushed out by the newest
    long = "notes://by-id/" + "x" * 2048  # too long to keep
    resources.match(long)
    resources.match(long)
    assert matched == [*uris, uris[0], long, long]


def test_a_caller_changing_its_arguments_does_not_change_the_next_match() -> None:
    resources = make_app().resources
    first = resources.match("notes://by-id/a")
    assert first is not None
    first[1]["note"] = "changed"
    again = resources.match("notes://by-id/a")
    assert again is not None and again[1] == {"note": "a"}
