"""/register is limited per client address (a registration is stored for a year: unbounded,
they fill the store): counted in the store on the server's clock, so processes sharing it
count together; over the limit, 429 with Retry-After until the window ends."""

from __future__ import annotations

import json

import httpx2
import pytest

from plainmcp.authorization import AuthorizationServer, AuthStore, RateLimit, RedisAuthStore
from plainmcp.authorization.messages import Request, Response
from tests.authorization.conftest import Clock
from tests.authorization.harness import ISSUER, FakeUpstream, make_server, mcp_server

pytestmark = pytest.mark.anyio

BODY = (
    b'{"redirect_uris": ["http://127.0.0.1:3000/callback"], "token_endpoint_auth_method": "none"}'
)
HOST = "203.0.113.5"
WINDOW_END = 1_900_000_020.0
"""The clock starts at 1_900_000_000: its minute ends 20 s later (31_666_667 * 60)."""


def refusal(seconds: int) -> Response:
    description = f"too many registrations from this address: try again in {seconds} s"
    return Response(
        429,
        (
            ("content-type", "application/json"),
            ("cache-control", "no-store"),
            ("pragma", "no-cache"),
            ("retry-after", str(seconds)),
        ),
        json.dumps(
            {"error": "temporarily_unavailable", "error_description": description},
            separators=(",", ":"),
        ).encode(),
    )


async def register(
    server: AuthorizationServer, host: str | None = HOST, body: bytes = BODY
) -> Response:
    return await server.handle(Request("POST", "/register", body=body, client_host=host))


def twin(store: AuthStore) -> AuthStore:
    """What another process sharing `store` has: the same memory, or Redis under the same
    prefix."""
    if isinstance(store, RedisAuthStore):
        return RedisAuthStore(store.url, prefix=store.prefix)
    return store


async def test_over_the_limit_is_429_with_retry_after_until_the_window_ends(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    assert clock.now + 20 == WINDOW_END
    server = make_server(upstream, store=store, clock=clock, registration_limit=RateLimit(3))
    assert (await register(server)).status == 201
    refused_body = await register(server, body=b"not json")  # a refused one counts too
    assert refused_body.json()["error"] == "invalid_client_metadata"
    assert (await register(server)).status == 201
    assert await register(server) == refusal(20)
    clock.now += 19.5
    assert await register(server) == refusal(1)
    clock.now = WINDOW_END  # a new window: counted from zero
    for _ in range(3):
        assert (await register(server)).status == 201
    assert await register(server) == refusal(60)


async def test_each_address_has_its_own_count(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    server = make_server(upstream, store=store, clock=clock, registration_limit=RateLimit(1))
    assert (await register(server)).status == 201
    assert (await register(server)).status == 429
    assert (await register(server, "2001:db8::1")).status == 201
    assert (await register(server, None)).status == 201  # no address: one count of its own
    assert (await register(server, None)).status == 429


async def test_processes_sharing_a_store_count_together(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    limit = RateLimit(3, per=60.0)
    one = make_server(upstream, store=store, clock=clock, registration_limit=limit)
    other = make_server(upstream, store=twin(store), clock=clock, registration_limit=limit)
    assert [(await register(s)).status for s in (one, other, one)] == [201, 201, 201]
    assert await register(other) == refusal(20)


async def test_the_default_is_20_a_minute_and_none_is_no_limit(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    limited = make_server(upstream, store=store, clock=clock)
    assert [(await register(limited)).status for _ in range(21)] == [201] * 20 + [429]
    unlimited = make_server(upstream, store=store, clock=clock, registration_limit=None)
    assert [(await register(unlimited)).status for _ in range(25)] == [201] * 25


def test_a_limit_must_admit_something() -> None:
    with pytest.raises(ValueError, match="count >= 1 and per > 0"):
        RateLimit(0)
    with pytest.raises(ValueError, match="count >= 1 and per > 0"):
        RateLimit(1, per=0.0)


async def test_the_limit_is_on_the_wire_by_the_socket_address(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    authorization = make_server(upstream, store=store, clock=clock, registration_limit=RateLimit(1))
    app = mcp_server().http_app(authorization=authorization)
    async with app.lifespan():
        answers = []
        for address in ("198.51.100.7", "198.51.100.7", "198.51.100.8"):
            transport = httpx2.ASGITransport(app, client=(address, 4000))
            async with httpx2.AsyncClient(transport=transport, base_url=ISSUER) as http:
                answers.append(
                    await http.post(
                        "/register", content=BODY, headers={"content-type": "application/json"}
                    )
                )
    assert [a.status_code for a in answers] == [201, 429, 201]
    assert answers[1].headers["retry-after"] == "20"
    assert answers[1].json() == {
        "error": "temporarily_unavailable",
        "error_description": "too many registrations from this address: try again in 20 s",
    }
