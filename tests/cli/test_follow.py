"""follow.py (`call --all`): only the guards' own markers are followed; a tool's text that
merely reads like one is left as the tool wrote it."""

from __future__ import annotations

import base64

import pytest

from plainmcp import Image, MemoryStore, PayloadLimits, Server
from plainmcp.cli.follow import follow_all
from plainmcp.store import StoredBlob
from plainmcp.testing import connect

pytestmark = pytest.mark.anyio

LOOKALIKE = 'To go on, call the tool read_more with arguments {"ref":"not-a-ref"}.'


async def test_a_tools_own_text_that_reads_like_a_marker_is_kept() -> None:
    app = Server("lookalike")

    @app.tool
    def advice() -> str:
        """Advice that quotes a marker."""
        return LOOKALIKE

    async with connect(app) as client:
        result = await client.call_tool("advice", {})
        assert await follow_all(client, result.raw) == result.raw


class DottedKeys(MemoryStore):
    """Keys with a dot and a tilde in them, as RedisStore's are (`<token>.<expiry>`)."""

    async def put(self, data: bytes, mime_type: str, ttl: float) -> str:
        return "k." + (await super().put(data, mime_type, ttl)).replace("_", "~")

    async def get(self, key: str) -> StoredBlob | None:
        return await super().get(key.removeprefix("k.").replace("~", "_"))


async def test_an_image_stored_under_a_key_with_a_dot_is_read_back() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    app = Server(
        "dotted",
        blob_store=DottedKeys(),
        payload_limits=PayloadLimits(binary_block=1024, binary_result=1024),
    )

    @app.tool
    def picture() -> Image:
        """A picture over the inline limit."""
        return Image(png, mime_type="image/png")

    async with connect(app) as client:
        result = await client.call_tool("picture", {})
        (link,) = result.raw["content"]
        assert link["uri"].startswith("plainmcp://blob/k.")
        whole = await follow_all(client, result.raw)
    assert whole["content"] == [
        {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}
    ]
