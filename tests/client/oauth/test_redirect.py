"""The default redirect handler: a loopback listener on 127.0.0.1 (a real socket)."""

from __future__ import annotations

from collections.abc import Mapping

import anyio
import httpx2
import pytest

from plainmcp.client.oauth import LoopbackRedirect

pytestmark = pytest.mark.anyio


async def test_the_loopback_redirect_returns_the_callbacks_parameters() -> None:
    shown: list[str] = []
    redirect = LoopbackRedirect(open_browser=False, show=shown.append)
    assert redirect.redirect_uri == f"http://127.0.0.1:{redirect.port}/callback"
    got: list[Mapping[str, str]] = []
    async with anyio.create_task_group() as tasks:

        async def wait() -> None:
            got.append(await redirect("https://as.test/authorize?x=1"))

        tasks.start_soon(wait)
        async with httpx2.AsyncClient() as http:
            other = await http.get(f"http://127.0.0.1:{redirect.port}/favicon.ico")
            answer = await http.get(f"{redirect.redirect_uri}?code=k&state=s&iss=https%3A%2F%2Fa")
    redirect.close()
    assert (other.status_code, answer.status_code) == (404, 200)
    assert "You can close this window." in answer.text
    assert got == [{"code": "k", "state": "s", "iss": "https://a"}]
    assert shown == ["https://as.test/authorize?x=1"]
