"""Real hosts log in through plainmcp's authorization server: Codex CLI 0.169.0's
`codex mcp login` and Gemini CLI 0.61.0's `gemini -p "/mcp auth NAME"` against
examples/oauth_server.py (a plainmcp server behind the proxy) with npm oidc-provider upstream
(the `proxy_url` fixture of tests/authorization), all on 127.0.0.1.

Each host discovers the authorization server from the server's 401, registers by DCR, prints
the authorization URL (BROWSER fails, so nothing opens) and waits on a loopback callback; the
headless browser (tests/authorization/browser.py) signs in through the proxy's consent page
and oidc-provider's login and consent, and the URL it lands on is requested, so the host's own
callback server gets the code. The host's stored token is checked against the proxy's key, and
then a run with a scripted model (codex_cli.py, gemini_cli.py) calls `whoami`, which answers
only a token with mcp:read: the model gets its answer.

Codex keeps its tokens in a file (`mcp_oauth_credentials_store = "file"`), not a keyring the
machine may or may not have. Left to itself (`auto`) it registers by a Client ID Metadata
Document, https://chatgpt.com/oauth/codex/client.json, as the proxy advertises
`client_id_metadata_document_supported`; that document is on the internet, so the login here
asks for DCR, and a test pins what `auto` offers. Gemini CLI asks `[Y/n]` before opening the
browser, on a terminal: it runs in a pseudo-terminal (`Terminal`).
"""

from __future__ import annotations

import codecs
import json
import os
import pty
import queue
import re
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlsplit

import httpx2
import jwt
import pytest

from tests.authorization.browser import authorization_request, log_in
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
from tests.hosts.gemini_cli import (
    GEMINI,
    GeminiStub,
    ensure_gemini,
    gemini_env,
    run_gemini,
    write_settings,
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
        query = authorization_request(url, proxy_url, mcp, "mcp:read")
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
    assert run.namespace("mcp__guarded") == ["read_more", "remember", "whoami"]
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


class Terminal:
    """What a child writes to its pseudo-terminal (the master end `fd`), read by a thread;
    `wait_for(pattern)` blocks until the pattern appears after the last match (or the child
    closed it: AssertionError). For prompts that end no line."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.text = ""
        self._seen = 0
        self._ended = False
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the child and its own children closed the terminal
                data = b""
            with self._changed:
                self.text += decoder.decode(data, final=not data)
                self._ended = not data
                self._changed.notify_all()
            if not data:
                return

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        with self._changed:
            while True:
                found = re.compile(pattern).search(self.text, self._seen)
                if found:
                    self._seen = found.end()
                    return found
                if self._ended:
                    raise AssertionError(f"no {pattern!r} in:\n{self.text}")
                if not self._changed.wait(timeout):
                    raise AssertionError(f"{pattern!r} not seen in {timeout} s:\n{self.text}")


def gemini(home: Path, *args: str) -> str:
    """One short Gemini CLI command's output (stdout and stderr); it must succeed."""
    env = gemini_env(home, "http://127.0.0.1:1")
    with _group([str(GEMINI), *args], env, home) as proc:
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, f"gemini {args} exited {proc.returncode}:\n{out}\n{err}"
    return out + err


def test_gemini_cli_logs_in_through_the_proxy_and_its_token_calls_the_tool(proxy_url: str) -> None:
    ensure_gemini()
    mcp = f"{proxy_url}/mcp"
    listing = "Configured MCP servers:\n\n{}guarded: " + mcp + " (http) - {}\n"
    with tempfile.TemporaryDirectory(prefix="plainmcp-gm-") as tmp:
        home = Path(tmp)
        write_settings(home, {"guarded": {"httpUrl": mcp}})
        assert gemini(home, "mcp", "list") == listing.format("✗ ", "Disconnected")

        with GeminiStub() as unused:
            env = {**gemini_env(home, unused.url), "BROWSER": "false", "NO_COLOR": "1"}
            master, child = pty.openpty()
            try:
                # a terminal on stdin too: a `-p` run reads a piped stdin as more prompt
                login = subprocess.Popen(
                    [str(GEMINI), "-p", "/mcp auth guarded"],
                    stdin=child,
                    stdout=child,
                    stderr=child,
                    env=env,
                    cwd=home,
                    start_new_session=True,
                )
            finally:
                os.close(child)
            try:
                terminal = Terminal(master)
                terminal.wait_for(re.escape("Do you want to continue? [Y/n]: "))
                os.write(master, b"y\r")
                url = terminal.wait_for(rf"{re.escape(proxy_url)}/authorize\?\S+").group()
                # Gemini asks for every scope the resource lists, not the challenge's
                query = authorization_request(url, proxy_url, mcp, "mcp:read mcp:write")
                assert re.fullmatch(r"http://localhost:\d+/oauth/callback", query["redirect_uri"])
                client_id = query["client_id"]
                assert not client_id.startswith("http")  # registered by DCR at the proxy

                landed = log_in(url, query["redirect_uri"])
                back = dict(parse_qsl(urlsplit(landed).query))
                assert (back["state"], back["iss"]) == (query["state"], proxy_url)
                answer = httpx2.get(landed, timeout=10.0)  # to Gemini's callback server
                assert answer.status_code == 200
                assert "<h1>Authentication Successful!</h1>" in answer.text
                terminal.wait_for(
                    re.escape("✅ Successfully authenticated with MCP server 'guarded'!")
                )
                # `/mcp auth` done, Gemini CLI 0.61.0's `-p` ends with a command result it
                # has no non-interactive form for: exit code 42, the login kept
                exiting = "Exiting due to command result that is not supported in non-interactive"
                terminal.wait_for(re.escape(exiting))
                assert login.wait(timeout=30) == 42
            finally:
                if login.poll() is None:
                    os.killpg(login.pid, signal.SIGKILL)
                    login.wait()
                os.close(master)
            assert unused.requests == []  # logging in asks no model anything

        connected = gemini(home, "mcp", "list")
        assert connected == listing.format(
            "Found stored OAuth token for server 'guarded'\n✓ ", "Connected"
        )
        (saved,) = json.loads((home / ".gemini" / "mcp-oauth-tokens.json").read_text())
        assert (saved["serverName"], saved["mcpServerUrl"]) == ("guarded", mcp)
        assert (saved["clientId"], saved["tokenUrl"]) == (client_id, f"{proxy_url}/token")
        token = saved["token"]
        assert (token["tokenType"], token["scope"]) == ("Bearer", "mcp:read mcp:write")
        assert token["refreshToken"]
        claims = claims_of(proxy_url, mcp, saved["token"]["accessToken"])
        assert (claims["aud"], claims["client_id"], claims["scope"]) == (
            mcp,
            client_id,
            "mcp:read mcp:write",
        )
        assert claims["sub"] == "alice"

        model = GeminiStub([ToolUse("mcp_guarded_whoami")])
        run = run_gemini({"guarded": {"httpUrl": mcp}}, (), model=model, home=home)
        assert [t for t in run.tools if t.startswith("mcp_")] == [
            "mcp_guarded_whoami",
            "mcp_guarded_remember",
            "mcp_guarded_read_more",
        ]
        ((response),) = run.results
        assert response["response"] == {
            "output": "<untrusted_context>\nlogged in\n</untrusted_context>"
        }
        assert model.seen == [([Part("text", text="logged in")], False)]
