"""The Connection without a Server: handed the function that serves a request, and its shutdown
woken by events (`settled`), not polled."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest

from plainmcp.connection import STOPPED, Connection
from plainmcp.wire import jsonrpc
from plainmcp.wire.jsonrpc import Request

pytestmark = pytest.mark.anyio


async def test_settled_returns_when_the_last_request_has_answered() -> None:
    gate = asyncio.Event()
    started = asyncio.Event()

    async def serve(conn: Connection, request: Request) -> dict[str, Any]:
        started.set()
        await gate.wait()
        return jsonrpc.result_message(request.id, {"served": request.method})

    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    conn = Connection(serve, send)
    async with anyio.create_task_group() as tasks:
        conn.bind(tasks)
        conn.receive_nowait(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        await started.wait()
        waiter = asyncio.get_running_loop().create_task(conn.settled())
        assert conn.busy and not waiter.done()
        gate.set()
        await waiter
        assert not conn.busy
        assert sent == [b'{"jsonrpc":"2.0","id":1,"result":{"served":"ping"}}']


async def test_a_request_deaf_to_its_timeout_is_answered_once_by_the_transport() -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    async def serve(conn: Connection, request: Request) -> dict[str, Any]:
        started.set()
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
        return jsonrpc.result_message(request.id, {})

    sent: list[bytes] = []

    async def send(data: bytes) -> None:
        sent.append(data)

    conn = Connection(serve, send)
    async with anyio.create_task_group() as tasks:
        conn.bind(tasks)
        conn.receive_nowait(b'{"jsonrpc":"2.0","id":7,"method":"ping"}')
        await started.wait()
        assert conn.stop(STOPPED) == 1
        assert conn.stop(STOPPED) == 0  # timed out already
        await conn.answer_stopped()
        release.set()
        await conn.settled()
    assert sent == [jsonrpc.encode(jsonrpc.error_message(7, STOPPED))]
