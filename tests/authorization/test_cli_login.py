"""`plainmcp login URL`, then `call` and `logout`, as a user runs them: the command prints the
authorization URL (BROWSER is `true`, so nothing opens), the headless browser signs in through
the proxy's consent page and oidc-provider (the `proxy_url` fixture) and requests the URL it
lands on, which the command's loopback callback is waiting for; the token kept in the file
store then serves `plainmcp call` without another login."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2

from tests.authorization.browser import log_in
from tests.authorization.test_end_to_end import proxy_url

__all__ = ["proxy_url"]  # the fixture


def environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "PLAINMCP_CACHE_DIR": str(cache), "BROWSER": "true"}


def plainmcp(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment(cache),
        stdin=subprocess.DEVNULL,
    )


def test_login_then_call_with_the_kept_token_then_logout(proxy_url: str, tmp_path: Path) -> None:
    mcp = f"{proxy_url}/mcp"
    login = subprocess.Popen(
        [sys.executable, "-m", "plainmcp", "login", mcp],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=environment(tmp_path),
    )
    try:
        assert login.stderr is not None
        assert login.stderr.readline() == "Open this URL to sign in:\n"
        url = login.stderr.readline().strip()
        query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
        assert url.startswith(f"{proxy_url}/authorize?")
        assert (query["scope"], query["resource"]) == ("mcp:read", mcp)
        landed = log_in(url, query["redirect_uri"])
        assert httpx2.get(landed, timeout=30.0).status_code == 200  # the command's callback
        out, err = login.communicate(timeout=60)
    finally:
        login.kill()
    files = list((tmp_path / "oauth").iterdir())
    assert (login.returncode, out, err) == (
        0,
        f"logged in to {mcp} (credentials in {files[0]})\n",
        "",
    )
    called = plainmcp(tmp_path, "call", mcp, "whoami")
    assert (called.returncode, called.stdout, called.stderr) == (0, "logged in\n", "")
    out_of = plainmcp(tmp_path, "logout", mcp)
    assert (out_of.returncode, out_of.stdout) == (0, f"logged out of {mcp}\n")
    assert list((tmp_path / "oauth").iterdir()) == []
