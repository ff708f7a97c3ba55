"""OAuth as an httpx2 Auth against an in-process resource and authorization server (httpx2's
MockTransport): login on 401, reuse, step-up, its limit, refresh, the store, one login for
concurrent requests, authorization server migration, a refused resource."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import pytest

from plainmcp.client.oauth import FileTokenStore, OAuth, OAuthError, ResourceMismatch

pytestmark = pytest.mark.anyio

MCP = "https://mcp.test/mcp"
PRM = "https://mcp.test/.well-known/oauth-protected-resource/mcp"


class Fake:
    """A resource server (GET needs `read`, POST needs `write`) and its authorization servers
    (as.test, as2.test), recording what the client sent."""

    def __init__(self) -> None:
        self.issuer = "https://as.test"
        self.resource = MCP
        self.needs = {"GET": ("read",), "POST": ("write",)}
        self.grantable = {"read", "write", "offline_access"}
        self.tokens: dict[str, tuple[str, ...]] = {}
        self.refresh: dict[str, tuple[str, ...]] = {}
        self.codes: dict[str, tuple[str, ...]] = {}
        self.authorized: list[dict[str, str]] = []
        self.registered: list[str] = []
        self.token_forms: list[dict[str, str]] = []
        self.mcp_auth: list[str | None] = []
        self.clock = 1000.0
        self.n = 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host, path = request.url.host, request.url.path
        if host == "mcp.test" and path == "/.well-known/oauth-protected-resource/mcp":
            doc = {"resource": self.resource, "authorization_servers": [self.issuer]}
            return httpx2.Response(200, json={**doc, "scopes_supported": ["read"]})
        if host == "mcp.test" and path == "/mcp":
            return self.mcp(request)
        issuer = f"https://{host}"
        if path == "/.well-known/oauth-authorization-server":
            return httpx2.Response(
                200,
                json={
                    "issuer": issuer,
                    "authorization_endpoint": f"{issuer}/authorize",
                    "token_endpoint": f"{issuer}/token",
                    "registration_endpoint": f"{issuer}/register",
                    "code_challenge_methods_supported": ["S256"],
                    "scopes_supported": ["read", "write", "offline_access"],
                    "authorization_response_iss_parameter_supported": True,
                    "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                },
            )
        if path == "/register":
            self.registered.append(host)
            body = json.loads(request.content)
            assert body["redirect_uris"] == [Redirect.redirect_uri]
            return httpx2.Response(201, json={"client_id": f"client-{host}", "client_secret": "s"})
        if path == "/token":
            return self.token(host, dict(parse_qsl(request.content.decode())), request)
        return httpx2.Response(404)

    def mcp(self, request: httpx2.Request) -> httpx2.Response:
        header = request.headers.get("authorization")
        self.mcp_auth.append(header)
        token = header.removeprefix("Bearer ") if header else None
        if token not in self.tokens:
            challenge = f'Bearer resource_metadata="{PRM}"'
            return httpx2.Response(401, headers={"www-authenticate": challenge})
        need = self.needs[request.method]
        if not set(need) <= set(self.tokens[token]):
            challenge = f'Bearer error="insufficient_scope", scope="{" ".join(need)}"'
            return httpx2.Response(403, headers={"www-authenticate": challenge})
        return httpx2.Response(200, json={"ok": True})

    def token(self, host: str, form: dict[str, str], request: httpx2.Request) -> httpx2.Response:
        self.token_forms.append({**form, "host": host, "auth": request.headers["authorization"]})
        assert form["resource"] == MCP
        if form["grant_type"] == "authorization_code":
            scopes = self.codes.pop(form["code"])
        elif form["refresh_token"] in self.refresh:
            scopes = self.refresh[form["refresh_token"]]
        else:
            return httpx2.Response(400, json={"error": "invalid_grant"})
        self.n += 1
        access, refresh = f"at-{self.n}", f"rt-{self.n}"
        self.tokens[access] = scopes
        self.refresh[refresh] = scopes
        answer = {"access_token": access, "token_type": "Bearer", "expires_in": 60}
        return httpx2.Response(200, json={**answer, "refresh_token": refresh})

    def revoke_access(self) -> None:
        self.tokens.clear()


class Redirect:
    """The user consents at once: the authorize endpoint's redirect, as data."""

    redirect_uri = "http://127.0.0.1:5/callback"

    def __init__(self, fake: Fake) -> None:
        self.fake = fake

    async def __call__(self, authorization_url: str) -> Mapping[str, str]:
        url = urlsplit(authorization_url)
        query = dict(parse_qsl(url.query))
        self.fake.authorized.append({"host": url.netloc, **query})
        code = f"code-{len(self.fake.authorized)}"
        asked = tuple(query.get("scope", "").split())
        self.fake.codes[code] = tuple(s for s in asked if s in self.fake.grantable)
        return {"code": code, "state": query["state"], "iss": f"https://{url.netloc}"}


def oauth(fake: Fake, **options: object) -> OAuth:
    return OAuth(
        redirect=Redirect(fake),
        transport=httpx2.MockTransport(fake.handle),
        clock=lambda: fake.clock,
        **options,  # type: ignore[arg-type]
    )


def client(fake: Fake, auth: OAuth) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(auth=auth, transport=httpx2.MockTransport(fake.handle))


async def test_a_401_logs_in_once_and_later_requests_reuse_the_token() -> None:
    fake = Fake()
    async with client(fake, oauth(fake)) as http:
        assert (await http.get(MCP)).status_code == 200
        assert (await http.get(MCP)).status_code == 200
    assert fake.mcp_auth == [None, "Bearer at-1", "Bearer at-1"]
    assert fake.registered == ["as.test"]
    (authorized,) = fake.authorized
    assert {
        k: authorized[k] for k in ("client_id", "scope", "resource", "code_challenge_method")
    } == {
        "client_id": "client-as.test",
        "scope": "read offline_access",
        "resource": MCP,
        "code_challenge_method": "S256",
    }
    (form,) = fake.token_forms
    assert (form["grant_type"], form["redirect_uri"], form["auth"]) == (
        "authorization_code",
        Redirect.redirect_uri,
        "Basic Y2xpZW50LWFzLnRlc3Q6cw==",  # client-as.test:s
    )


async def test_a_403_insufficient_scope_steps_up_with_the_union_of_scopes() -> None:
    fake = Fake()
    async with client(fake, oauth(fake)) as http:
        assert (await http.get(MCP)).status_code == 200
        assert (await http.post(MCP)).status_code == 200
    assert [a["scope"] for a in fake.authorized] == [
        "read offline_access",
        "read offline_access write",
    ]
    assert fake.mcp_auth == [None, "Bearer at-1", "Bearer at-1", "Bearer at-2"]
    assert fake.registered == ["as.test"]  # the registration is reused


async def test_a_scope_the_server_never_grants_is_asked_for_once() -> None:
    fake = Fake()
    fake.needs["POST"] = ("admin",)
    async with client(fake, oauth(fake)) as http:
        assert (await http.get(MCP)).status_code == 200
        assert (await http.post(MCP)).status_code == 403
        assert (await http.post(MCP)).status_code == 403  # asked for already: no new login
    assert [a["scope"] for a in fake.authorized] == [
        "read offline_access",
        "read offline_access admin",
    ]


async def test_an_expired_token_is_refreshed_before_it_is_sent() -> None:
    fake = Fake()
    async with client(fake, oauth(fake)) as http:
        await http.get(MCP)
        fake.clock += 31  # 60 s tokens, refreshed 30 s before they expire
        await http.get(MCP)
    assert fake.mcp_auth == [None, "Bearer at-1", "Bearer at-2"]
    assert [(f["grant_type"], f.get("refresh_token")) for f in fake.token_forms] == [
        ("authorization_code", None),
        ("refresh_token", "rt-1"),
    ]
    assert len(fake.authorized) == 1


async def test_a_refused_token_is_refreshed_then_a_refused_refresh_logs_in_again() -> None:
    fake = Fake()
    async with client(fake, oauth(fake)) as http:
        await http.get(MCP)
        fake.revoke_access()
        assert (await http.get(MCP)).status_code == 200
        fake.revoke_access()
        fake.refresh.clear()
        assert (await http.get(MCP)).status_code == 200
    assert fake.mcp_auth == [
        None,
        "Bearer at-1",
        "Bearer at-1",
        "Bearer at-2",
        "Bearer at-2",
        "Bearer at-3",
    ]
    assert [f["grant_type"] for f in fake.token_forms] == [
        "authorization_code",
        "refresh_token",
        "refresh_token",
        "authorization_code",
    ]


async def test_the_file_store_carries_a_login_to_the_next_program(tmp_path: Path) -> None:
    fake = Fake()
    store = FileTokenStore(str(tmp_path))
    async with client(fake, oauth(fake, store=store)) as http:
        await http.get(MCP)
    async with client(fake, oauth(fake, store=FileTokenStore(str(tmp_path)))) as http:
        await http.get(MCP)
    assert fake.mcp_auth == [None, "Bearer at-1", "Bearer at-1"]
    assert len(fake.authorized) == 1
    saved = await store.load(MCP)
    assert saved is not None and saved["token"]["access_token"] == "at-1"


async def test_concurrent_refused_requests_share_one_login() -> None:
    fake = Fake()
    statuses: list[int] = []
    async with client(fake, oauth(fake)) as http:

        async def get() -> None:
            statuses.append((await http.get(MCP)).status_code)

        async with anyio.create_task_group() as tasks:
            for _ in range(3):
                tasks.start_soon(get)
    assert statuses == [200, 200, 200]
    assert len(fake.authorized) == 1 and fake.registered == ["as.test"]


async def test_a_new_authorization_server_gets_a_new_registration() -> None:
    fake = Fake()
    async with client(fake, oauth(fake)) as http:
        await http.get(MCP)
        fake.issuer = "https://as2.test"
        fake.revoke_access()
        fake.refresh.clear()
        assert (await http.get(MCP)).status_code == 200
    assert fake.registered == ["as.test", "as2.test"]
    assert [(a["host"], a["client_id"]) for a in fake.authorized] == [
        ("as.test", "client-as.test"),
        ("as2.test", "client-as2.test"),
    ]
    assert [(f["host"], f["grant_type"]) for f in fake.token_forms] == [
        ("as.test", "authorization_code"),
        ("as.test", "refresh_token"),  # refused: then the login finds the new server
        ("as2.test", "authorization_code"),
    ]


async def test_metadata_for_another_resource_is_refused_before_any_login() -> None:
    fake = Fake()
    fake.resource = "https://evil.test/mcp"
    async with client(fake, oauth(fake)) as http:
        with pytest.raises(ResourceMismatch) as refused:
            await http.get(MCP)
    assert isinstance(refused.value, OAuthError)
    assert fake.authorized == [] and fake.registered == []
