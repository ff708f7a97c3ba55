"""@app.tool(limits=PayloadLimits(...)): a tool's own payload budget in place of the server's,
at a handshake revision and at 2026-07-28 (every message checked against its revision's schema)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from plainmcp import MemoryStore, PayloadLimits, Server
from plainmcp.store import StoredBlob
from tests.conftest import Session
from tests.continuation import as_documented
from tests.test_guards import big_text

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
META_2026 = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}
TEXT = big_text(5000)
UNLIMITED = PayloadLimits(text_block=None, text_result=None, structured=None)
BIG = {"rows": [{"id": i, "name": f"row {i}"} for i in range(3000)]}


class RecordingStore(MemoryStore):
    """A MemoryStore that remembers the TTL of every payload put into it."""

    def __init__(self) -> None:
        super().__init__()
        self.ttls: list[float] = []

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        self.ttls.append(ttl)
        return await super().put(data, mime_type, ttl)

    async def get(self, key: str) -> StoredBlob | None:
        return await super().get(key)


def make_server(**server: Any) -> Server:
    app = Server("budgets", **server)

    @app.tool(limits=PayloadLimits(text_block=1000, text_result=1000, ttl=60))
    def tight() -> str:
        return TEXT

    @app.tool
    def roomy() -> str:
        return TEXT

    @app.tool(limits=PayloadLimits(text_block=1000, offload=False))
    def kept() -> str:
        return TEXT

    @app.tool(limits=UNLIMITED)
    def everything() -> dict[str, list[dict[str, Any]]]:
        return BIG

    @app.tool
    def bounded() -> dict[str, list[dict[str, Any]]]:
        return BIG

    return app


async def call(s: Session, revision: str, name: str) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": {}}
    if revision == MODERN:
        params["_meta"] = META_2026
    return await s.result("tools/call", params)


async def open_session(s: Session, revision: str) -> None:
    if revision != MODERN:
        await s.initialize(revision)


def marker(shown: int, where: str) -> str:
    return f"\n…[truncated: showing {shown:,} of 5,000 characters. {where}]"


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
async def test_a_tools_limits_cut_its_text_and_no_other_tools(revision: str) -> None:
    store = RecordingStore()
    app = make_server(blob_store=store)
    async with Session(app, revision_hint=revision) as s:
        await open_session(s, revision)
        tight = await call(s, revision, "tight")
        text, link = tight["content"]
        uri = link["uri"]
        # 1,000 characters with the marker: cut at the end of the 14th line (14 lines of 58
        # characters and the paragraph's blank line, less the line break the marker starts with),
        # the last line break in the final fifth of the room left beside the marker.
        where = (
            'For the rest, call the tool read_more with arguments {"ref":"<ref>"}. The full'
            f" text is also at resource {uri}; read it with resources/read"
        )
        assert as_documented(text["text"]) == TEXT[:579] + marker(579, where)
        assert len(text["text"]) <= 1000
        assert link == {
            "type": "resource_link",
            "uri": uri,
            "name": "text-1.txt",
            "description": "The full text of the block cut above (5,000 characters); stored for"
            " 60 seconds.",
            "mimeType": "text/plain",
            "size": 5000,
        }
        assert store.ttls == [60]  # the tool's ttl, not the server's hour
        read = await s.result(
            "resources/read",
            {"uri": uri, "_meta": META_2026} if revision == MODERN else {"uri": uri},
        )
        assert read["contents"][0]["text"] == TEXT
        # The server's limits (40,000 characters) leave the same text whole in another tool.
        roomy = await call(s, revision, "roomy")
        assert roomy["content"] == [{"type": "text", "text": TEXT}]


async def test_a_tools_offload_setting_is_its_own() -> None:
    store = RecordingStore()
    async with Session(make_server(blob_store=store)) as s:
        await s.initialize("2025-11-25")
        kept = await call(s, "2025-11-25", "kept")
        where = "The rest was not sent; ask for less, e.g. a narrower query or the next page"
        assert kept["content"] == [{"type": "text", "text": TEXT[:870] + marker(870, where)}]
        assert store.ttls == []


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
async def test_a_tool_may_lift_the_limits_for_its_own_large_value(revision: str) -> None:
    compact = json.dumps(BIG, separators=(",", ":"))
    assert len(compact) > 40_000
    async with Session(make_server(), revision_hint=revision) as s:
        await open_session(s, revision)
        everything = await call(s, revision, "everything")
        assert everything["content"] == [{"type": "text", "text": compact}]
        assert everything["structuredContent"] == BIG
        assert everything["isError"] is False
        # Under the server's limits the same value is cut at a row (docs/results.md).
        bounded = await call(s, revision, "bounded")
        assert bounded["isError"] is False
        rows = bounded["structuredContent"]["rows"]
        assert rows == BIG["rows"][: len(rows)]
        partial = bounded["_meta"]["plainmcp/partial"]
        assert (partial["path"], partial["sent"], partial["total"]) == ("rows", len(rows), 3000)
        assert len(json.dumps(bounded["structuredContent"], separators=(",", ":"))) <= 40_000


async def test_a_tool_that_offloads_offers_resources_on_a_server_that_does_not() -> None:
    app = Server("x", payload_limits=PayloadLimits(offload=False))

    async def capabilities() -> dict[str, Any]:
        async with Session(app) as s:
            result = await s.initialize("2025-11-25")
            offered: dict[str, Any] = result["capabilities"]
            return offered

    assert "resources" not in await capabilities()
    app.add_tool(lambda: "x", name="offloads", limits=PayloadLimits())
    assert (await capabilities())["resources"] == {"subscribe": True, "listChanged": True}
    app.remove_tool("offloads")
    assert "resources" not in await capabilities()
    app.add_tool(lambda: "x", name="keeps", limits=PayloadLimits(offload=False))
    assert "resources" not in await capabilities()


def test_limits_are_a_payload_limits() -> None:
    app = Server("x")
    with pytest.raises(TypeError) as raised:
        app.add_tool(lambda: 1, name="one", limits={"text_block": 1000})  # type: ignore[arg-type]
    assert str(raised.value) == "tool 'one': limits= takes a PayloadLimits, not dict"
    limits = PayloadLimits(text_block=2000)
    assert app.add_tool(lambda: 1, name="two", limits=limits).limits is limits
    assert app.add_tool(lambda: 1, name="three").limits is None
