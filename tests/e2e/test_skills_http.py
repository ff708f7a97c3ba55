"""Skills (SEP-2640) end to end: examples/everything_server.py, the conformance fixture, served
by `plainmcp run --http` and read over a real socket at 2025-11-25 (a session) and 2026-07-28
(stateless), as a host would: list, get, read every file against its digest and size, read
directories. Every message is validated against its revision's official schema (the JSON-RPC
envelope for SEP-2640's own results, which also match SEP-2640's shapes: tests/skills/wire.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_http import META, STATELESS, post
from tests.http_server import HttpServer, http_server
from tests.skills import wire

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "examples" / "everything_server.py"
FOLDER = ROOT / "examples" / "skills" / "release-notes"
ERAS = ("2025-11-25", STATELESS)


@pytest.fixture(scope="module")
def server() -> Iterator[HttpServer]:
    with http_server(EVERYTHING) as served:
        yield served


class Host:
    """One client of the server at one revision: a session, or stateless requests."""

    def __init__(self, server: HttpServer, revision: str) -> None:
        self.server, self.revision, self.ids = server, revision, iter(range(1, 1000))
        self.headers: dict[str, str] = {}
        if revision != STATELESS:
            init = self.ask(
                "initialize",
                protocolVersion=revision,
                capabilities={},
                clientInfo={"name": "e2e-skills", "version": "0"},
            )
            self.capabilities = init["result"]["capabilities"]
            self.headers = {"Mcp-Session-Id": self.session, "MCP-Protocol-Version": revision}
            done = post(
                server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers
            )
            assert done.status == 202
        else:
            self.capabilities = self.ask("server/discover")["result"]["capabilities"]

    def ask(self, method: str, **params: Any) -> Any:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        headers = dict(self.headers)
        if self.revision == STATELESS:
            body["params"] = {**params, "_meta": META}
            headers.update({"MCP-Protocol-Version": STATELESS, "Mcp-Method": method})
            if method == "resources/read":
                headers["Mcp-Name"] = params["uri"]
        elif params:
            body["params"] = params
        ours = method in wire.SCHEMAS  # not in the core schema: validated as an envelope here
        reply = post(
            self.server,
            None if ours else body,
            headers,
            revision=self.revision,
            raw=json.dumps(body).encode(),
        )
        if ours:
            reply.method = None
        assert reply.status == 200, reply.body
        if method == "initialize":
            self.session = reply.headers["mcp-session-id"]
        message = reply.message()
        if ours and "result" in message:
            wire.check(method, message["result"], self.revision)
        return message


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


SKILL_MD = (FOLDER / "SKILL.md").read_bytes()
STYLE = (FOLDER / "references" / "STYLE.md").read_bytes()
ENTRY = {
    "uri": "skill://release-notes/SKILL.md",
    "frontmatter": {
        "name": "release-notes",
        "description": (
            "Write the release notes of a plainmcp release from its merged changes, in the"
            " project's style."
        ),
        "license": "MIT",
        "metadata": {"version": "1.0"},
    },
    "resources": [
        {"uri": "skill://release-notes/SKILL.md", "digest": sha(SKILL_MD), "size": len(SKILL_MD)},
        {
            "uri": "skill://release-notes/references/STYLE.md",
            "digest": sha(STYLE),
            "size": len(STYLE),
        },
    ],
}


def plain(result: dict[str, Any]) -> dict[str, Any]:
    """A result without what every result of its revision carries (checked by wire.check)."""
    return {
        k: v for k, v in result.items() if k not in ("_meta", "resultType", "ttlMs", "cacheScope")
    }


@pytest.mark.parametrize("revision", ERAS)
def test_a_host_lists_gets_and_reads_the_skill_verified(server: HttpServer, revision: str) -> None:
    host = Host(server, revision)
    tasks = {"io.modelcontextprotocol/tasks": {}} if revision == STATELESS else {}
    assert host.capabilities["extensions"] == {
        "io.modelcontextprotocol/skills": {"directoryRead": True},
        **tasks,  # the fixture's task tools: the tasks extension at 2026-07-28
    }
    assert "resources" in host.capabilities
    listed = host.ask("skills/list")["result"]
    assert plain(listed) == {"skills": [ENTRY]}
    got = host.ask("skills/get", uri=ENTRY["uri"])["result"]
    assert plain(got) == {"skill": ENTRY}
    for item in ENTRY["resources"]:
        [contents] = host.ask("resources/read", uri=item["uri"])["result"]["contents"]
        data = contents["text"].encode()
        assert (contents["mimeType"], sha(data), len(data)) == (
            "text/markdown",
            item["digest"],
            item["size"],
        )
    unknown = host.ask("skills/get", uri="skill://nowhere/SKILL.md")
    assert unknown["error"] == {
        "code": -32602,
        "message": "No skill is served at skill://nowhere/SKILL.md",
    }


@pytest.mark.parametrize("revision", ERAS)
def test_a_host_reads_the_skill_folders(server: HttpServer, revision: str) -> None:
    host = Host(server, revision)
    root = host.ask("resources/directory/read", uri="skill://release-notes")["result"]
    assert plain(root) == {
        "resources": [
            {
                "uri": "skill://release-notes/SKILL.md",
                "name": "SKILL.md",
                "mimeType": "text/markdown",
                "size": len(SKILL_MD),
            },
            {
                "uri": "skill://release-notes/references",
                "name": "references",
                "mimeType": "inode/directory",
            },
        ]
    }
    sub = host.ask("resources/directory/read", uri="skill://release-notes/references")["result"]
    assert plain(sub)["resources"] == [
        {
            "uri": "skill://release-notes/references/STYLE.md",
            "name": "STYLE.md",
            "mimeType": "text/markdown",
            "size": len(STYLE),
        }
    ]
    refused = host.ask("resources/directory/read", uri="skill://release-notes/SKILL.md")
    assert refused["error"] == {
        "code": -32602,
        "message": "skill://release-notes/SKILL.md is not a directory resource",
    }
