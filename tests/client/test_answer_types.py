"""One type for one thing: the ElicitResult and Root a server function gets from `ctx` are the
ones a client's callbacks return, end to end in memory and over stdio, in a handshake session
(server-to-client requests) and at 2026-07-28 (input-required results)."""

from __future__ import annotations

import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

import plainmcp
import plainmcp.client
from plainmcp import ElicitResult, Root
from plainmcp.client import Client, Elicitation
from tests.client.servers.asking import app

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parent / "servers" / "asking.py"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def open_client(transport: str, **options: Any) -> AbstractAsyncContextManager[Client]:
    if transport == "memory":
        return Client.memory(app, **options)
    return Client.stdio(sys.executable, "-m", "plainmcp", "run", str(SERVER), **options)


def test_the_client_names_are_the_server_side_types() -> None:
    assert plainmcp.client.ElicitResult is plainmcp.ElicitResult
    assert plainmcp.client.Root is plainmcp.Root
    assert ElicitResult("decline") == ElicitResult("decline", None)


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_an_elicit_callback_returning_elicit_result_reaches_the_tool(
    transport: str, rev: str
) -> None:
    asked: list[Elicitation] = []

    def elicit(request: Elicitation) -> ElicitResult:
        asked.append(request)
        return (
            ElicitResult("accept", {"name": "Ada"}) if len(asked) == 1 else ElicitResult("cancel")
        )

    async with open_client(transport, protocol=rev, elicit=elicit) as client:
        accepted = await client.call_tool("ask_name")
        cancelled = await client.call_tool("ask_name")
    assert (accepted.is_error, accepted.text) == (
        False,
        "ElicitResult(action='accept', content={'name': 'Ada'})",
    )
    assert (cancelled.is_error, cancelled.text) == (
        False,
        "ElicitResult(action='cancel', content=None)",
    )
    assert [(a.message, a.requested_schema) for a in asked] == [
        ("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    ] * 2


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_a_roots_callback_returning_roots_reaches_the_tool(transport: str, rev: str) -> None:
    given = [Root("file:///work", "work"), Root("file:///tmp")]
    async with open_client(transport, protocol=rev, roots=lambda: given) as client:
        result = await client.call_tool("roots")
    assert (result.is_error, result.text) == (
        False,
        "[Root(uri='file:///work', name='work'), Root(uri='file:///tmp', name=None)]",
    )


@pytest.mark.parametrize("rev", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_a_sample_callback_returning_sample_result_reaches_the_tool(
    transport: str, rev: str
) -> None:
    answer = plainmcp.SampleResult("assistant", {"type": "text", "text": "hi"}, "m-1", "endTurn")
    async with open_client(transport, protocol=rev, sample=lambda request: answer) as client:
        result = await client.call_tool("ask_model")
    assert (result.is_error, result.text) == (
        False,
        "SampleResult(role='assistant', content={'type': 'text', 'text': 'hi'}, model='m-1',"
        " stop_reason='endTurn')",
    )
