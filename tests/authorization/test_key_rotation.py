"""Rotating the signing key: the new key signs, the keys it replaced stay published and accepted
(for the tokens they signed that are still alive), and a key dropped ends its tokens; across
two servers sharing one store, as two deploys of one service would."""

from __future__ import annotations

import httpx2
import jwt
import pytest

from plainmcp.authorization import AuthStore, SigningKey
from tests.authorization.conftest import Clock
from tests.authorization.harness import ISSUER, FakeUpstream, make_server, mcp_server
from tests.authorization.test_revocation import REFUSED, call, logged_in, refused, whoami

pytestmark = pytest.mark.anyio


async def jwks(app: object) -> list[str]:
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url=ISSUER) as http:
        return [k["kid"] for k in (await http.get("/jwks")).json()["keys"]]


async def test_a_rotated_key_keeps_its_tokens_until_it_is_dropped(
    store: AuthStore, clock: Clock
) -> None:
    old, new = SigningKey(), SigningKey()
    upstream = FakeUpstream()
    before = mcp_server().http_app(
        authorization=make_server(upstream, store=store, clock=clock, signing_key=old)
    )
    during = mcp_server().http_app(
        authorization=make_server(
            upstream, store=store, clock=clock, signing_key=new, previous_keys=[old]
        )
    )
    after = mcp_server().http_app(
        authorization=make_server(upstream, store=store, clock=clock, signing_key=new)
    )
    async with before.lifespan(), during.lifespan(), after.lifespan():
        issued_before = await logged_in(before, upstream)
        assert jwt.get_unverified_header(issued_before["access_token"])["kid"] == old.kid
        assert await jwks(during) == [new.kid, old.kid]
        assert await whoami(during, issued_before["access_token"]) == "someone"
        # a refresh on the rotated deploy is signed with the new key, and taken everywhere new
        refreshed = (
            await call(
                during,
                "/token",
                grant_type="refresh_token",
                refresh_token=issued_before["refresh_token"],
            )
        ).json()
        assert jwt.get_unverified_header(refreshed["access_token"])["kid"] == new.kid
        assert await whoami(after, refreshed["access_token"]) == "someone"
        # once the old key is dropped, what it signed is refused
        assert await jwks(after) == [new.kid]
        assert await refused(after, issued_before["access_token"]) == REFUSED
