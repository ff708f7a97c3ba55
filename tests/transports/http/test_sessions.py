"""The session table: ids, idle expiry, the GET stream."""

from __future__ import annotations

import anyio
import pytest

from plainmcp import Server
from plainmcp.transports.http.sessions import Session, Sessions, new_session_id

pytestmark = pytest.mark.anyio


async def ignore(data: bytes) -> None:
    pass


def test_session_ids_are_random_visible_ascii() -> None:
    ids = {new_session_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 22 and all(0x21 <= ord(c) <= 0x7E for c in i) for i in ids)


async def test_idle_sessions_are_swept_and_busy_or_streaming_ones_are_kept() -> None:
    server = Server("s")
    table = Sessions(idle_timeout=10, limit=2, clock=lambda: 1000.0)
    old = Session("old", server.connect(ignore), last_active=940.0)
    streaming = Session("streaming", server.connect(ignore), last_active=940.0)
    receive = streaming.open_stream()
    table.add(old)
    table.add(streaming)
    assert await table.admit("newcomer", "address:127.0.0.1") is None  # old was swept
    newcomer = table.new(server, "newcomer", None, "address:127.0.0.1")
    assert table.get("old") is None
    assert old.conn.closing.is_set()
    assert table.get("streaming") is streaming
    streaming.push(b"x")
    assert receive.receive_nowait() == b"x"
    table.end(streaming)
    with pytest.raises(anyio.EndOfStream):
        receive.receive_nowait()
    assert [s.id for s in table] == [newcomer.id]


async def test_pushing_without_a_stream_drops_the_message() -> None:
    session = Session("s", Server("s").connect(ignore))
    session.push(b"lost")  # no GET stream open: nothing to deliver to, and no error
    receive = session.open_stream()
    session.push(b"kept")
    assert receive.receive_nowait() == b"kept"
