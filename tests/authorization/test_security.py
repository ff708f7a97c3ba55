"""The proxy's security properties, each its own test: redirect URIs matched exactly, state
and PKCE required, no open redirect, code injection and mix-up refused, a forged consent
refused, a token for another resource refused, nothing secret logged, CIMD SSRF refused."""

from __future__ import annotations

import logging

import httpx2
import pytest

from plainmcp.authorization import AuthorizationServer, Client, FetchPolicy
from plainmcp.authorization.tokens import Grant, access_token
from tests.authorization.harness import (
    ISSUER,
    REDIRECT,
    UPSTREAM_SECRET,
    FakeUpstream,
    authorize_query,
    code_for,
    consent_form,
    get,
    make_server,
    post,
    query_of,
    tokens_for,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(upstream: FakeUpstream) -> AuthorizationServer:
    return make_server(upstream, clients=[Client("app", [REDIRECT]), Client("other", [REDIRECT])])


async def test_a_redirect_uri_not_registered_exactly_is_refused_with_a_page(
    server: AuthorizationServer,
) -> None:
    for uri in (
        "http://127.0.0.1:3000/callback/",
        "http://127.0.0.1:3000/callback?x=1",
        "http://127.0.0.1:3000/Callback",
        "http://localhost:3000/callback",
        "https://127.0.0.1:3000/callback",
    ):
        answer = await server.handle(get("/authorize", authorize_query(redirect_uri=uri)))
        assert answer.status == 400, uri
        assert answer.header("location") is None
        assert "not one registered" in answer.body.decode()
    # A loopback IP literal's port is the native app's choice (RFC 8252 §7.3).
    moved = authorize_query(redirect_uri="http://127.0.0.1:49152/callback")
    assert (await server.handle(get("/authorize", moved))).status == 200


async def test_an_unknown_client_is_never_redirected_to(server: AuthorizationServer) -> None:
    query = authorize_query("nobody", redirect_uri="https://evil.example/steal")
    answer = await server.handle(get("/authorize", query))
    assert (answer.status, answer.header("location")) == (400, None)
    missing = await server.handle(get("/authorize", {"redirect_uri": "https://evil.example/"}))
    assert (missing.status, missing.header("location")) == (400, None)


async def test_state_is_required(server: AuthorizationServer) -> None:
    answer = await server.handle(get("/authorize", authorize_query(state="")))
    assert answer.status == 302
    assert query_of(answer.header("location") or "") == {
        "error": "invalid_request",
        "error_description": "state is required",
        "iss": ISSUER,
    }


async def test_pkce_s256_is_required(server: AuthorizationServer) -> None:
    cases = [
        ({"code_challenge": ""}, "PKCE is required: code_challenge is missing"),
        ({"code_challenge_method": "plain"}, "code_challenge_method must be S256"),
        ({"code_challenge_method": ""}, "code_challenge_method must be S256"),
        ({"code_challenge": "short"}, "code_challenge is not an S256 challenge"),
    ]
    for change, why in cases:
        answer = await server.handle(get("/authorize", authorize_query(**change)))
        back = query_of(answer.header("location") or "")
        assert (back["error"], back["error_description"], back["state"]) == (
            "invalid_request",
            why,
            "st-1",
        )


async def test_a_token_request_without_the_right_verifier_is_refused(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    back = await code_for(server, upstream)
    answer = await tokens_for(server, back["code"], verifier="w" * 43)
    assert answer.json() == {
        "error": "invalid_grant",
        "error_description": "code_verifier does not match the code_challenge",
    }
    # The code was spent by the failed attempt: the right verifier cannot use it now.
    again = await tokens_for(server, back["code"])
    assert again.json()["error_description"] == "the code is unknown, used or expired"


async def test_an_injected_code_is_refused_for_another_client(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    back = await code_for(server, upstream)
    answer = await tokens_for(server, back["code"], client_id="other")
    assert answer.json() == {
        "error": "invalid_grant",
        "error_description": "the code was issued to another client",
    }


async def test_a_code_cannot_be_used_twice(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    back = await code_for(server, upstream)
    assert (await tokens_for(server, back["code"])).status == 200
    assert (await tokens_for(server, back["code"])).json()["error"] == "invalid_grant"


async def test_an_upstream_answer_from_another_issuer_is_refused(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    page = await server.handle(get("/authorize", authorize_query()))
    fields, cookie = consent_form(page)
    to_upstream = await server.handle(
        post("/authorize/consent", {**fields, "decision": "allow"}, {"cookie": cookie})
    )
    back = upstream.log_in(to_upstream.header("location") or "")
    back["iss"] = "https://attacker.example"
    answer = await server.handle(get("/oauth/callback", back, cookie))
    assert query_of(answer.header("location") or "") == {
        "error": "access_denied",
        "error_description": "wrong issuer",
        "state": "st-1",
        "iss": ISSUER,
    }
    assert upstream.fetched == []  # the code was never sent anywhere


async def test_a_consent_without_the_browsers_cookie_is_refused(
    server: AuthorizationServer,
) -> None:
    page = await server.handle(get("/authorize", authorize_query()))
    fields, cookie = consent_form(page)
    forged = await server.handle(post("/authorize/consent", {**fields, "decision": "allow"}))
    assert forged.status == 403
    other_site = await server.handle(
        post(
            "/authorize/consent",
            {**fields, "decision": "allow"},
            {"cookie": cookie, "origin": "https://evil.example"},
        )
    )
    assert other_site.status == 403


async def test_a_callback_in_another_browser_is_refused(
    server: AuthorizationServer, upstream: FakeUpstream
) -> None:
    page = await server.handle(get("/authorize", authorize_query()))
    fields, cookie = consent_form(page)
    to_upstream = await server.handle(
        post("/authorize/consent", {**fields, "decision": "allow"}, {"cookie": cookie})
    )
    back = upstream.log_in(to_upstream.header("location") or "")
    answer = await server.handle(get("/oauth/callback", back, "plainmcp_consent=someone-else"))
    assert (answer.status, answer.header("location")) == (403, None)


async def test_a_token_for_another_resource_is_refused(server: AuthorizationServer) -> None:
    grant = Grant("alice", "app", "mcp:read", "https://other.example/mcp", "g-1")
    token, _, _ = access_token(server.key, ISSUER, grant, server.clock(), 60)
    assert await server.verifier()(token) is None
    asked = await server.handle(
        get("/authorize", authorize_query(resource="https://other.example/mcp"))
    )
    assert query_of(asked.header("location") or "")["error"] == "invalid_target"


async def test_tokens_and_secrets_are_never_logged(
    upstream: FakeUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = make_server(upstream)
    registered = (
        await server.handle(
            post("/register", {}).__class__(
                "POST", "/register", body=b'{"redirect_uris": ["http://127.0.0.1:3000/callback"]}'
            )
        )
    ).json()
    back = await code_for(server, upstream, authorize_query(registered["client_id"]))
    import base64

    pair = base64.b64encode(
        f"{registered['client_id']}:{registered['client_secret']}".encode()
    ).decode()
    form = {"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT}
    bad = await server.handle(
        post("/token", {**form, "code_verifier": "x" * 43}, {"authorization": f"Basic {pair}"})
    )
    assert bad.status == 400
    back = await code_for(server, upstream, authorize_query(registered["client_id"]))
    body = (
        await server.handle(
            post(
                "/token",
                {**form, "code": back["code"], "code_verifier": "v" * 43},
                {"authorization": f"Basic {pair}"},
            )
        )
    ).json()
    await server.verifier()(body["access_token"] + "x")
    await server.handle(
        post(
            "/token",
            {"grant_type": "refresh_token", "refresh_token": body["refresh_token"] + "x"},
            {"authorization": f"Basic {pair}"},
        )
    )
    secrets = [
        registered["client_secret"],
        back["code"],
        body["access_token"],
        body["refresh_token"],
        UPSTREAM_SECRET,
        *upstream.tokens,
    ]
    assert caplog.records  # the refusals were logged...
    for record in caplog.records:
        text = record.getMessage()
        for secret in secrets:
            assert secret not in text  # ...without what they refused


# --- Client ID Metadata Documents ----------------------------------------------------------

DOC_URL = "https://app.example/oauth/client.json"
DOCUMENT = {
    "client_id": DOC_URL,
    "client_name": "Example App",
    "redirect_uris": [REDIRECT],
    "token_endpoint_auth_method": "none",
}


def cimd_server(
    upstream: FakeUpstream,
    addresses: list[str],
    answer: httpx2.Response | None = None,
    **policy: object,
) -> tuple[AuthorizationServer, list[httpx2.Request]]:
    fetched: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/oauth/client.json":
            fetched.append(request)
            return answer or httpx2.Response(
                200, json=DOCUMENT, headers={"cache-control": "max-age=600"}
            )
        return upstream.handler(request)

    async def resolver(host: str, port: int) -> list[str]:
        assert (host, port) == ("app.example", 443)
        return addresses

    server = make_server(
        upstream,
        http=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        fetch_policy=FetchPolicy(resolver=resolver, **policy),  # type: ignore[arg-type]
    )
    return server, fetched


async def test_a_metadata_document_client_logs_in_and_its_document_is_cached(
    upstream: FakeUpstream,
) -> None:
    server, fetched = cimd_server(upstream, ["93.184.216.34"])
    page = await server.handle(get("/authorize", authorize_query(DOC_URL)))
    assert page.status == 200
    assert "<h1>Allow Example App?</h1>" in page.body.decode()
    back = await code_for(server, upstream, authorize_query(DOC_URL))
    assert (await tokens_for(server, back["code"], client_id=DOC_URL)).status == 200
    assert len(fetched) == 1  # cached for its max-age
    request = fetched[0]
    assert str(request.url) == "https://93.184.216.34/oauth/client.json"  # the checked address
    assert request.headers["host"] == "app.example"
    assert request.extensions["sni_hostname"] == "app.example"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.5",
        "192.168.1.1",
        "169.254.169.254",
        "::1",
        "fd00::1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
    ],
)
async def test_a_metadata_document_on_a_non_public_address_is_not_fetched(
    upstream: FakeUpstream, address: str
) -> None:
    server, fetched = cimd_server(upstream, ["93.184.216.34", address])
    answer = await server.handle(get("/authorize", authorize_query(DOC_URL)))
    assert (answer.status, answer.header("location")) == (400, None)
    assert fetched == []


async def test_a_metadata_document_over_http_is_not_fetched(upstream: FakeUpstream) -> None:
    server, fetched = cimd_server(upstream, ["93.184.216.34"])
    url = "http://app.example/oauth/client.json"
    answer = await server.handle(get("/authorize", authorize_query(url)))
    assert answer.status == 400  # not a document id: an unknown client
    assert fetched == []


async def test_a_metadata_document_redirect_is_not_followed(upstream: FakeUpstream) -> None:
    moved = httpx2.Response(302, headers={"location": "http://169.254.169.254/latest"})
    server, fetched = cimd_server(upstream, ["93.184.216.34"], moved)
    answer = await server.handle(get("/authorize", authorize_query(DOC_URL)))
    assert answer.status == 400
    assert len(fetched) == 1


async def test_an_oversized_metadata_document_is_refused(upstream: FakeUpstream) -> None:
    big = httpx2.Response(200, json={**DOCUMENT, "client_name": "x" * 6000})
    server, _ = cimd_server(upstream, ["93.184.216.34"], big)
    answer = await server.handle(get("/authorize", authorize_query(DOC_URL)))
    assert answer.status == 400


async def test_a_metadata_document_naming_another_client_id_is_refused(
    upstream: FakeUpstream,
) -> None:
    other = httpx2.Response(200, json={**DOCUMENT, "client_id": "https://evil.example/c.json"})
    server, _ = cimd_server(upstream, ["93.184.216.34"], other)
    assert (await server.handle(get("/authorize", authorize_query(DOC_URL)))).status == 400
    secret = httpx2.Response(200, json={**DOCUMENT, "client_secret": "s"})
    server, _ = cimd_server(upstream, ["93.184.216.34"], secret)
    assert (await server.handle(get("/authorize", authorize_query(DOC_URL)))).status == 400


async def test_a_private_metadata_document_is_served_only_under_a_test_policy(
    upstream: FakeUpstream,
) -> None:
    server, fetched = cimd_server(upstream, ["127.0.0.1"], allow_private=True)
    assert (await server.handle(get("/authorize", authorize_query(DOC_URL)))).status == 200
    assert len(fetched) == 1
