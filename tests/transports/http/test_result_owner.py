"""A stored result is its caller's (blob_owner.py): over HTTP with bearer tokens, another
principal, a principal without the producing tool's scope, an OAuth client named like the user
and an anonymous request on another endpoint of the same server are all answered as for an
unknown ref or link, through read_more and through resources/read, in both eras; the owner
reads the rest."""

from __future__ import annotations

import re
from typing import Any

import pytest

from plainmcp import Server
from plainmcp.continuation import UNKNOWN_REF
from plainmcp.transports.http import BearerAuth, HttpApp, Principal
from tests.transports.http.asgi import STATELESS, meta, request, stateless_headers

pytestmark = pytest.mark.anyio

SECRET = b"o" * 32
ROW = "Row {:06d}: confidential figures for the board, é and ô. \n"
REPORT = "".join(ROW.format(n) for n in range(3000))
ADMIN = frozenset({"mcp", "mcp:admin"})
TOKENS = {
    "alice": Principal("alice", ADMIN),
    "alice-no-admin": Principal("alice", frozenset({"mcp"})),  # the same user, a narrower token
    "bob": Principal("bob", frozenset({"mcp"})),
    "bob-admin": Principal("bob", ADMIN),  # the scope, but not the owner
    "client-alice": Principal("alice", ADMIN, client=True),  # client_credentials, client_id alice
}
CALL = {"name": "report", "arguments": {}}
REF = re.compile(r'"ref":"([^"]+)"')
LINK = re.compile(r"at resource (plainmcp://blob/[A-Za-z0-9._~-]+)")


def make_apps() -> tuple[HttpApp, HttpApp]:
    """The server behind bearer auth, and the same server on an endpoint without auth."""
    app = Server("owned", state_secret=SECRET)

    @app.tool(scopes=["mcp:admin"])
    def report() -> str:
        """The board's report."""
        return REPORT

    authed = app.http_app(auth=BearerAuth(TOKENS.get, ["https://as.example.com"]))
    return authed, app.http_app()


def rpc(request_id: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


class Caller:
    """One token's requests, in a session (2025-11-25) or stateless (2026-07-28)."""

    def __init__(self, http: HttpApp, token: str | None, era: str) -> None:
        self.http, self.era = http, era
        self.headers = {} if token is None else {"authorization": f"Bearer {token}"}
        self.ids = iter(range(2, 10_000))

    async def start(self) -> Caller:
        if self.era != STATELESS:
            init = rpc(
                1,
                "initialize",
                protocolVersion=self.era,
                capabilities={},
                clientInfo={"name": "t", "version": "0"},
            )
            started = await request(self.http, body=init, headers=self.headers)
            assert started.status == 200
            self.headers = {
                **self.headers,
                "mcp-session-id": started.headers["mcp-session-id"],
                "mcp-protocol-version": self.era,
            }
        return self

    async def send(self, method: str, target: str, params: dict[str, Any]) -> tuple[int, Any]:
        headers = self.headers
        if self.era == STATELESS:
            params = {**params, "_meta": meta()}
            headers = {**headers, **stateless_headers(method, target)}
        body = rpc(next(self.ids), method, **params)
        answer = await request(self.http, body=body, headers=headers, revision=self.era)
        return answer.status, answer.json() if answer.status == 200 else None

    async def read_more(self, ref: str) -> dict[str, Any]:
        params = {"name": "read_more", "arguments": {"ref": ref}}
        status, reply = await self.send("tools/call", "read_more", params)
        assert status == 200
        result: dict[str, Any] = reply["result"]
        return result

    async def read(self, uri: str) -> dict[str, Any]:
        status, reply = await self.send("resources/read", uri, {"uri": uri})
        assert status == 200
        return dict(reply)


def unknown(ref: str, era: str) -> dict[str, Any]:
    text = UNKNOWN_REF.format(ref=f'"{ref}"', name="read_more")
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
    if era == STATELESS:
        server = {"io.modelcontextprotocol/serverInfo": {"name": "owned", "version": "0.1.0"}}
        result.update({"resultType": "complete", "_meta": server})
    return result


def not_found(uri: str, era: str) -> dict[str, Any]:
    code = -32602 if era == STATELESS else -32002
    return {"code": code, "message": f"Resource not found: {uri}", "data": {"uri": uri}}


@pytest.mark.parametrize("era", ["2025-11-25", STATELESS])
async def test_a_scoped_tools_stored_result_is_refused_to_everyone_but_its_owner(era: str) -> None:
    authed, open_endpoint = make_apps()
    alice = await Caller(authed, "alice", era).start()
    status, reply = await alice.send("tools/call", "report", CALL)
    assert status == 200
    first = reply["result"]
    cut = first["content"][0]["text"]
    ref, uri = REF.search(cut), LINK.search(cut)
    assert ref is not None and uri is not None
    ref_text, link = ref.group(1), uri.group(1)

    # The tool itself is refused to bob (403), and so is everything it stored.
    bob = await Caller(authed, "bob", era).start()
    assert (await bob.send("tools/call", "report", CALL))[0] == 403
    others = [
        bob,
        await Caller(authed, "bob-admin", era).start(),
        await Caller(authed, "alice-no-admin", era).start(),
        await Caller(authed, "client-alice", era).start(),
        await Caller(open_endpoint, None, era).start(),
    ]
    for other in others:
        assert await other.read_more(ref_text) == unknown(ref_text, era)
        refused = await other.read(link)
        assert "result" not in refused
        assert refused["error"] == not_found(link, era)

    # The owner reads the rest, both ways.
    kept = cut[: cut.index("\n…[truncated: ")]
    part = await alice.read_more(ref_text)
    assert part["isError"] is False
    assert REPORT[len(kept) :].startswith(part["content"][0]["text"])
    whole = await alice.read(link)
    assert whole["result"]["contents"] == [{"uri": link, "mimeType": "text/plain", "text": REPORT}]


async def test_the_ref_names_neither_the_principal_nor_the_tool() -> None:
    authed, _ = make_apps()
    alice = await Caller(authed, "alice", "2025-11-25").start()
    _, reply = await alice.send("tools/call", "report", CALL)
    found = REF.search(reply["result"]["content"][0]["text"])
    assert found is not None
    import base64

    body = found.group(1).split(".")[0]
    opened = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    assert "alice" not in opened and "report" not in opened and "admin" not in opened


async def test_a_session_of_a_sub_is_not_found_for_a_client_id_of_the_same_text() -> None:
    authed, _ = make_apps()
    alice = await Caller(authed, "alice", "2025-11-25").start()
    client = Caller(authed, "client-alice", "2025-11-25")
    client.headers = {**alice.headers, "authorization": "Bearer client-alice"}
    answer = await request(
        authed, body=rpc(2, "tools/call", **CALL), headers=client.headers, revision="2025-11-25"
    )
    assert (answer.status, answer.json()["error"]["message"]) == (
        404,
        "Session not found: initialize again",
    )
