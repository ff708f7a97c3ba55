"""A stand-in upstream provider (httpx2.MockTransport: its token and userinfo endpoints, a
login that needs no browser) and a login driven through AuthorizationServer.handle on plain
Request objects: the protocol without sockets; and the same login by a browser over HTTP to
an MCP app the server is mounted in (one process, or several in turn)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2

from plainmcp import Server
from plainmcp.authorization import AuthorizationServer, Client, Upstream
from plainmcp.authorization.messages import Request, Response

ISSUER = "http://127.0.0.1:8000"
RESOURCE = f"{ISSUER}/mcp"
REDIRECT = "http://127.0.0.1:3000/callback"
UPSTREAM_SECRET = "upstream-secret-never-logged"


def challenge(verifier: str) -> str:
    return (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )


def query_of(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


@dataclass
class FakeUpstream:
    """The upstream provider: it "logs in" `user` for any authorization URL, checks its own
    PKCE at the token endpoint, and answers userinfo for the token it issued."""

    user: str = "alice"
    issuer: str = "https://idp.example"
    codes: dict[str, str] = field(default_factory=dict)
    """Its codes, to the PKCE challenge they were issued for."""
    tokens: set[str] = field(default_factory=set)
    fetched: list[str] = field(default_factory=list)

    def upstream(self) -> Upstream:
        return Upstream(
            "fake",
            f"{self.issuer}/authorize",
            f"{self.issuer}/token",
            f"{self.issuer}/userinfo",
            "proxy-at-idp",
            UPSTREAM_SECRET,
            ("openid",),
            issuer=self.issuer,
        )

    def log_in(self, authorize_url: str) -> dict[str, str]:
        """The callback's query after the user logs in at `authorize_url`."""
        asked = query_of(authorize_url)
        assert asked["client_id"] == "proxy-at-idp"
        assert asked["code_challenge_method"] == "S256"
        code = secrets.token_urlsafe(8)
        self.codes[code] = asked["code_challenge"]
        return {"code": code, "state": asked["state"], "iss": self.issuer}

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.fetched.append(str(request.url))
        if request.url.path == "/token":
            form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
            expected = self.codes.pop(form.get("code", ""), None)
            if (
                expected is None
                or challenge(form.get("code_verifier", "")) != expected
                or form.get("client_secret") != UPSTREAM_SECRET
            ):
                return httpx2.Response(400, json={"error": "invalid_grant"})
            token = f"upstream-token-{secrets.token_urlsafe(8)}"
            self.tokens.add(token)
            return httpx2.Response(200, json={"access_token": token, "token_type": "Bearer"})
        if request.url.path == "/userinfo":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            if token not in self.tokens:
                return httpx2.Response(401)
            return httpx2.Response(200, json={"sub": self.user})
        return httpx2.Response(404)


def make_server(upstream: FakeUpstream, **options: Any) -> AuthorizationServer:
    options.setdefault("clients", [Client("app", [REDIRECT])])
    options.setdefault("scopes", ["mcp:read", "mcp:write"])
    options.setdefault("http", httpx2.AsyncClient(transport=httpx2.MockTransport(upstream.handler)))
    return AuthorizationServer(issuer=ISSUER, upstream=upstream.upstream(), **options)


def get(path: str, query: dict[str, str], cookie: str | None = None) -> Request:
    headers = {"cookie": cookie} if cookie else {}
    return Request("GET", path, {k: [v] for k, v in query.items()}, headers=headers)


def post(path: str, form: dict[str, str], headers: dict[str, str] | None = None) -> Request:
    return Request("POST", path, form={k: [v] for k, v in form.items()}, headers=headers or {})


def authorize_query(
    client_id: str = "app", verifier: str = "v" * 43, state: str = "st-1", **extra: str
) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "state": state,
        "code_challenge": challenge(verifier),
        "code_challenge_method": "S256",
    }
    query.update(extra)
    return {k: v for k, v in query.items() if v != ""}


def consent_form(page: Response) -> tuple[dict[str, str], str]:
    """The consent page's hidden fields and the cookie it set."""
    text = page.body.decode()
    fields = {}
    for name in ("login", "csrf"):
        start = text.index(f"name='{name}' value='") + len(f"name='{name}' value='")
        fields[name] = text[start : text.index("'", start)]
    cookie = (page.header("set-cookie") or "").split(";")[0]
    return fields, cookie


async def code_for(
    server: AuthorizationServer,
    upstream: FakeUpstream,
    query: dict[str, str] | None = None,
    consent_at: AuthorizationServer | None = None,
    callback_at: AuthorizationServer | None = None,
) -> dict[str, str]:
    """A whole login; the query the client's redirect URI receives. `consent_at`,
    `callback_at`: the processes those steps reach (default: `server`)."""
    consent_at = consent_at or server
    callback_at = callback_at or server
    page = await server.handle(get("/authorize", query or authorize_query()))
    assert page.status == 200, page.body
    fields, cookie = consent_form(page)
    to_upstream = await consent_at.handle(
        post("/authorize/consent", {**fields, "decision": "allow"}, {"cookie": cookie})
    )
    assert to_upstream.status == 302, to_upstream.body
    back = upstream.log_in(to_upstream.header("location") or "")
    answer = await callback_at.handle(get("/oauth/callback", back, cookie))
    assert answer.status == 302, answer.body
    location = answer.header("location") or ""
    assert location.startswith(REDIRECT + "?")
    return query_of(location)


async def tokens_for(
    server: AuthorizationServer, code: str, verifier: str = "v" * 43, client_id: str = "app"
) -> Response:
    return await server.handle(
        post(
            "/token",
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT,
                "code_verifier": verifier,
                "client_id": client_id,
            },
        )
    )


def mcp_server() -> Server:
    app = Server("guarded")

    @app.tool(scopes=["mcp:write"])
    def write(text: str) -> str:
        """Needs mcp:write."""
        return f"wrote {text}"

    @app.tool()
    def whoami() -> str:
        """Anyone logged in."""
        return "someone"

    return app


async def browser_login(
    browsers: list[httpx2.AsyncClient], upstream: FakeUpstream, **query: str
) -> dict[str, str]:
    """A user's browser through /authorize, the consent page, the upstream login and the
    callback, each request to the next of `browsers` (processes) in turn; the client's
    redirect URI's query."""
    turn = iter(browsers * 3)
    cookie = ""
    page = await next(turn).get("/authorize", params=authorize_query(**query))
    assert page.status_code == 200, page.text
    cookie = page.headers["set-cookie"].split(";")[0]
    fields = {}
    for name in ("login", "csrf"):
        marker = f"name='{name}' value='"
        start = page.text.index(marker) + len(marker)
        fields[name] = page.text[start : page.text.index("'", start)]
    to_upstream = await next(turn).post(
        "/authorize/consent",
        data={**fields, "decision": "allow"},
        headers={"cookie": cookie, "origin": ISSUER},
    )
    assert to_upstream.status_code == 302, to_upstream.text
    back = upstream.log_in(to_upstream.headers["location"])
    done = await next(turn).get("/oauth/callback", params=back, headers={"cookie": cookie})
    assert done.status_code == 302, done.text
    assert done.headers["location"].startswith(REDIRECT)
    return query_of(done.headers["location"])


async def redeem(browser: httpx2.AsyncClient, code: str) -> dict[str, str]:
    answer = await browser.post(
        "/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": "v" * 43,
            "client_id": "app",
        },
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())
