"""Over real stdio subprocesses, one per call as LangChain's default `get_tools()` makes them: a
ref one process of a server gave out is followed by the next process of that server, part
after part, to the whole text exactly; another server's process does not know it, nor does a
server told to keep its state in memory; a server that cuts nothing writes nothing. The user
cache is PLAINMCP_CACHE_DIR pointed at the test's own folder."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from plainmcp.client import Client
from plainmcp.continuation import UNKNOWN_REF
from plainmcp.user_cache import namespace
from tests.continuation import next_call
from tests.e2e.servers.cached_refs import TEXT

SERVER = Path(__file__).parent / "servers" / "cached_refs.py"
CUT = "\n…[truncated: "

pytestmark = pytest.mark.anyio


async def call_once(
    cache: Path, name: str, arguments: dict[str, Any], **env: str
) -> dict[str, Any]:
    """One call in a server process of its own, which ends before this returns."""
    environ = {"PLAINMCP_CACHE_DIR": str(cache), **env}
    async with Client.stdio(sys.executable, str(SERVER), env=environ) as client:
        result = await client.call_tool(name, arguments)
    return result.raw


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_ref_is_followed_in_the_next_process_to_the_whole_text(tmp_path: Path) -> None:
    first = await call_once(tmp_path, "long_text", {})
    head = first["content"][0]["text"]
    kept = head.split(CUT)[0]
    assert TEXT.startswith(kept) and len(kept) < len(TEXT)
    call = next_call(head)
    assert call is not None
    rebuilt, calls = kept, 0
    while call is not None:
        part = await call_once(tmp_path, *call)  # a new process, as each call before it
        calls += 1
        assert part["isError"] is False, part
        assert part["_meta"]["plainmcp/partial"]["from"] == len(rebuilt)
        text = part["content"][0]["text"]
        assert text == TEXT[len(rebuilt) : len(rebuilt) + len(text)]  # the next part, exactly
        rebuilt += text
        call = next_call(part["content"][-1]["text"]) if len(part["content"]) > 1 else None
    assert rebuilt == TEXT
    assert calls == 17

    folder = tmp_path / "stdio" / "cached-refs"
    assert mode(tmp_path) == mode(tmp_path / "stdio") == mode(folder) == 0o700
    assert mode(folder / "blobs") == 0o700
    assert mode(folder / "state-secret") == 0o600
    (stored,) = [p for p in (folder / "blobs").iterdir() if not p.name.startswith(".")]
    assert mode(stored) == 0o600
    assert stored.read_bytes().endswith(TEXT.encode())


async def test_another_server_or_one_kept_in_memory_does_not_know_the_ref(
    tmp_path: Path,
) -> None:
    first = await call_once(tmp_path, "long_text", {})
    kept = first["content"][0]["text"].split(CUT)[0]
    call = next_call(first["content"][0]["text"])
    assert call is not None
    name, arguments = call
    unknown = UNKNOWN_REF.format(ref=orjson.dumps(arguments["ref"]).decode(), name=name)

    other = await call_once(tmp_path, name, arguments, PLAINMCP_TEST_NAME="other server/1")
    assert other["isError"] is True
    assert other["content"] == [{"type": "text", "text": unknown}]
    # Its folder holds a secret of its own (to check the ref with), and no payload.
    others = namespace("other server/1")
    assert others.startswith("other_server_1-")
    assert sorted(p.name for p in (tmp_path / "stdio").iterdir()) == ["cached-refs", others]
    assert sorted(p.name for p in (tmp_path / "stdio" / others).iterdir()) == [
        ".lock",
        "state-secret",
    ]

    in_memory = await call_once(tmp_path, name, arguments, PLAINMCP_TEST_NO_CACHE="1")
    assert in_memory["isError"] is True
    assert in_memory["content"] == [{"type": "text", "text": unknown}]

    same = await call_once(tmp_path, name, arguments)
    assert same["isError"] is False
    part = same["content"][0]["text"]
    assert part == TEXT[len(kept) : len(kept) + len(part)]


async def test_a_server_that_cuts_nothing_touches_no_disk(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    short = await call_once(cache, "short", {})
    assert short["content"] == [{"type": "text", "text": "short"}]
    assert not os.path.lexists(cache)
