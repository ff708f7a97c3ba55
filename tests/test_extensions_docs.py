"""The wire lines docs/extensions.md shows are valid: each line its snippets print (and
tests/test_docs.py checks exactly) is validated against the official schema of its revision.
A core result against its method's result definition, the extension's own result and
notification against the JSON-RPC envelope (the core schema does not define them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.doc_snippets import parse
from tests.mcp_schemas import validate_definition, validate_server_message

PAGE = Path(__file__).resolve().parents[1] / "docs" / "extensions.md"
CORE_RESULTS = {
    "supportedVersions": "server/discover",
    "protocolVersion": "initialize",
    "content": "tools/call",
}
"""A key only that method's result has -> the method (the page's lines name no method)."""


def wire_lines() -> list[tuple[str, dict[str, Any]]]:
    """(revision, message) for every line the page's stdio snippets print."""
    found = []
    for block in parse(PAGE).blocks:
        if block.kind != "run" or "exchange(" not in block.text or block.expected is None:
            continue
        revision = "2025-11-25" if '"initialize"' in block.text else "2026-07-28"
        found += [(revision, json.loads(line)) for line in block.expected.splitlines()]
    return found


def test_the_page_shows_every_kind_of_line() -> None:
    kinds = {
        "notification" if "method" in m else "error" if "error" in m else "result"
        for _, m in wire_lines()
    }
    assert kinds == {"notification", "error", "result"}
    assert {rev for rev, _ in wire_lines()} == {"2025-11-25", "2026-07-28"}


def test_every_line_is_valid_for_its_revision() -> None:
    for revision, message in wire_lines():
        if "method" in message:
            validate_definition(message, revision, "JSONRPCNotification")
            continue
        result = message.get("result", {})
        method = next((m for key, m in CORE_RESULTS.items() if key in result), None)
        validate_server_message(message, revision, method=method)
