"""End to end over real HTTP: npm oidc-provider (an identity provider nobody here wrote) as
the upstream, examples/oauth_server.py (a plainmcp server behind plainmcp's authorization
server) in front of it, and a client that discovers the server's authorization server,
registers (DCR), logs in headlessly (tests/authorization/browser.py through the consent page
and oidc-provider's login and consent), calls a tool, refreshes, and is revoked."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
import pytest

from plainmcp import Client
from tests.auth.provider import SCRIPT, _first_line, ensure_provider
from tests.authorization.browser import log_in
from tests.http_server import free_port
from tests.interop.tools import INTEROP_DIR, node22_bin

pytestmark = pytest.mark.anyio
EXAMPLE = Path(__file__).parents[2] / "examples" / "oauth_server.py"


@pytest.fixture
def proxy_url() -> Iterator[str]:
    ensure_provider()
    idp_port, port = free_port(), free_port()
    idp = subprocess.Popen(
        [str(node22_bin()), str(SCRIPT), str(idp_port), f"http://127.0.0.1:{port}/oauth/callback"],
        cwd=INTEROP_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    server: subprocess.Popen[str] | None = None
    try:
        assert idp.stdout is not None
        assert json.loads(_first_line(idp.stdout, 30))["issuer"] == f"http://127.0.0.1:{idp_port}"
        server = subprocess.Popen(
            [
                sys.executable,
                str(EXAMPLE),
                *("--port", str(port), "--upstream", f"http://127.0.0.1:{idp_port}"),
                *("--upstream-client", "mcp-proxy", "--upstream-secret", "mcp-proxy-secret"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):  # until it listens (each try waits on the connection)
            try:
                httpx2.get(f"{url}/jwks", timeout=1.0)
                break
            except httpx2.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
        yield url
    finally:
        for proc in (server, idp):
            if proc is not None:
                proc.terminate()
                proc.wait(10)


def verifier_and_challenge() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


async def test_a_client_logs_in_through_the_proxy_calls_refreshes_and_is_revoked(
    proxy_url: str,
) -> None:
    mcp = f"{proxy_url}/mcp"
    redirect = f"http://127.0.0.1:{free_port()}/callback"
    async with httpx2.AsyncClient(timeout=30.0) as http:
        refused = await http.post(mcp, json={})
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        prm_url = challenge.split('resource_metadata="')[1].split('"')[0]
        prm = (await http.get(prm_url)).json()
        assert prm["resource"] == mcp
        issuer = prm["authorization_servers"][0]
        metadata = (await http.get(f"{issuer}/.well-known/oauth-authorization-server")).json()
        assert metadata["issuer"] == issuer
        registered = await http.post(
            metadata["registration_endpoint"],
            json={
                "redirect_uris": [redirect],
                "token_endpoint_auth_method": "none",
                "client_name": "e2e",
            },
        )
        client_id = registered.json()["client_id"]
        verifier, code_challenge = verifier_and_challenge()
        state = secrets.token_urlsafe(16)
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect,
            "state": state,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
            "scope": "mcp:read",
            "resource": mcp,
        }
        authorize = f"{metadata['authorization_endpoint']}?{urlencode(query)}"
        landed = await anyio.to_thread.run_sync(log_in, authorize, redirect)
        back = {k: v[0] for k, v in parse_qs(urlsplit(landed).query).items()}
        assert (back["state"], back["iss"]) == (state, issuer)
        token = await http.post(
            metadata["token_endpoint"],
            data={
                "grant_type": "authorization_code",
                "code": back["code"],
                "redirect_uri": redirect,
                "code_verifier": verifier,
                "client_id": client_id,
                "resource": mcp,
            },
        )
        assert token.status_code == 200, token.text
        tokens = token.json()
        assert tokens["scope"] == "mcp:read"

        async with Client.http(mcp, auth=tokens["access_token"], listen=False) as client:
            result = await client.call_tool("whoami")
            assert result.content[0].text == "logged in"  # type: ignore[union-attr]

        refresh = {"grant_type": "refresh_token", "client_id": client_id}
        renewed = await http.post(
            metadata["token_endpoint"], data={**refresh, "refresh_token": tokens["refresh_token"]}
        )
        assert renewed.status_code == 200
        fresh = renewed.json()
        async with Client.http(mcp, auth=fresh["access_token"], listen=False) as client:
            assert (await client.call_tool("whoami")).content[0].text == "logged in"  # type: ignore[union-attr]

        for kind in ("access_token", "refresh_token"):
            revoked = await http.post(
                metadata["revocation_endpoint"], data={"token": fresh[kind], "client_id": client_id}
            )
            assert revoked.status_code == 200
        after = await http.post(
            mcp,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"authorization": f"Bearer {fresh['access_token']}"},
        )
        assert after.status_code == 401
        again = await http.post(
            metadata["token_endpoint"], data={**refresh, "refresh_token": fresh["refresh_token"]}
        )
        assert again.json()["error"] == "invalid_grant"
