"""Host and Origin checks, and bearer-token verification (sans-I/O)."""

from __future__ import annotations

import pytest

from plainmcp.transports.http.security import (
    AuthFailure,
    BearerAuth,
    OriginPolicy,
    Principal,
    authenticate,
    resource_metadata,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("localhost", True),
        ("localhost:8000", True),
        ("127.0.0.1:3001", True),
        ("[::1]:8080", True),
        ("LOCALHOST:1", True),
        ("evil.example.com", False),
        ("127.0.0.1.evil.com", False),
        ("localhost.evil.com:80", False),
        ("", False),
        (None, False),
    ],
)
def test_default_hosts_are_the_local_names(host: str | None, ok: bool) -> None:
    assert OriginPolicy().host_allowed(host) is ok


@pytest.mark.parametrize(
    ("origin", "ok"),
    [
        (None, True),
        ("http://localhost:5173", True),
        ("https://127.0.0.1", True),
        ("http://[::1]:3000", True),
        ("null", False),
        ("http://evil.example.com", False),
        ("http://localhost.evil.com", False),
        ("file://localhost", False),
    ],
)
def test_default_origins_are_local_pages_or_none(origin: str | None, ok: bool) -> None:
    assert OriginPolicy().origin_allowed(origin) is ok


def test_allow_lists_and_wildcards() -> None:
    policy = OriginPolicy(
        ["mcp.example.com", "other.example.com:8443"], ["https://app.example.com/"]
    )
    assert policy.host_allowed("mcp.example.com:443")
    assert policy.host_allowed("other.example.com:8443")
    assert not policy.host_allowed("other.example.com:9000")
    assert policy.origin_allowed("https://app.example.com")
    assert not policy.origin_allowed("http://app.example.com")
    anything = OriginPolicy(["*"], ["*"])
    assert anything.host_allowed("whatever") and anything.origin_allowed("null")


async def verify_async(token: str) -> Principal | None:
    return Principal("alice", frozenset({"read"})) if token == "t0k" else None


async def test_authenticate_accepts_async_verifiers_and_challenges_precisely() -> None:
    auth = BearerAuth(verify_async, ["https://as.example.com"], required_scopes=["read"])
    url = "http://127.0.0.1/.well-known/oauth-protected-resource/mcp"
    assert await authenticate(auth, "Bearer t0k", url) == Principal("alice", frozenset({"read"}))
    assert await authenticate(auth, "bearer   t0k ", url) == Principal("alice", frozenset({"read"}))
    missing = await authenticate(auth, None, url)
    assert missing == AuthFailure(
        401,
        f'Bearer resource_metadata="{url}", scope="read"',
        "invalid_request",
        "a bearer token is required",
    )
    basic = await authenticate(auth, "Basic dXNlcjpwYXNz", url)
    assert isinstance(basic, AuthFailure) and basic.status == 401
    wrong = await authenticate(auth, "Bearer nope", url)
    assert isinstance(wrong, AuthFailure)
    assert wrong.challenge == (
        f'Bearer resource_metadata="{url}", scope="read", error="invalid_token",'
        ' error_description="the token is invalid or expired"'
    )


def test_resource_metadata_document() -> None:
    auth = BearerAuth(
        verify_async, ["https://as.example.com"], resource="https://mcp.example.com/mcp"
    )
    assert resource_metadata(auth, "http://ignored/mcp") == {
        "resource": "https://mcp.example.com/mcp",
        "authorization_servers": ["https://as.example.com"],
        "bearer_methods_supported": ["header"],
    }
