"""The authorization server mounted in the HTTP app: its routes beside the MCP endpoint, the
endpoint accepting its tokens without further setup, the protected-resource metadata naming
it; and a login started on one process completed on another, their state on one Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack

import httpx2
import pytest

from plainmcp import Client as McpClient
from plainmcp.authorization import AuthorizationServer, RedisAuthStore, SigningKey
from plainmcp.authorization.tokens import Grant, access_token
from plainmcp.transports.http.app import HttpApp
from tests.authorization.harness import (
    ISSUER,
    RESOURCE,
    FakeUpstream,
    browser_login,
    make_server,
    mcp_server,
    redeem,
)
from tests.cluster import RedisServer, redis_server

pytestmark = pytest.mark.anyio


@pytest.fixture
async def mounted() -> AsyncIterator[tuple[HttpApp, AuthorizationServer, FakeUpstream]]:
    upstream = FakeUpstream()
    authorization = make_server(upstream)
    app = mcp_server().http_app(authorization=authorization)
    async with app.lifespan():
        yield app, authorization, upstream


async def test_the_endpoint_names_the_proxy_and_accepts_its_tokens(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, _, upstream = mounted
    transport = httpx2.ASGITransport(app)
    async with httpx2.AsyncClient(transport=transport, base_url=ISSUER) as browser:
        prm = (await browser.get("/.well-known/oauth-protected-resource/mcp")).json()
        assert prm == {
            "resource": RESOURCE,
            "authorization_servers": [ISSUER],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["mcp:read", "mcp:write"],
        }
        metadata = await browser.get("/.well-known/oauth-authorization-server")
        assert metadata.json()["issuer"] == ISSUER
        unauthenticated = await browser.post("/mcp", json={})
        assert unauthenticated.status_code == 401
        back = await browser_login([browser], upstream, scope="mcp:read")
        tokens = await redeem(browser, back["code"])
    async with McpClient.http(
        f"{ISSUER}/mcp", auth=tokens["access_token"], transport=transport, listen=False
    ) as client:
        assert (await client.call_tool("whoami")).content[0].text == "someone"
        with pytest.raises(Exception, match="mcp:write"):
            await client.call_tool("write", {"text": "x"})


async def test_a_token_for_another_resource_is_refused_by_the_endpoint(
    mounted: tuple[HttpApp, AuthorizationServer, FakeUpstream],
) -> None:
    app, authorization, _ = mounted
    grant = Grant("alice", "app", "mcp:read", "https://other.example/mcp", "g-1")
    token, _, _ = access_token(authorization.key, ISSUER, grant, authorization.clock(), 60)
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url=ISSUER) as http:
        answer = await http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={
                "authorization": f"Bearer {token}",
                "accept": "application/json, text/event-stream",
            },
        )
    assert answer.status_code == 401
    assert 'error="invalid_token"' in answer.headers["www-authenticate"]


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


async def test_a_login_started_on_one_process_completes_on_another(redis: RedisServer) -> None:
    upstream = FakeUpstream()
    key = SigningKey()
    apps = [
        mcp_server().http_app(
            authorization=make_server(upstream, store=RedisAuthStore(redis.url), signing_key=key)
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
        back = await browser_login(browsers, upstream)  # authorize on 0, consent 1, callback 0
        tokens = await redeem(browsers[1], back["code"])
        refreshed = await browsers[0].post(
            "/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": tokens["refresh_token"],
                "client_id": "app",
            },
        )
        assert refreshed.status_code == 200
        again = await browsers[1].post(
            "/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": tokens["refresh_token"],
                "client_id": "app",
            },
        )
        assert again.json()["error"] == "invalid_grant"  # rotated on the other process
        # A rotated-out token used again ends its grant: every access token of it, everywhere.
        for app in apps:
            for access in (tokens["access_token"], refreshed.json()["access_token"]):
                answer = await httpx2.AsyncClient(
                    transport=httpx2.ASGITransport(app), base_url=ISSUER
                ).post("/mcp", json={}, headers={"authorization": f"Bearer {access}"})
                assert answer.status_code == 401
