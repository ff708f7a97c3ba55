"""The official Python SDK client (PyPI `mcp`) follows the continuation as a model would.

tests/interop/parts_server.py serves 150,000 characters of text and 10,000 structured rows,
both over the payload limits. Over stdio and Streamable HTTP, in the SDK's legacy mode (the
2025-11-25 handshake) and its 2026-07-28 mode, the client calls each tool, finds the one
sentence "call the tool read_more with arguments {...}." in the text with the shared regex, makes
that call, and again with each part, until no sentence is left. The text and the rows come back
exactly, and every message the server wrote (recorded by tests/interop/relay.py over stdio, by
an httpx transport over HTTP) is valid against the official schema of the revision spoken.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from tests.continuation import next_call
from tests.http_server import HttpServer, http_server
from tests.interop.parts_server import long_text, rows
from tests.interop.test_http_clients import Recorder
from tests.mcp_schemas import validate_relay_record, validate_server_message

pytestmark = pytest.mark.anyio

HERE = Path(__file__).parent
SERVER = HERE / "parts_server.py"
RELAY = HERE / "relay.py"
MODES = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
"""SDK mode -> the revision it speaks with plainmcp."""
TEXT = long_text()
ROWS = [asdict(row) for row in rows()]


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if block.type == "text"]


def sentence_in(result: CallToolResult) -> tuple[str, dict[str, Any]] | None:
    """What a model reads: every text block of the result; the call its one sentence names."""
    return next_call("\n".join(texts(result)))


async def rebuild_text(client: Client) -> tuple[str, int]:
    first = await client.call_tool("log", {})
    assert not first.is_error
    cut = texts(first)[0]
    text = cut[: cut.rindex("\n…[truncated: ")]
    call, calls = sentence_in(first), 0
    while call is not None:
        calls += 1
        part = await client.call_tool(*call)
        assert not part.is_error, texts(part)
        text += texts(part)[0]
        call = sentence_in(part)
    return text, calls


async def rebuild_rows(client: Client, mode: str) -> tuple[list[Any], int]:
    first = await client.call_tool("table", {})
    assert not first.is_error
    value = first.structured_content
    assert value is not None
    # 2025-11-25 carries a list as {"result": [...]}; 2026-07-28 as itself.
    table: list[Any] = value["result"] if mode == "legacy" else value  # type: ignore[call-overload]
    assert first.meta is not None
    partial = first.meta["plainmcp/partial"]
    assert (partial["path"], partial["sent"], partial["total"]) == ("", len(table), 10_000)
    call, calls = sentence_in(first), 0
    while call is not None:
        calls += 1
        part = await client.call_tool(*call)
        # Read as a model reads it: the part's text is the JSON of {"items", "from", "total"}
        # (for a client whose profile reads only structuredContent, plainmcp leaves that out
        # of read_more's results, so that the marker beside it reaches the model).
        items: dict[str, Any] = json.loads(texts(part)[0])
        assert part.structured_content in (None, items)
        assert (items["from"], items["total"]) == (len(table), 10_000)
        table.extend(items["items"])
        call = sentence_in(part)
    return table, calls


# --- stdio -----------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def stdio_client(mode: str, record: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable, args=[str(RELAY), str(record), sys.executable, str(SERVER)]
    )
    async with Client(params, mode=mode, read_timeout_seconds=60) as client:  # type: ignore[arg-type]
        yield client


@pytest.mark.parametrize("mode", list(MODES))
async def test_stdio_text_and_rows_are_rebuilt_by_following_the_continuation(
    mode: str, tmp_path: Path
) -> None:
    record = tmp_path / "stdio.jsonl"
    async with stdio_client(mode, record) as client:
        assert client.protocol_version == MODES[mode]
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == ["log", "table", "read_more"]
        text, text_calls = await rebuild_text(client)
        table, table_calls = await rebuild_rows(client, mode)
    assert text == TEXT
    assert text_calls == 3
    assert table == ROWS
    assert table_calls == 13
    assert validate_relay_record(record, MODES[mode]) >= 2 + text_calls + table_calls


# --- HTTP ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def parts_http() -> Iterator[HttpServer]:
    with http_server(SERVER) as server:
        yield server


@pytest.mark.parametrize("mode", list(MODES))
async def test_http_text_and_rows_are_rebuilt_by_following_the_continuation(
    mode: str, parts_http: HttpServer
) -> None:
    recorder = Recorder()
    async with (
        httpx2.AsyncClient(transport=recorder, timeout=httpx2.Timeout(30, read=120)) as http,
        Client(
            streamable_http_client(parts_http.url, http_client=http),
            mode=mode,  # type: ignore[arg-type]
            read_timeout_seconds=60,
        ) as client,
    ):
        assert client.protocol_version == MODES[mode]
        text, text_calls = await rebuild_text(client)
        table, table_calls = await rebuild_rows(client, mode)
    assert text == TEXT
    assert table == ROWS
    assert (text_calls, table_calls) == (3, 13)
    checked = 0
    for exchange in recorder.exchanges:
        if exchange.method != "POST" or exchange.status != 200:
            continue
        body = exchange.body
        method = body.get("method") if isinstance(body, dict) else None
        for message in exchange.messages():
            validate_server_message(message, MODES[mode], method=method)
            checked += 1
    assert checked >= 1 + text_calls + table_calls
