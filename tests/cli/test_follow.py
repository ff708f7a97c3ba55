"""follow.py (`call --all`): only the guards' own markers are followed; a tool's text that
merely reads like one is left as the tool wrote it."""

from __future__ import annotations

import pytest

from plainmcp import Server
from plainmcp.cli.follow import follow_all
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
