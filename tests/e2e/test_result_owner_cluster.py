"""Stored results keep their owner across processes: nginx in front of three plainmcp
processes with their sessions and blob store on one real Redis (tests/cluster.py). alice's
scoped result is refused to bob (with or without the scope) and to alice's own narrower token,
through read_more and resources/read, on every process and in both eras; alice follows every
part, each served by whichever process nginx picks, and rebuilds the text exactly."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plainmcp.continuation import UNKNOWN_REF
from tests.cluster import Nginx, RedisServer, nginx, redis_server
from tests.http_server import HttpServer, http_server

SERVER = Path(__file__).resolve().parent / "servers" / "owned_results.py"
ACCEPT = "application/json, text/event-stream"
STATELESS = "2026-07-28"
ROW = "Row {:06d}: confidential figures for the board, é and ô. \n"
REPORT = "".join(ROW.format(n) for n in range(3000))
"""What the server's `report` tool returns (tests/e2e/servers/owned_results.py)."""
REF = re.compile(r'"ref":"([^"]+)"')
LINK = re.compile(r"at resource (plainmcp://blob/[A-Za-z0-9._~-]+)")


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture(scope="module")
def cluster(redis: RedisServer) -> Iterator[tuple[Nginx, list[HttpServer]]]:
    env = {"PLAINMCP_TEST_SESSIONS": redis.url, "PLAINMCP_STATE_SECRET": secrets.token_hex(32)}
    with contextlib.ExitStack() as stack:
        three = [stack.enter_context(http_server(SERVER, env=env, script=True)) for _ in range(3)]
        balancer = stack.enter_context(nginx([s.port for s in three]))
        yield balancer, three


class Caller:
    """One token's requests to one port: a 2025-11-25 session, or 2026-07-28 stateless."""

    def __init__(self, port: int, token: str, era: str, session: str | None = None) -> None:
        self.port, self.token, self.era, self.session = port, token, era, session
        self.next_id = 1

    def post(self, method: str, target: str, params: dict[str, Any]) -> tuple[int, Any]:
        headers = {
            "Content-Type": "application/json",
            "Accept": ACCEPT,
            "Authorization": f"Bearer {self.token}",
            "MCP-Protocol-Version": self.era,
        }
        if self.era == STATELESS:
            headers |= {"Mcp-Method": method, "Mcp-Name": target}
            params = {
                **params,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": STATELESS,
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            }
        elif self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            conn.request("POST", "/mcp", json.dumps(body).encode(), headers)
            response = conn.getresponse()
            raw = response.read()
            if self.session is None and self.era != STATELESS:
                self.session = response.getheader("mcp-session-id")
            if response.getheader("content-type") == "text/event-stream":
                data = [x[5:] for x in raw.decode().split("\n") if x.startswith("data:")]
                return response.status, json.loads([d for d in data if d.strip()][-1])
            return response.status, json.loads(raw) if raw else None
        finally:
            conn.close()

    def start(self) -> Caller:
        if self.era != STATELESS:
            client = {"protocolVersion": self.era, "capabilities": {}}
            status, _ = self.post("initialize", "", {**client, "clientInfo": {"name": "t"}})
            assert status == 200 and self.session is not None
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
            headers = {
                "Content-Type": "application/json",
                "Accept": ACCEPT,
                "Authorization": f"Bearer {self.token}",
                "MCP-Protocol-Version": self.era,
                "Mcp-Session-Id": self.session,
            }
            conn.request("POST", "/mcp", json.dumps(done).encode(), headers)
            assert conn.getresponse().status == 202
            conn.close()
        return self

    def on(self, port: int) -> Caller:
        """The same token (and session) sent to another port."""
        other = Caller(port, self.token, self.era, self.session)
        other.next_id = self.next_id + 100
        return other

    def call(self, name: str, **arguments: Any) -> tuple[int, Any]:
        return self.post("tools/call", name, {"name": name, "arguments": arguments})

    def read(self, uri: str) -> Any:
        status, reply = self.post("resources/read", uri, {"uri": uri})
        assert status == 200
        return reply


def text_of(reply: Any) -> str:
    text: str = reply["result"]["content"][0]["text"]
    return text


@pytest.mark.parametrize("era", ["2025-11-25", STATELESS])
def test_a_stored_result_is_its_owners_on_every_process(
    cluster: tuple[Nginx, list[HttpServer]], era: str
) -> None:
    balancer, three = cluster
    alice = Caller(balancer.port, "alice", era).start()
    status, first = alice.call("report")
    assert status == 200
    cut = text_of(first)
    ref, link = REF.search(cut), LINK.search(cut)
    assert ref is not None and link is not None
    uri = link.group(1)

    for token in ("bob", "bob-admin", "alice-no-admin"):
        other = Caller(balancer.port, token, era).start()
        for process in three:
            there = other.on(process.port)
            status, refused = there.call("read_more", ref=ref.group(1))
            assert status == 200
            unknown = UNKNOWN_REF.format(ref=json.dumps(ref.group(1)), name="read_more")
            assert refused["result"]["content"] == [{"type": "text", "text": unknown}]
            assert refused["result"]["isError"] is True
            code = -32602 if era == STATELESS else -32002
            assert there.read(uri)["error"] == {
                "code": code,
                "message": f"Resource not found: {uri}",
                "data": {"uri": uri},
            }

    # alice follows every part, each from whichever process nginx sends it to.
    text = cut[: cut.index("\n…[truncated: ")]
    call = REF.search(cut)
    pids: set[int] = set()
    while call is not None:
        status, part = alice.call("read_more", ref=call.group(1))
        assert status == 200 and part["result"]["isError"] is False
        blocks = part["result"]["content"]
        text += blocks[0]["text"]
        call = REF.search(blocks[1]["text"]) if len(blocks) > 1 else None
        pids.add(int(text_of(alice.call("pid")[1])))
    assert text == REPORT
    assert len(pids) > 1
    whole = alice.read(uri)["result"]["contents"]
    assert whole == [{"uri": uri, "mimeType": "text/plain", "text": REPORT}]
