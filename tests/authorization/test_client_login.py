"""End to end with plainmcp's own client: `Client.http(url, auth=OAuth(...))` logs in to
examples/oauth_server.py (a plainmcp server behind plainmcp's authorization server) with npm
oidc-provider as the upstream, all over real HTTP on 127.0.0.1. The redirect handler is the
headless browser (tests/authorization/browser.py) through the consent page and oidc-provider's
login and consent; the client's clock is injected to expire its access token. It steps up
from mcp:read to mcp:write on a tool's 403. The official Python SDK's OAuth client and the
TypeScript SDK's (tests/interop/ts_oauth_login.mjs, driven here) go through the same: a login,
a refresh, a step-up, a revocation and the login after it, each asserted as that SDK does it."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import jwt
import pytest
from mcp import Client as SdkClient
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth import oauth2 as sdk_oauth2
from mcp.client.streamable_http import streamable_http_client
from mcp.shared import auth_utils as sdk_auth_utils
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata, OAuthToken
from mcp.types import TextContent
from pydantic import AnyUrl

from plainmcp.client import Client
from plainmcp.client.oauth import OAuth
from plainmcp.client.oauth.store import MemoryTokenStore
from tests.auth.provider import _first_line
from tests.auth.test_sdk_oauth import Memory
from tests.authorization.browser import authorization_request, log_in
from tests.authorization.test_end_to_end import proxy_url
from tests.http_server import free_port
from tests.interop.tools import INTEROP_DIR, node22_bin

pytestmark = pytest.mark.anyio
__all__ = ["proxy_url"]  # the fixture, shared with test_end_to_end.py


class BrowserRedirect:
    """A redirect handler that signs in headlessly: the browser follows the authorization URL
    through every page to `redirect_uri` (nobody listens there) and the query it ends with is
    the redirect's. `logins` counts the sign-ins."""

    def __init__(self) -> None:
        self.redirect_uri = f"http://127.0.0.1:{free_port()}/callback"
        self.logins = 0

    async def __call__(self, authorization_url: str) -> Mapping[str, str]:
        self.logins += 1
        landed = await anyio.to_thread.run_sync(log_in, authorization_url, self.redirect_uri)
        return dict(parse_qsl(urlsplit(landed).query, keep_blank_values=True))


class Clock:
    """The client's seconds, moved on by the test instead of waiting."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def claims_of(http: httpx2.AsyncClient, issuer: str, mcp: str, token: str) -> dict[str, Any]:
    """The access token's claims, checked against the proxy's published key."""
    keys = (await http.get(f"{issuer}/jwks")).json()["keys"]
    assert len(keys) == 1
    key = jwt.PyJWK(keys[0])
    return dict(jwt.decode(token, key, algorithms=["ES256"], audience=mcp, issuer=issuer))


async def test_the_client_logs_in_refreshes_and_logs_in_again_after_revocation(
    proxy_url: str,
) -> None:
    mcp = f"{proxy_url}/mcp"
    redirect = BrowserRedirect()
    store = MemoryTokenStore()
    clock = Clock(1_000_000_000.0)
    auth = OAuth(redirect=redirect, store=store, clock=clock)
    async with (
        httpx2.AsyncClient(timeout=30.0) as http,
        Client.http(mcp, auth=auth, listen=False) as client,
    ):
        assert (await client.call_tool("whoami")).text == "logged in"
        assert redirect.logins == 1
        stored = await store.load(mcp)
        assert stored is not None
        registered = stored["client"]
        # registered by DCR at the proxy: its issuer is the proxy's (None when pre-registered)
        # and its id is the proxy's, not a metadata document URL
        assert registered["issuer"] == proxy_url
        assert not registered["client_id"].startswith("http")
        assert registered["auth_method"] == "client_secret_basic"
        assert (stored["issuer"], stored["resource"]) == (proxy_url, mcp)
        assert stored["token_endpoint"] == f"{proxy_url}/token"
        first = stored["token"]
        assert first["expires_at"] == clock.now + 900
        assert first["scopes"] == ["mcp:read"]
        claims = await claims_of(http, proxy_url, mcp, first["access_token"])
        assert (claims["aud"], claims["client_id"]) == (mcp, registered["client_id"])
        assert claims["scope"] == "mcp:read"

        clock.now += 900  # the access token expired: the next call refreshes it first
        assert (await client.call_tool("whoami")).text == "logged in"
        assert redirect.logins == 1
        stored = await store.load(mcp)
        assert stored is not None
        second = stored["token"]
        assert second["access_token"] != first["access_token"]
        assert second["refresh_token"] not in (None, first["refresh_token"])  # rotated
        assert second["expires_at"] == clock.now + 900
        claims = await claims_of(http, proxy_url, mcp, second["access_token"])
        assert (claims["aud"], claims["client_id"]) == (mcp, registered["client_id"])

        revoked = await http.post(
            f"{proxy_url}/revoke",
            data={"token": second["refresh_token"], "token_type_hint": "refresh_token"},
            auth=(registered["client_id"], registered["client_secret"]),
        )
        assert revoked.status_code == 200
        clock.now += 900  # expired again, its refresh token revoked: the next call logs in
        assert (await client.call_tool("whoami")).text == "logged in"
        assert redirect.logins == 2
        stored = await store.load(mcp)
        assert stored is not None
        assert stored["client"] == registered  # the same registration, reused
        third = stored["token"]
        assert third["refresh_token"] not in (first["refresh_token"], second["refresh_token"])
        claims = await claims_of(http, proxy_url, mcp, third["access_token"])
        assert (claims["aud"], claims["client_id"]) == (mcp, registered["client_id"])


class SdkClock:
    """Stands in for the `time` module the SDK's OAuth client reads its clock from, `ahead`
    seconds ahead of the real one: its access token expires without a wait."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def time(self) -> float:
        return time.time() + self.ahead


async def revoke(
    http: httpx2.AsyncClient, issuer: str, token: str, client_id: str, secret: str | None
) -> None:
    """RFC 7009 at the proxy, authenticated as the client that holds `token` (HTTP Basic, or
    its bare client_id for a public client)."""
    if secret is None:
        answer = await http.post(f"{issuer}/revoke", data={"token": token, "client_id": client_id})
    else:
        answer = await http.post(
            f"{issuer}/revoke", data={"token": token}, auth=(client_id, secret)
        )
    assert answer.status_code == 200, answer.text


async def test_the_official_sdk_client_logs_in_refreshes_steps_up_and_is_revoked(
    proxy_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The official Python SDK's OAuthClientProvider: it refreshes only an access token its
    own clock says expired; a 401 (its access token revoked) sends it to the browser again,
    though it holds a refresh token. `remember`'s 403 insufficient_scope steps it up to both
    scopes; its refresh token revoked (the grant, and so its access token, ended), the next
    call's 401 logs it in again, for the 401's scope alone."""
    mcp = f"{proxy_url}/mcp"
    browser = BrowserRedirect()
    landed: list[Mapping[str, str]] = []
    asked: list[dict[str, str]] = []

    async def redirect_handler(authorization_url: str) -> None:
        asked.append(dict(parse_qsl(urlsplit(authorization_url).query)))
        landed.append(await browser(authorization_url))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult.model_validate(landed[-1])

    clock = SdkClock()
    monkeypatch.setattr(sdk_oauth2, "time", clock)  # where it checks a token's expiry
    monkeypatch.setattr(sdk_auth_utils, "time", clock)  # where it reckons one
    storage = Memory()
    oauth = OAuthClientProvider(
        server_url=mcp,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl(browser.redirect_uri)], client_name="the official SDK"
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with (
        httpx2.AsyncClient(timeout=30.0) as plain,
        httpx2.AsyncClient(auth=oauth, timeout=30.0) as http,
        SdkClient(streamable_http_client(mcp, http_client=http)) as client,
    ):

        async def text(tool: str, arguments: dict[str, Any]) -> str:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result
            block = result.content[0]
            assert isinstance(block, TextContent)
            return block.text

        async def scope_of(token: OAuthToken) -> str:
            claims = await claims_of(plain, proxy_url, mcp, token.access_token)
            assert (claims["aud"], claims["client_id"]) == (mcp, client_id)
            assert claims["scope"] == token.scope
            return str(claims["scope"])

        assert await text("whoami", {}) == "logged in"
        assert browser.logins == 1
        assert landed[0]["iss"] == proxy_url
        registered = storage.client
        assert registered is not None and registered.client_id is not None
        client_id = registered.client_id
        assert not client_id.startswith("http")  # registered by DCR
        assert registered.token_endpoint_auth_method == "client_secret_basic"
        assert registered.client_secret is not None
        first = storage.tokens
        assert first is not None and first.refresh_token is not None
        assert await scope_of(first) == "mcp:read"

        # its access token revoked: the 401 takes it back to the browser, not to a refresh
        await revoke(
            plain, proxy_url, first.access_token, registered.client_id, registered.client_secret
        )
        assert await text("whoami", {}) == "logged in"
        assert browser.logins == 2
        second = storage.tokens
        assert second is not None and second.refresh_token is not None
        assert second.access_token != first.access_token
        assert second.refresh_token != first.refresh_token  # a new grant, not a refresh
        # though the refresh token it held then was live (it refreshes here, for the test)
        live = await plain.post(
            f"{proxy_url}/token",
            data={"grant_type": "refresh_token", "refresh_token": first.refresh_token},
            auth=(registered.client_id, registered.client_secret),
        )
        assert live.status_code == 200, live.text
        assert await scope_of(second) == "mcp:read"

        # its clock past the access token's 900 s: the next call refreshes first, no login
        assert second.expires_in == 900
        clock.ahead = 901
        assert await text("whoami", {}) == "logged in"
        assert browser.logins == 2
        third = storage.tokens
        assert third is not None and third.refresh_token is not None
        assert third.access_token != second.access_token
        assert third.refresh_token != second.refresh_token  # rotated
        assert await scope_of(third) == "mcp:read"

        # the step-up: remember's 403 insufficient_scope, a login for both scopes, the call again
        assert await text("remember", {"note": "milk"}) == "remembered 'milk' (1 notes)"
        assert browser.logins == 3
        assert [a["scope"] for a in asked] == ["mcp:read", "mcp:read", "mcp:read mcp:write"]
        assert {a["client_id"] for a in asked} == {registered.client_id}  # one registration
        writing = storage.tokens
        assert writing is not None and writing.refresh_token is not None
        assert await scope_of(writing) == "mcp:read mcp:write"
        assert await text("remember", {"note": "eggs"}) == "remembered 'eggs' (2 notes)"
        assert browser.logins == 3

        # its refresh token revoked: the grant ends with the access token issued from it, and
        # the next call's 401 logs in again, asking for the 401's mcp:read
        await revoke(
            plain, proxy_url, writing.refresh_token, registered.client_id, registered.client_secret
        )
        assert await text("whoami", {}) == "logged in"
        assert browser.logins == 4
        assert asked[-1]["scope"] == "mcp:read"
        last = storage.tokens
        assert last is not None and last.refresh_token is not None
        assert last.access_token != writing.access_token
        assert last.refresh_token != writing.refresh_token
        assert await scope_of(last) == "mcp:read"
        assert storage.client == registered  # the same registration throughout


async def test_the_client_logs_in_for_reading_and_steps_up_to_write(proxy_url: str) -> None:
    """The 401 names mcp:read, so the first login asks for it alone; `remember` needs
    mcp:write too: its 403 insufficient_scope makes the client log in again for both, and the
    call it refused then succeeds; the wider token's refresh keeps both."""
    mcp = f"{proxy_url}/mcp"
    metadata = f"{proxy_url}/.well-known/oauth-protected-resource/mcp"
    redirect = BrowserRedirect()
    store = MemoryTokenStore()
    clock = Clock(1_000_000_000.0)
    auth = OAuth(redirect=redirect, store=store, clock=clock)
    async with (
        httpx2.AsyncClient(timeout=30.0) as http,
        Client.http(mcp, auth=auth, listen=False) as client,
    ):
        refused = await http.post(mcp, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{metadata}", scope="mcp:read"'
        )
        resource = (await http.get(metadata)).json()
        assert resource["scopes_supported"] == ["mcp:read", "mcp:write"]

        assert (await client.call_tool("whoami")).text == "logged in"
        assert redirect.logins == 1
        stored = await store.load(mcp)
        assert stored is not None
        registered = stored["client"]
        reading = stored["token"]
        assert (stored["scopes"], reading["scopes"]) == (["mcp:read"], ["mcp:read"])
        claims = await claims_of(http, proxy_url, mcp, reading["access_token"])
        assert (claims["aud"], claims["client_id"]) == (mcp, registered["client_id"])
        assert claims["scope"] == "mcp:read"

        call = {"name": "remember", "arguments": {"note": "milk"}}
        result = await client.call_tool("remember", call["arguments"])
        assert result.text == "remembered 'milk' (1 notes)"
        assert redirect.logins == 2  # the step-up
        stored = await store.load(mcp)
        assert stored is not None
        assert stored["client"] == registered  # the same registration, reused
        writing = stored["token"]
        assert writing["access_token"] != reading["access_token"]
        both = ["mcp:read", "mcp:write"]
        assert (stored["scopes"], writing["scopes"]) == (both, both)
        claims = await claims_of(http, proxy_url, mcp, writing["access_token"])
        assert (claims["aud"], claims["client_id"]) == (mcp, registered["client_id"])
        assert claims["scope"] == "mcp:read mcp:write"

        # what the client was told: the reading token's 403 names every scope the call needs
        message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
        headers = {"authorization": f"Bearer {reading['access_token']}"}
        forbidden = await http.post(mcp, json=message, headers=headers)
        assert forbidden.status_code == 403
        assert forbidden.headers["www-authenticate"] == (
            'Bearer error="insufficient_scope", scope="mcp:read mcp:write",'
            f' resource_metadata="{metadata}", error_description="the token lacks scope mcp:write"'
        )

        clock.now += 900  # expired: refreshed, with both scopes, and no login
        assert (await client.call_tool("remember", {"note": "eggs"})).text == (
            "remembered 'eggs' (2 notes)"
        )
        assert (await client.call_tool("whoami")).text == "logged in"
        assert redirect.logins == 2
        stored = await store.load(mcp)
        assert stored is not None
        renewed = stored["token"]
        assert renewed["refresh_token"] not in (None, writing["refresh_token"])
        assert renewed["scopes"] == both
        claims = await claims_of(http, proxy_url, mcp, renewed["access_token"])
        assert claims["scope"] == "mcp:read mcp:write"


@dataclass
class TsRun:
    """What tests/interop/ts_oauth_login.mjs printed: the authorization URLs it was sent to,
    in order, each call's text, its pauses' records and its last record (registration,
    tokens, logins)."""

    authorized: list[str]
    texts: list[str]
    done: dict[str, Any]
    paused: list[dict[str, Any]] = field(default_factory=list)


async def run_ts_client(
    mcp: str,
    calls: list[dict[str, Any]],
    on_pause: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
) -> TsRun:
    """Runs the TypeScript SDK client on `calls`, each login it asks for done by the browser
    (each redirect's state and iss checked) and its query written back on its stdin; at each
    {"pause": NAME} among them, `on_pause` is awaited with what the client holds, then the
    client is told to go on."""
    redirect = f"http://127.0.0.1:{free_port()}/callback"
    node = subprocess.Popen(
        [str(node22_bin()), "ts_oauth_login.mjs", mcp, redirect, json.dumps(calls)],
        cwd=INTEROP_DIR,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    run = TsRun([], [], {})
    try:
        assert node.stdin is not None and node.stdout is not None
        while True:
            line = _first_line(node.stdout, 20)
            assert line, node.stderr.read() if node.stderr else "no output"
            record = json.loads(line)
            if record["kind"] == "done":
                run.done = record
                break
            if record["kind"] == "call":
                run.texts.append(record["text"])
                continue
            if record["kind"] == "pause":
                run.paused.append(record)
                assert on_pause is not None, record
                await on_pause(record)
                node.stdin.write(json.dumps({"kind": "continue"}) + "\n")
                node.stdin.flush()
                continue
            assert record["kind"] == "authorize"
            run.authorized.append(record["url"])
            asked = dict(parse_qsl(urlsplit(record["url"]).query))
            assert asked["redirect_uri"] == redirect
            landed = await anyio.to_thread.run_sync(log_in, record["url"], redirect)
            back = dict(parse_qsl(urlsplit(landed).query))
            assert back["state"] == asked["state"], back
            node.stdin.write(urlsplit(landed).query + "\n")
            node.stdin.flush()
        assert node.wait(10) == 0, node.stderr.read() if node.stderr else ""
    finally:
        if node.poll() is None:
            node.kill()
            node.wait(10)
    return run


async def test_the_typescript_sdk_client_logs_in_through_the_proxy(proxy_url: str) -> None:
    """tests/interop/ts_oauth_login.mjs: the SDK registers (DCR), prints the authorization URL
    its provider was sent to and reads the redirect's query back; the browser logs in."""
    mcp = f"{proxy_url}/mcp"
    run = await run_ts_client(mcp, [{"tool": "whoami", "arguments": {}}])
    assert run.texts == ["logged in"]
    [authorize] = run.authorized
    query = authorization_request(authorize, proxy_url, mcp, "mcp:read")
    tokens = run.done.pop("tokens")
    client_id = query["client_id"]
    # the proxy knows no client beforehand here: an id that is no metadata document URL is
    # the one its registration endpoint gave (DCR), and the SDK stamped it with the proxy
    assert client_id.startswith("mcp-")
    assert run.done == {
        "kind": "done",
        "client": {"client_id": client_id, "issuer": proxy_url, "scope": "mcp:read"},
        "logins": 1,
    }
    assert sorted(tokens) == [
        "access_token",
        "expires_in",
        "issuer",
        "refresh_token",
        "scope",
        "token_type",
    ]
    assert (tokens["token_type"], tokens["scope"], tokens["issuer"]) == (
        "Bearer",
        "mcp:read",
        proxy_url,
    )
    assert tokens["expires_in"] == 900
    async with httpx2.AsyncClient(timeout=30.0) as http:
        claims = await claims_of(http, proxy_url, mcp, tokens["access_token"])
    assert (claims["aud"], claims["client_id"], claims["scope"]) == (mcp, client_id, "mcp:read")


async def test_the_typescript_sdk_client_steps_up_through_the_proxy(proxy_url: str) -> None:
    """The SDK registers with the scope of its first login (mcp:read); its step-up for
    `remember` asks the same registration for mcp:read mcp:write, which the proxy grants."""
    mcp = f"{proxy_url}/mcp"
    calls = [
        {"tool": "whoami", "arguments": {}},
        {"tool": "remember", "arguments": {"note": "milk"}},
        {"tool": "whoami", "arguments": {}},
    ]
    run = await run_ts_client(mcp, calls)
    assert run.texts == ["logged in", "remembered 'milk' (1 notes)", "logged in"]
    first, second = (dict(parse_qsl(urlsplit(url).query)) for url in run.authorized)
    assert (first["scope"], second["scope"]) == ("mcp:read", "mcp:read mcp:write")
    client_id = first["client_id"]
    assert second["client_id"] == client_id  # the same registration
    tokens = run.done["tokens"]
    assert (run.done["logins"], tokens["scope"]) == (2, "mcp:read mcp:write")
    async with httpx2.AsyncClient(timeout=30.0) as http:
        claims = await claims_of(http, proxy_url, mcp, tokens["access_token"])
    assert (claims["aud"], claims["client_id"], claims["scope"]) == (
        mcp,
        client_id,
        "mcp:read mcp:write",
    )


async def test_the_typescript_sdk_client_refreshes_steps_up_and_is_revoked(
    proxy_url: str,
) -> None:
    """Its access token revoked, the 401 makes the SDK refresh (no login); `remember`'s 403
    steps it up; its refresh token revoked (the grant and its access token ended), the 401's
    refresh is refused (invalid_grant), the provider drops its tokens and the SDK sends the
    user to log in again, for the 401's scope."""
    mcp = f"{proxy_url}/mcp"
    calls: list[dict[str, Any]] = [
        {"tool": "whoami", "arguments": {}},
        {"pause": "revoke the access token"},
        {"tool": "whoami", "arguments": {}},
        {"pause": "refreshed"},
        {"tool": "remember", "arguments": {"note": "milk"}},
        {"pause": "revoke the refresh token"},
        {"tool": "whoami", "arguments": {}},
    ]
    revoked = {
        "revoke the access token": "access_token",
        "revoke the refresh token": "refresh_token",
    }
    async with httpx2.AsyncClient(timeout=30.0) as http:

        async def on_pause(record: dict[str, Any]) -> None:
            if record["name"] in revoked:  # a public client: its client_id authenticates it
                token = record["tokens"][revoked[record["name"]]]
                await revoke(http, proxy_url, token, record["client"]["client_id"], None)

        run = await run_ts_client(mcp, calls, on_pause)
        assert run.texts == [
            "logged in",
            "logged in",
            "remembered 'milk' (1 notes)",
            "logged in",
        ]
        assert [p["name"] for p in run.paused] == [c["pause"] for c in calls if "pause" in c]
        asked = [dict(parse_qsl(urlsplit(url).query)) for url in run.authorized]
        assert [a["scope"] for a in asked] == ["mcp:read", "mcp:read mcp:write", "mcp:read"]
        client_id = asked[0]["client_id"]
        assert {a["client_id"] for a in asked} == {client_id}  # one registration throughout
        assert {r["client"]["client_id"] for r in [*run.paused, run.done]} == {client_id}
        logins = [r["logins"] for r in [*run.paused, run.done]]
        assert logins == [
            1,
            1,
            2,
            3,
        ]  # the refresh took no login; the step-up and the revocation did
        first, refreshed, writing, last = (r["tokens"] for r in [*run.paused, run.done])
        assert refreshed["access_token"] != first["access_token"]
        assert refreshed["refresh_token"] not in (None, first["refresh_token"])  # rotated
        held = [first["refresh_token"], refreshed["refresh_token"]]
        assert writing["refresh_token"] not in (None, *held)
        assert last["refresh_token"] not in (None, *held, writing["refresh_token"])
        scopes = []
        for tokens in (first, refreshed, writing, last):
            claims = await claims_of(http, proxy_url, mcp, tokens["access_token"])
            assert (claims["aud"], claims["client_id"]) == (mcp, client_id)
            assert claims["scope"] == tokens["scope"]
            scopes.append(claims["scope"])
        assert scopes == ["mcp:read", "mcp:read", "mcp:read mcp:write", "mcp:read"]
