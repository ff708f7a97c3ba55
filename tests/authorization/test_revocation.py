"""Revocation ends access, not only refreshes: an access token names its grant, and the MCP
endpoint refuses it once the grant (its refresh token revoked, or reused) or the token itself
is revoked; on both stores, and on two processes sharing Redis."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import httpx2
import jwt
import pytest

from plainmcp import Client as McpClient
from plainmcp.authorization import AuthorizationServer, AuthStore, RedisAuthStore, SigningKey
from plainmcp.authorization.messages import Request
from plainmcp.transports.http.app import HttpApp
from tests.authorization.conftest import Clock
from tests.authorization.harness import (
    ISSUER,
    FakeUpstream,
    browser_login,
    code_for,
    make_server,
    mcp_server,
    post,
    redeem,
    tokens_for,
)

pytestmark = pytest.mark.anyio

REFUSED = (
    401,
    'Bearer resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp",'
    ' error="invalid_token", error_description="the token is invalid or expired"',
)


async def whoami(app: HttpApp, token: str) -> str:
    async with McpClient.http(
        f"{ISSUER}/mcp", auth=token, transport=httpx2.ASGITransport(app), listen=False
    ) as client:
        return str((await client.call_tool("whoami")).content[0].text)


async def refused(app: HttpApp, token: str) -> tuple[int, str]:
    """The MCP endpoint's answer to a request bearing `token`: (status, WWW-Authenticate)."""
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url=ISSUER) as http:
        answer = await http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={
                "authorization": f"Bearer {token}",
                "accept": "application/json, text/event-stream",
            },
        )
    return answer.status_code, answer.headers.get("www-authenticate", "")


async def call(app: HttpApp, path: str, **form: str) -> httpx2.Response:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url=ISSUER) as http:
        return await http.post(path, data={"client_id": "app", **form})


@pytest.fixture
async def mounted(
    store: AuthStore, clock: Clock
) -> AsyncIterator[tuple[HttpApp, AuthorizationServer, FakeUpstream]]:
    upstream = FakeUpstream()
    authorization = make_server(upstream, store=store, clock=clock)
    app = mcp_server().http_app(authorization=authorization)
    async with app.lifespan():
        yield app, authorization, upstream


async def logged_in(app: HttpApp, upstream: FakeUpstream) -> dict[str, Any]:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url=ISSUER) as http:
        back = await browser_login([http], upstream)
        return await redeem(http, back["code"])


async def test_revoking_the_refresh_token_ends_the_access_token_issued_with_it(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, _, upstream = mounted
    tokens = await logged_in(app, upstream)
    assert await whoami(app, tokens["access_token"]) == "someone"
    revoked = await call(app, "/revoke", token=tokens["refresh_token"])
    assert (revoked.status_code, revoked.content) == (200, b"")
    assert revoked.headers["cache-control"] == "no-store"
    assert await refused(app, tokens["access_token"]) == REFUSED
    again = await call(
        app, "/token", grant_type="refresh_token", refresh_token=tokens["refresh_token"]
    )
    assert (again.status_code, again.json()) == (
        400,
        {"error": "invalid_grant", "error_description": "the refresh token is unknown or used"},
    )


async def test_the_access_token_names_its_grant_and_refreshes_keep_it(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, _, upstream = mounted
    first = await logged_in(app, upstream)
    second = (
        await call(app, "/token", grant_type="refresh_token", refresh_token=first["refresh_token"])
    ).json()
    claims = [
        jwt.decode(t["access_token"], options={"verify_signature": False}) for t in (first, second)
    ]
    assert claims[0]["grant_id"] == claims[1]["grant_id"]
    assert len(claims[0]["grant_id"]) == 43
    # Revoking the rotated-in refresh token ends the access tokens of every rotation.
    await call(app, "/revoke", token=second["refresh_token"])
    for each in (first, second):
        assert await refused(app, each["access_token"]) == REFUSED


async def test_a_hint_that_names_the_wrong_kind_still_finds_the_refresh_token(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, _, upstream = mounted
    tokens = await logged_in(app, upstream)
    await call(app, "/revoke", token=tokens["refresh_token"], token_type_hint="access_token")
    assert await refused(app, tokens["access_token"]) == REFUSED


async def test_revoking_the_access_token_ends_it_alone(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, _, upstream = mounted
    tokens = await logged_in(app, upstream)
    revoked = await call(app, "/revoke", token=tokens["access_token"])
    assert revoked.status_code == 200
    assert await refused(app, tokens["access_token"]) == REFUSED
    refreshed = await call(
        app, "/token", grant_type="refresh_token", refresh_token=tokens["refresh_token"]
    )
    assert refreshed.status_code == 200
    assert await whoami(app, refreshed.json()["access_token"]) == "someone"


async def test_another_clients_revocation_ends_nothing(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, authorization, upstream = mounted
    tokens = await logged_in(app, upstream)
    registered = await authorization.handle(
        Request("POST", "/register", body=b'{"redirect_uris": ["http://127.0.0.1:9/cb"]}')
    )
    other = registered.json()
    for token in (tokens["refresh_token"], tokens["access_token"]):
        answer = await call(
            app,
            "/revoke",
            token=token,
            client_id=other["client_id"],
            client_secret=other["client_secret"],
        )
        assert answer.status_code == 200
    assert await whoami(app, tokens["access_token"]) == "someone"


async def test_a_reused_refresh_token_ends_every_access_token_of_its_grant(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, _, upstream = mounted
    first = await logged_in(app, upstream)
    second = (
        await call(app, "/token", grant_type="refresh_token", refresh_token=first["refresh_token"])
    ).json()
    assert await whoami(app, second["access_token"]) == "someone"
    replay = await call(
        app, "/token", grant_type="refresh_token", refresh_token=first["refresh_token"]
    )
    assert replay.json()["error"] == "invalid_grant"
    for each in (first, second):
        assert await refused(app, each["access_token"]) == REFUSED


async def test_the_revoked_grant_is_kept_as_long_as_an_access_token_lives(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    server = make_server(upstream, store=store, clock=clock)
    body = (await tokens_for(server, (await code_for(server, upstream))["code"])).json()
    grant_id = jwt.decode(body["access_token"], options={"verify_signature": False})["grant_id"]
    await server.handle(post("/revoke", {"token": body["refresh_token"], "client_id": "app"}))
    assert await store.get("revoked-grant", grant_id) == {}
    if isinstance(store, RedisAuthStore):
        ttl = await store._redis().pttl(store._key("revoked-grant", grant_id))
        assert 899_000 < ttl <= 900_000
    else:
        clock.now += 899.9
        assert await store.get("revoked-grant", grant_id) == {}
        clock.now += 0.1
        assert await store.get("revoked-grant", grant_id) is None


class RevokingMidRefresh:
    """A store that, the moment a refresh stores its new family, lets `revoke` run first:
    a revocation racing a refresh, made deterministic."""

    def __init__(self, store: AuthStore) -> None:
        self.store = store
        self.revoke: Any = None

    async def put(self, kind: str, key: str, record: dict[str, Any], ttl: float) -> None:
        await self.store.put(kind, key, record, ttl)
        if kind == "family" and self.revoke is not None:
            revoke, self.revoke = self.revoke, None
            await revoke()

    async def get(self, kind: str, key: str) -> dict[str, Any] | None:
        return await self.store.get(kind, key)

    async def take(self, kind: str, key: str) -> dict[str, Any] | None:
        return await self.store.take(kind, key)

    async def delete(self, kind: str, key: str) -> None:
        await self.store.delete(kind, key)

    async def count(self, kind: str, key: str, ttl: float) -> int:
        return await self.store.count(kind, key, ttl)


async def test_a_revocation_during_a_refresh_ends_what_the_refresh_issued(
    store: AuthStore, clock: Clock, upstream: FakeUpstream
) -> None:
    racing = RevokingMidRefresh(store)
    server = make_server(upstream, store=racing, clock=clock)
    body = (await tokens_for(server, (await code_for(server, upstream))["code"])).json()
    refresh = {"grant_type": "refresh_token", "client_id": "app"}

    async def revoke() -> None:
        # The presented token is already taken: the revocation finds it spent.
        answer = await server.handle(
            post("/revoke", {"token": body["refresh_token"], "client_id": "app"})
        )
        assert answer.status == 200

    racing.revoke = revoke
    answer = await server.handle(
        post("/token", {**refresh, "refresh_token": body["refresh_token"]})
    )
    assert (answer.status, answer.json()) == (
        400,
        {"error": "invalid_grant", "error_description": "the grant was revoked"},
    )
    assert racing.revoke is None
    assert await server.verifier()(body["access_token"]) is None


async def test_revocation_on_one_process_ends_access_on_the_other(redis_url: str) -> None:
    upstream = FakeUpstream()
    key = SigningKey()
    store_prefix = f"test:{secrets.token_hex(8)}:"
    apps = [
        mcp_server().http_app(
            authorization=make_server(
                upstream, store=RedisAuthStore(redis_url, prefix=store_prefix), signing_key=key
            )
        )
        for _ in range(2)
    ]
    async with AsyncExitStack() as stack:
        browsers = []
        for app in apps:
            await stack.enter_async_context(app.lifespan())
            browsers.append(
                await stack.enter_async_context(
                    httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url=ISSUER)
                )
            )
        back = await browser_login(browsers, upstream)
        tokens = await redeem(browsers[0], back["code"])
        other = await logged_in(apps[1], upstream)  # a second login: its own grant
        for app in apps:
            assert await whoami(app, tokens["access_token"]) == "someone"
        revoked = await call(apps[1], "/revoke", token=tokens["refresh_token"])
        assert revoked.status_code == 200
        for app in apps:
            assert await refused(app, tokens["access_token"]) == REFUSED
            assert await whoami(app, other["access_token"]) == "someone"
        # And an access token revoked by its jti on one process is refused by the other.
        await call(apps[0], "/revoke", token=other["access_token"])
        assert await refused(apps[1], other["access_token"]) == REFUSED
