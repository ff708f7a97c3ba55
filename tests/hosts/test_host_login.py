"""A real host logs in through plainmcp's authorization server: Codex CLI 0.169.0's
`codex mcp login` against examples/oauth_server.py (a plainmcp server behind the proxy) with
npm oidc-provider upstream (the `proxy_url` fixture of tests/authorization), all on 127.0.0.1.

Codex discovers the authorization server from the server's 401, registers by DCR, prints the
authorization URL (BROWSER fails, so nothing opens) and waits on a loopback callback; the
headless browser (tests/authorization/browser.py) signs in through the proxy's consent page
and oidc-provider's login and consent, and the URL it lands on is requested, so Codex's own
callback server gets the code. Then `codex exec` with a scripted model (tests/hosts/codex_cli.py)
calls `whoami`, which answers only a token with mcp:read, and the model gets its answer.

Codex keeps its tokens in a file (`mcp_oauth_credentials_store = "file"`), not a keyring the
machine may or may not have. Left to itself (`auto`) it registers by a Client ID Metadata
Document, https://chatgpt.com/oauth/codex/client.json, as the proxy advertises
`client_id_metadata_document_supported`; that document is on the internet, so the login here
asks for DCR, and the second test pins what `auto` offers.
"""

from __future__ import annotations

import json
import queue
import re
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlsplit

import httpx2
import jwt
import pytest

from tests.authorization.browser import log_in
from tests.authorization.test_end_to_end import proxy_url
from tests.hosts.claude_code import _group
from tests.hosts.codex_cli import (
    CODEX,
    ResponsesStub,
    codex_env,
    ensure_codex,
    parts_of,
    run_codex,
)
from tests.hosts.scripts import Part, ToolUse

__all__ = ["proxy_url"]  # the fixture, shared with tests/authorization
FILE_STORE = 'mcp_oauth_credentials_store="file"'
CALLBACK = re.compile(r"\Ahttp://127\.0\.0\.1:\d+/callback\Z")


@pytest.fixture
def home() -> Iterator[Path]:
    """A throwaway HOME (HOME and CODEX_HOME/..) for Codex, with nothing in it yet."""
    ensure_codex()
    with tempfile.TemporaryDirectory(prefix="plainmcp-cx-") as tmp:
        (Path(tmp) / ".codex").mkdir()
        yield Path(tmp)


def configure(home: Path, mcp: str) -> None:
    """A config.toml naming one server, `guarded`, by its URL (Codex's streamable HTTP)."""
    (home / ".codex" / "config.toml").write_text(
        f'check_for_update_on_startup = false\n\n[mcp_servers.guarded]\nurl = "{mcp}"\n'
    )


def codex(home: Path, *args: str, timeout: float = 30) -> str:
    """One short Codex command's standard output; it must succeed."""
    env = {**codex_env(home), "BROWSER": "false"}
    with _group([str(CODEX), *args, "-c", FILE_STORE], env, home) as proc:
        out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"codex {args} exited {proc.returncode}:\n{out}\n{err}"
    return out


def auth_status(home: Path) -> str:
    (entry,) = json.loads(codex(home, "mcp", "list", "--json"))
    assert entry["name"] == "guarded"
    return str(entry["auth_status"])


def lines(stream: IO[str]) -> queue.Queue[str]:
    """The stream's lines as they come, read by a thread of their own ("" at its end)."""
    found: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in stream:
            found.put(line)
        found.put("")

    threading.Thread(target=read, daemon=True).start()
    return found


def authorization_url(output: queue.Queue[str], timeout: float) -> tuple[str, str]:
    """The first two lines `codex mcp login` prints: its prompt and the authorization URL."""
    prompt = output.get(timeout=timeout)
    return prompt, output.get(timeout=timeout).strip()


def claims_of(issuer: str, mcp: str, token: str) -> dict[str, Any]:
    """The access token's claims, checked against the proxy's published key."""
    (key,) = httpx2.get(f"{issuer}/jwks", timeout=10.0).json()["keys"]
    decoded = jwt.decode(token, jwt.PyJWK(key), algorithms=["ES256"], audience=mcp, issuer=issuer)
    return dict(decoded)


def test_codex_cli_logs_in_through_the_proxy_and_its_token_calls_the_tool(
    proxy_url: str, home: Path
) -> None:
    mcp = f"{proxy_url}/mcp"
    configure(home, mcp)
    assert auth_status(home) == "not_logged_in"

    command = [str(CODEX), "mcp", "login", "guarded", "--oauth-client-registration", "dcr"]
    env = {**codex_env(home), "BROWSER": "false"}
    with _group([*command, "-c", FILE_STORE], env, home) as login:
        assert login.stdout is not None
        output = lines(login.stdout)
        prompt, url = authorization_url(output, 30)
        assert prompt == "Authorize `guarded` by opening this URL in your browser:\n"
        assert url.startswith(f"{proxy_url}/authorize?")
        query = dict(parse_qsl(urlsplit(url).query))
        assert sorted(query) == [
            "client_id",
            "code_challenge",
            "code_challenge_method",
            "redirect_uri",
            "resource",
            "response_type",
            "scope",
            "state",
        ]
        assert (query["response_type"], query["code_challenge_method"]) == ("code", "S256")
        assert (query["scope"], query["resource"]) == ("mcp:read", mcp)
        assert CALLBACK.match(query["redirect_uri"]), query["redirect_uri"]
        client_id = query["client_id"]
        assert not client_id.startswith("http")  # registered by DCR at the proxy

        landed = log_in(url, query["redirect_uri"])
        back = dict(parse_qsl(urlsplit(landed).query))
        assert sorted(back) == ["code", "iss", "state"]
        assert (back["state"], back["iss"]) == (query["state"], proxy_url)
        # Codex's callback server takes the code: the browser's last request
        answer = httpx2.get(landed, timeout=10.0)
        assert (answer.status_code, answer.text) == (
            200,
            "Authentication complete. You may close this window.",
        )
        rest = "".join(iter(lambda: output.get(timeout=30), ""))
        assert login.wait(timeout=30) == 0, f"codex mcp login failed:\n{rest}"
    assert rest == "\nSuccessfully logged in to MCP server 'guarded'.\n"
    assert auth_status(home) == "o_auth"

    (saved,) = json.loads((home / ".codex" / ".credentials.json").read_text()).values()
    assert (saved["server_name"], saved["server_url"]) == ("guarded", mcp)
    assert (saved["issuer"], saved["client_id"]) == (proxy_url, client_id)
    assert saved["scopes"] == ["mcp:read"]
    assert saved["refresh_token"]
    claims = claims_of(proxy_url, mcp, saved["access_token"])
    assert (claims["aud"], claims["client_id"], claims["scope"]) == (mcp, client_id, "mcp:read")
    assert claims["sub"] == "alice"  # the name the browser signed in with upstream
    assert claims["exp"] - claims["iat"] == 900
    # Codex's own clock (in ms) at the answer plus expires_in: after the proxy issued it, and
    # well within this test's minute
    assert claims["exp"] <= saved["expires_at"] / 1000 < claims["exp"] + 60

    model = ResponsesStub([ToolUse("mcp__guarded__whoami")], parts=parts_of)
    run = run_codex({"guarded": {"url": mcp}}, (), model=model, home=home, config=[FILE_STORE])
    assert run.namespace("mcp__guarded") == ["read_more", "whoami"]
    # the tool's answer, after Codex's own `Wall time` line, as the model got it
    assert model.seen == {"call_1": [Part("text", text="logged in")]}
    ((_, answered),) = run.results
    assert answered == {"type": "input_text", "text": "logged in"}


def test_left_to_choose_codex_cli_offers_its_client_id_metadata_document(
    proxy_url: str, home: Path
) -> None:
    # The proxy advertises client_id_metadata_document_supported, so Codex's `auto` names its
    # document as its client_id; the URL is not followed (the document is on the internet).
    configure(home, f"{proxy_url}/mcp")
    env = {**codex_env(home), "BROWSER": "false"}
    with _group([str(CODEX), "mcp", "login", "guarded", "-c", FILE_STORE], env, home) as login:
        assert login.stdout is not None
        prompt, url = authorization_url(lines(login.stdout), 30)
    assert prompt == "Authorize `guarded` by opening this URL in your browser:\n"
    query = dict(parse_qsl(urlsplit(url).query))
    assert query["client_id"] == "https://chatgpt.com/oauth/codex/client.json"
    assert CALLBACK.match(query["redirect_uri"]), query["redirect_uri"]
