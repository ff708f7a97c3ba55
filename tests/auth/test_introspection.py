"""IntrospectionVerifier against a real authorization server (oidc-provider's RFC 7662
endpoint): opaque access tokens issued with the resource indicator."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
import pytest

from plainmcp import Principal
from plainmcp.auth import IntrospectionVerifier
from tests.auth.provider import Provider
from tests.auth.test_jwt_verifier import INVALID, RESOURCE, Clock, call_with, make_app, text_of

pytestmark = pytest.mark.anyio


def verifier_for(provider: Provider, **options: Any) -> IntrospectionVerifier:
    return IntrospectionVerifier(
        f"{provider.issuer}/token/introspection",
        "mcp-server",
        "mcp-server-secret",
        audience=RESOURCE,
        issuer=provider.issuer,
        **options,
    )


def opaque(provider: Provider, resource: str = RESOURCE, scope: str = "mcp:read") -> str:
    token = provider.token(resource, scope, client="opaque-client")
    assert token.count(".") == 0  # not a JWT: only the authorization server can tell
    return token


async def test_an_active_opaque_token_is_accepted_and_its_answer_kept(provider: Provider) -> None:
    verifier = verifier_for(provider)
    http = make_app(verifier, provider.issuer)
    token = opaque(provider)
    for _ in range(3):
        answer = await call_with(http, token)
        assert (answer.status, text_of(answer)) == (200, f"opaque-client mcp:read {RESOURCE}")
    assert verifier.requests == 1


async def test_an_opaque_token_for_another_resource_or_unknown_is_refused(
    provider: Provider,
) -> None:
    verifier = verifier_for(provider)
    http = make_app(verifier, provider.issuer)
    for token in (opaque(provider, "http://127.0.0.1:8000/other-mcp"), "not-a-token-at-all"):
        answer = await call_with(http, token)
        assert answer.status == 401
        assert answer.headers["www-authenticate"] == INVALID
    assert verifier.requests == 2


async def test_the_cache_ends_at_the_tokens_expiry_and_keeps_its_bound(provider: Provider) -> None:
    clock = Clock()
    verifier = verifier_for(provider, clock=clock, cache_ttl=3600, max_cached=1)
    first, second = opaque(provider), opaque(provider, scope="mcp:read mcp:admin")
    one = await verifier(first)
    assert isinstance(one, Principal) and one.scopes == frozenset({"mcp:read"})
    assert await verifier(first) == one and verifier.requests == 1
    two = await verifier(second)
    assert isinstance(two, Principal) and two.scopes == frozenset({"mcp:read", "mcp:admin"})
    assert await verifier(first) == one and verifier.requests == 3  # the bound pushed it out
    assert one.expires_at is not None
    clock.now = one.expires_at  # the server still says active; our clock says it expired
    assert await verifier(first) is None
    assert verifier.requests == 4


async def test_a_scoped_tool_refuses_an_opaque_token_without_the_scope(provider: Provider) -> None:
    http = make_app(verifier_for(provider), provider.issuer)
    answer = await call_with(http, opaque(provider), "purge")
    assert answer.status == 403
    assert 'error="insufficient_scope", scope="mcp:admin"' in answer.headers["www-authenticate"]


class Relay:
    """A TCP relay to the authorization server that counts the connections it accepts and
    those still open: what the verifier's HTTP client really does on the network."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.accepted = 0
        self.open = 0
        self.all_closed = asyncio.Event()
        self.server: asyncio.Server | None = None

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self.open += 1
        self.all_closed.clear()
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        await asyncio.gather(
            _pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True
        )
        self.open -= 1
        if not self.open:
            self.all_closed.set()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    finally:
        sink.close()


@pytest.fixture
async def relay(provider: Provider) -> AsyncIterator[tuple[Relay, str]]:
    counted = Relay(provider.port)
    url = await counted.start()
    yield counted, url
    assert counted.server is not None
    counted.server.close()


async def test_uncached_tokens_share_one_client_and_connection(
    provider: Provider, relay: tuple[Relay, str]
) -> None:
    counted, url = relay
    verifier = verifier_for(provider)
    verifier.endpoint = f"{url}/token/introspection"
    tokens = [opaque(provider) for _ in range(4)]
    for token in tokens:
        answer = await verifier(token)
        assert isinstance(answer, Principal) and answer.subject == "opaque-client"
    assert (verifier.requests, counted.accepted, counted.open) == (4, 1, 1)
    await verifier.aclose()
    with anyio.fail_after(10):
        await counted.all_closed.wait()
    assert await verifier(opaque(provider)) is not None  # a new client after aclose
    assert (verifier.requests, counted.accepted) == (5, 2)
    await verifier.aclose()


async def test_the_http_app_closes_its_verifier_s_client_at_shutdown(
    provider: Provider, relay: tuple[Relay, str]
) -> None:
    counted, url = relay
    verifier = verifier_for(provider)
    verifier.endpoint = f"{url}/token/introspection"
    http = make_app(verifier, provider.issuer)
    async with http.lifespan():
        for _ in range(3):
            answer = await call_with(http, opaque(provider))
            assert (answer.status, text_of(answer)) == (200, f"opaque-client mcp:read {RESOURCE}")
        assert (verifier.requests, counted.accepted, counted.open) == (3, 1, 1)
    with anyio.fail_after(10):
        await counted.all_closed.wait()
    assert (counted.accepted, counted.open) == (1, 0)


async def test_a_client_given_is_used_and_left_open(provider: Provider) -> None:
    async with httpx2.AsyncClient() as http:
        verifier = verifier_for(provider, http=http)
        assert await verifier(opaque(provider)) is not None
        await verifier.aclose()
        assert not http.is_closed
        assert await verifier(opaque(provider)) is not None
    assert verifier.requests == 2


def test_each_event_loop_gets_a_client_of_its_own(provider: Provider) -> None:
    # An AsyncClient's connections belong to the loop that opened them: a verifier used from a
    # second loop (a server started again in the same process) must not reuse the first's.
    verifier = verifier_for(provider)
    first = asyncio.run(verifier(opaque(provider)))
    second = asyncio.run(verifier(opaque(provider)))
    assert isinstance(first, Principal) and isinstance(second, Principal)
    assert verifier.requests == 2
