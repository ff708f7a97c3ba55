"""The server surface over a real subprocess: `python tests/e2e/servers/surface.py` (`app.run()`),
raw JSON lines over pipes, every line validated against the negotiated revision's official schema
(the `Proc` harness of test_stdio.py). A 5 MB text and a 20 MB image are served within the default
payload limits and read back whole through resources/read; a resource, a prompt and a completion.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.continuation import as_documented
from tests.e2e import test_stdio
from tests.e2e.servers.surface import large_png, long_text
from tests.e2e.test_stdio import Proc

SURFACE = Path(__file__).parent / "servers" / "surface.py"
IMAGE_DESCRIPTION = (
    "An image/png image of 20,971,520 bytes, too large to send inline (limit 1,048,576 bytes);"
    " stored for 60 minutes; read it with resources/read."
)
TEXT_DESCRIPTION = (
    "The full text of the block cut above (5,000,000 characters); stored for 60 minutes."
)


@pytest.fixture
def start(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Start the surface server (Proc spawns test_stdio.SERVER); every process is checked and
    killed at the end."""
    monkeypatch.setattr(test_stdio, "SERVER", SURFACE)
    started: list[Proc] = []

    def make(version: str) -> Proc:
        proc = Proc(version)
        started.append(proc)
        return proc

    try:
        yield make
        for proc in started:
            proc.check()
    finally:
        for proc in started:
            proc.kill()


def line_size(message: Any) -> int:
    return len(orjson.dumps(message)) + 1


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25"])
def test_large_results_are_served_within_the_limits_and_read_back(start: Any, version: str) -> None:
    proc: Proc = start(version)
    proc.initialize(version)

    # 5,000,000 characters of text: cut at a paragraph, the rest a link away
    reply = proc.request("tools/call", {"name": "dump_log"})
    assert line_size(reply) < 45_000
    cut, link = reply["result"]["content"]
    assert reply["result"]["isError"] is False
    kept, marker = cut["text"].split("\n…", 1)
    text = long_text()
    assert text.startswith(kept) and text[len(kept) :].startswith("\n\n")
    uri = marker.split("The full text is also at resource ", 1)[1].split(";", 1)[0]
    assert as_documented(marker) == (
        "[truncated: showing 39,506 of 5,000,000 characters. For the rest, call the tool"
        ' read_more with arguments {"ref":"<ref>"}. The full text is also at resource'
        f" {uri}; read it with resources/read]"
    )
    if version >= "2025-06-18":
        assert link == {
            "type": "resource_link",
            "uri": uri,
            "name": "text-1.txt",
            "description": TEXT_DESCRIPTION,
            "mimeType": "text/plain",
            "size": 5_000_000,
        }
    else:
        assert link == {
            "type": "text",
            "text": f"Resource link: {uri}\nname: text-1.txt\ntype: text/plain\n"
            f"size: 5000000 bytes\ndescription: {TEXT_DESCRIPTION}",
        }
    assert proc.result("resources/read", {"uri": uri}) == {
        "contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]
    }

    # a 20 MiB image: not inlined; its bytes come back identical
    reply = proc.request("tools/call", {"name": "scan"})
    assert line_size(reply) < 2_000
    caption, link = reply["result"]["content"]
    assert caption == {"type": "text", "text": "The full-resolution scan"}
    if version >= "2025-06-18":
        uri = link["uri"]
        assert link == {
            "type": "resource_link",
            "uri": uri,
            "name": "image-2.png",
            "description": IMAGE_DESCRIPTION,
            "mimeType": "image/png",
            "size": 20_971_520,
        }
    else:
        uri = link["text"].split("\n", 1)[0].removeprefix("Resource link: ")
        assert link == {
            "type": "text",
            "text": f"Resource link: {uri}\nname: image-2.png\ntype: image/png\n"
            f"size: 20971520 bytes\ndescription: {IMAGE_DESCRIPTION}",
        }
    (contents,) = proc.result("resources/read", {"uri": uri})["contents"]
    assert contents["uri"] == uri and contents["mimeType"] == "image/png"
    assert base64.b64decode(contents["blob"], validate=True) == large_png()

    # the session goes on, and an unknown blob is not found
    gone = proc.request("resources/read", {"uri": "plainmcp://blob/" + "A" * 43})
    assert gone["error"]["code"] == -32002
    assert proc.result("ping") == {}
    proc.close_stdin()
    assert proc.wait() == 0
    assert b"Traceback" not in proc.stderr


def test_a_resource_a_prompt_and_a_completion(start: Any) -> None:
    proc: Proc = start("2025-06-18")
    init = proc.initialize("2025-06-18")
    assert init["capabilities"] == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": True},
        "completions": {},
    }
    assert proc.result("resources/list") == {
        "resources": [
            {
                "uri": "app://readme",
                "name": "app://readme",
                "description": "The readme.",
                "mimeType": "text/plain",
                "size": 14,
            }
        ]
    }
    assert proc.result("resources/read", {"uri": "app://readme"}) == {
        "contents": [{"uri": "app://readme", "mimeType": "text/plain", "text": "Read me first."}]
    }
    assert proc.result("resources/read", {"uri": "users://21/profile"}) == {
        "contents": [
            {
                "uri": "users://21/profile",
                "mimeType": "application/json",
                "text": '{"id":21,"double":42}',
            }
        ]
    }
    missing = proc.request("resources/read", {"uri": "users://..%2Fetc/profile"})
    assert missing["error"] == {
        "code": -32002,
        "message": "Resource not found: users://..%2Fetc/profile",
        "data": {"uri": "users://..%2Fetc/profile"},
    }
    assert proc.result("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}) == {
        "description": "Greet someone.",
        "messages": [{"role": "user", "content": {"type": "text", "text": "Hello Ada"}}],
    }
    bad = proc.request("prompts/get", {"name": "greet", "arguments": {}})
    assert bad["error"] == {
        "code": -32602,
        "message": "Invalid arguments for prompt 'greet':\n- name: required argument missing",
    }
    completed = proc.result(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "greet"},
            "argument": {"name": "style", "value": "f"},
        },
    )
    assert completed == {"completion": {"values": ["formal"], "total": 1, "hasMore": False}}
    proc.close_stdin()
    assert proc.wait() == 0
