"""`inline=True` over a real stdio subprocess: the inline tool runs on the serving loop's thread
(the main one), the same function as a plain def tool in a worker thread, with equal results
otherwise."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from plainmcp.client import Client

SERVER = Path(__file__).parent / "servers" / "inline_tools.py"

pytestmark = pytest.mark.anyio


async def test_an_inline_tool_runs_on_the_loop_thread_and_a_def_tool_in_a_worker() -> None:
    async with Client.stdio(sys.executable, str(SERVER), protocol="2025-11-25") as client:
        inline = await client.call_tool("where_inline", {"a": 2, "b": 3})
        threaded = await client.call_tool("where_thread", {"a": 2, "b": 3})
    assert inline.raw == {
        "content": [{"type": "text", "text": '{"sum":5,"thread":"MainThread"}'}],
        "structuredContent": {"sum": 5, "thread": "MainThread"},
        "isError": False,
    }
    assert threaded.raw == {
        "content": [{"type": "text", "text": '{"sum":5,"thread":"AnyIO worker thread"}'}],
        "structuredContent": {"sum": 5, "thread": "AnyIO worker thread"},
        "isError": False,
    }
