"""tests/http_server.py itself: a port taken between free_port and the server's bind."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import http_server as hs

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo_server.py"


@pytest.fixture
def taken() -> Iterator[int]:
    """A port another socket listens on."""
    with socket.create_server(("127.0.0.1", 0)) as holder:
        yield holder.getsockname()[1]


def test_a_port_taken_before_the_server_binds_it_is_replaced(
    taken: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ports = iter([taken])
    real = hs.free_port
    monkeypatch.setattr(hs, "free_port", lambda: next(ports, None) or real())
    # The first server finds its port taken (the holder accepts connections, so only the
    # server's own exit says so), the second gets a free one.
    with hs.http_server(DEMO) as server:
        assert server.port != taken
        assert server.proc.poll() is None
