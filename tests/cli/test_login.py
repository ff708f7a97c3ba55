"""plainmcp login / logout: credentials in the owner-only file store, by server URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio

from plainmcp.client.oauth import FileTokenStore
from tests.http_server import http_server

OPEN = """
from plainmcp import Server

app = Server("open")


@app.tool
def ping() -> str:
    return "pong"


web = app.http_app()
"""


def plainmcp(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PLAINMCP_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_logout_forgets_the_servers_credentials_only(tmp_path: Path) -> None:
    store = FileTokenStore(str(tmp_path / "oauth"))
    url, other = "https://a.test/mcp", "https://b.test/mcp"
    anyio.run(store.save, url, {"token": None})
    anyio.run(store.save, other, {"token": None})
    proc = plainmcp(tmp_path, "logout", url)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"logged out of {url}\n", "")
    assert anyio.run(store.load, url) is None
    assert anyio.run(store.load, other) == {"token": None}
    proc = plainmcp(tmp_path, "logout", url)
    assert (proc.returncode, proc.stdout) == (0, f"no login kept for {url}\n")


def test_login_takes_a_url(tmp_path: Path) -> None:
    proc = plainmcp(tmp_path, "login", "server.py")
    assert proc.returncode == 2
    assert "login takes a server's URL (http://...), not 'server.py'" in proc.stderr


def test_login_to_a_server_without_auth_says_so_and_keeps_nothing(tmp_path: Path) -> None:
    server_file = tmp_path / "open.py"
    server_file.write_text(OPEN)
    with http_server(server_file) as server:
        proc = plainmcp(tmp_path, "login", server.url)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        f"{server.url} asks for no login\n",
        "",
    )
    assert not (tmp_path / "oauth").exists()
