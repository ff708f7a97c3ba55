"""The session limits, in memory: one client (its subject, else its address) cannot hold more
than `max_sessions_per_client` sessions, a new one evicts that client's least recently used
idle session, sessions in use are never evicted, and a full store evicts anyone's oldest idle
session before it refuses. Issue 23: 10,000 sessions of one client locked everyone out.
"""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import Server
from plainmcp.transports.http import BearerAuth, HttpApp, Principal
from plainmcp.transports.http.sessions import Sessions, StoreUnavailable
from tests.transports.http.asgi import Call, open_call, request
from tests.transports.http.test_app import INIT, Slow, in_session, make_server, rpc

pytestmark = pytest.mark.anyio

HOME = ("192.0.2.1", 40000)
"""The client most tests open sessions from."""


class Clock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def init(request_id: int = 1) -> dict[str, Any]:
    return {**INIT, "id": request_id}


async def opened(http: HttpApp, client: tuple[str, int] = HOME, **options: Any) -> str:
    """A new session (initialize, then notifications/initialized), from `client`."""
    call = await request(http, body=INIT, client=client, **options)
    assert call.status == 200, call.body
    session = call.headers["mcp-session-id"]
    headers = {**in_session(session), **options.pop("headers", {})}
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    note = await request(http, body=done, headers=headers, client=client, **options)
    assert (note.status, note.body) == (202, b"")
    return session


async def ping(http: HttpApp, session: str, request_id: int = 9, **options: Any) -> Call:
    return await request(http, body=rpc(request_id, "ping"), headers=in_session(session), **options)


async def assert_alive(http: HttpApp, session: str, **options: Any) -> None:
    call = await ping(http, session, **options)
    assert (call.status, call.json()) == (200, {"jsonrpc": "2.0", "id": 9, "result": {}})


async def assert_gone(http: HttpApp, session: str, **options: Any) -> None:
    call = await ping(http, session, **options)
    assert (call.status, call.json()) == (
        404,
        {
            "jsonrpc": "2.0",
            "id": 9,
            "error": {"code": -32600, "message": "Session not found: initialize again"},
        },
    )


def too_many_for_client(request_id: int, limit: int) -> dict[str, Any]:
    message = (
        f"Too many sessions for this client (the limit is {limit}); end one or try again later"
    )
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600, "message": message}}


def too_many(request_id: int) -> dict[str, Any]:
    message = "Too many sessions; try again later"
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600, "message": message}}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def slow() -> Slow:
    return Slow()


@pytest.fixture
def server(slow: Slow) -> Server:
    return make_server(slow)


async def test_a_client_at_its_limit_has_its_least_recently_used_idle_session_evicted(
    server: Server, clock: Clock
) -> None:
    http = server.http_app(max_sessions_per_client=3, session_evict_after=10, clock=clock)
    a = await opened(http)
    clock.now += 1
    b = await opened(http)
    clock.now += 1
    c = await opened(http)
    clock.now += 1
    await assert_alive(http, a)  # a is now the most recently used: b is the oldest
    clock.now += 10
    d = await opened(http)
    await assert_gone(http, b)
    assert [s.id for s in http.sessions] == [c, a, d]
    e = await opened(http)
    await assert_gone(http, c)
    for kept in (a, d, e):
        await assert_alive(http, kept)
    assert len(http.sessions) == 3


async def test_sessions_in_use_or_just_used_are_not_evicted_and_the_client_gets_429(
    server: Server, clock: Clock, slow: Slow
) -> None:
    http = server.http_app(max_sessions_per_client=3, session_evict_after=10, clock=clock)
    busy, streaming, idle = await opened(http), await opened(http), await opened(http)
    call = rpc(2, "tools/call", name="slow", arguments={})
    stream_headers = {**in_session(streaming), "accept": "text/event-stream"}
    async with (
        open_call(http, body=call, headers=in_session(busy)) as running,
        open_call(http, "GET", headers=stream_headers) as stream,
    ):
        await slow.started.wait()
        await stream.started()
        clock.now += 60
        fresh = await opened(http)  # evicts the only idle one
        await assert_gone(http, idle)
        clock.now += 60  # `fresh` is idle now, but it was used last: still evicted first
        assert [s.id for s in http.sessions] == [busy, streaming, fresh]
        newer = await opened(http)
        await assert_gone(http, fresh)
        # Now busy and streaming are in use and newer was used just now: no room.
        refused = await request(http, body=init(5), client=HOME)
        assert (refused.status, refused.json()) == (429, too_many_for_client(5, 3))
        assert refused.headers["retry-after"] == "10"
        clock.now += 9.5  # newer idle for 9.5 s: not yet
        refused = await request(http, body=init(6), client=HOME)
        assert (refused.status, refused.json()) == (429, too_many_for_client(6, 3))
        slow.gate.set()
        stream.disconnect()
    assert (running.status, running.json()["result"]["content"]) == (
        200,
        [{"type": "text", "text": "finished"}],
    )
    assert len(http.sessions) == 3
    clock.now += 10  # all three idle for 10 s now: newer was used before the other two ended
    latest = await opened(http)
    await assert_gone(http, newer)
    for kept in (busy, streaming, latest):
        await assert_alive(http, kept)


async def test_other_clients_still_get_sessions_and_a_full_store_evicts_the_oldest_idle_one(
    server: Server, clock: Clock
) -> None:
    http = server.http_app(
        max_sessions=4, max_sessions_per_client=2, session_evict_after=10, clock=clock
    )
    x, y, z = ("192.0.2.1", 1), ("192.0.2.2", 1), ("192.0.2.3", 1)
    x1, x2 = await opened(http, x), await opened(http, x)
    refused = await request(http, body=init(3), client=x)
    assert (refused.status, refused.json()) == (429, too_many_for_client(3, 2))
    clock.now += 1
    y1, y2 = await opened(http, y), await opened(http, y)
    # The store is full and nobody's session has been idle for 10 s: 503.
    full = await request(http, body=init(4), client=z)
    assert (full.status, full.json()) == (503, too_many(4))
    assert full.headers["retry-after"] == "10"
    clock.now += 9.5  # x's sessions idle for 10.5 s, y's for 9.5 s
    z1 = await opened(http, z)
    await assert_gone(http, x1, client=x)
    z2 = await opened(http, z)
    await assert_gone(http, x2, client=x)
    assert {s.id for s in http.sessions} == {y1, y2, z1, z2}
    full = await request(http, body=init(5), client=x)
    assert (full.status, full.json()) == (503, too_many(5))


async def test_anonymous_clients_count_per_address_and_authenticated_ones_per_subject(
    server: Server, clock: Clock
) -> None:
    http = server.http_app(max_sessions_per_client=1, session_evict_after=10, clock=clock)
    await opened(http, ("192.0.2.1", 1))
    refused = await request(http, body=init(2), client=("192.0.2.1", 2))  # another port
    assert (refused.status, refused.json()) == (429, too_many_for_client(2, 1))
    await opened(http, ("192.0.2.2", 1))
    await opened(http, ("2001:db8:1:2::1", 1))
    refused = await request(http, body=init(3), client=("2001:db8:1:2:ffff::9", 1))  # same /64
    assert (refused.status, refused.json()) == (429, too_many_for_client(3, 1))
    await opened(http, ("2001:db8:1:3::1", 1))
    assert len(http.sessions) == 4

    def verify(token: str) -> Principal | None:
        return Principal(token.removeprefix("token-"))

    authed = server.http_app(
        auth=BearerAuth(verify, ["https://auth.example.com"]),
        max_sessions_per_client=1,
        clock=clock,
    )
    ada = {"authorization": "Bearer token-ada"}
    await opened(authed, HOME, headers=ada)
    await opened(authed, HOME, headers={"authorization": "Bearer token-bob"})  # same address
    again = await request(authed, body=init(4), client=("192.0.2.9", 1), headers=ada)
    assert (again.status, again.json()) == (429, too_many_for_client(4, 1))


def test_what_a_session_counts_against() -> None:
    from plainmcp.transports.http.sessions import client_key

    assert client_key("sub:ada", ("192.0.2.1", 1)) == "sub:ada"  # plainmcp.model.identity's key
    assert client_key(None, ("192.0.2.1", 1)) == "address:192.0.2.1"
    assert client_key(None, ["192.0.2.1", 1]) == "address:192.0.2.1"  # some servers give lists
    assert client_key(None, ("::ffff:192.0.2.1", 1)) == "address:192.0.2.1"
    assert client_key(None, ("2001:db8:1:2:3:4:5:6", 1)) == "address:2001:db8:1:2::/64"
    assert client_key(None, ("/tmp/mcp.sock", 0)) == "address:/tmp/mcp.sock"
    assert client_key(None, None) == "address:unknown"


def test_the_limits_must_be_positive(server: Server) -> None:
    for options in ({"max_sessions": 0}, {"max_sessions_per_client": 0}):
        with pytest.raises(ValueError) as bad:
            server.http_app(**options)
        assert str(bad.value) == (
            "max_sessions and max_sessions_per_client must be at least 1,"
            " session_evict_after must not be negative"
        )


# --- the session store failing (issue 23: answered 200, or without the request's id) --------

STORE_DOWN = {"code": -32603, "message": "Internal error: the session store is unavailable"}


class Failing(Sessions):
    """A store that fails where the test says."""

    def __init__(self, where: str) -> None:
        super().__init__(1800, 100)
        self.where = where

    async def opened(self, session: Any) -> None:
        if self.where == "opened":
            raise StoreUnavailable("the store is down")

    async def find(self, session_id: str) -> Any:
        if self.where == "find":
            raise StoreUnavailable("the store is down")
        return await super().find(session_id)


async def test_an_initialize_the_store_could_not_keep_is_503_with_its_id_and_no_session(
    server: Server,
) -> None:
    http = server.http_app(sessions=Failing("opened"))
    call = await request(http, body=init(7))
    assert (call.status, call.json()) == (503, {"jsonrpc": "2.0", "id": 7, "error": STORE_DOWN})
    assert "mcp-session-id" not in call.headers
    assert len(http.sessions) == 0


async def test_requests_the_store_could_not_look_up_are_503_with_their_ids(
    server: Server,
) -> None:
    store = Failing("none")
    http = server.http_app(sessions=store)
    session = await opened(http)
    store.where = "find"
    single = await request(http, body=rpc("a-1", "ping"), headers=in_session(session))
    assert (single.status, single.json()) == (
        503,
        {"jsonrpc": "2.0", "id": "a-1", "error": STORE_DOWN},
    )
    note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
    answer = {"jsonrpc": "2.0", "id": "plainmcp-1", "result": {}}
    batch = [rpc(3, "ping"), note, answer, rpc(4, "tools/list")]
    headers = in_session(session, "2025-03-26")
    both = await request(http, body=batch, headers=headers, revision="2025-03-26")
    assert (both.status, both.json()) == (
        503,
        [
            {"jsonrpc": "2.0", "id": 3, "error": STORE_DOWN},
            {"jsonrpc": "2.0", "id": 4, "error": STORE_DOWN},
        ],
    )
    alone = await request(http, body=note, headers=in_session(session))
    assert (alone.status, alone.json()) == (503, {"jsonrpc": "2.0", "error": STORE_DOWN})
