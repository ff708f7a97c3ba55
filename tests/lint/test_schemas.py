"""Validation against a revision's official schema names where a value fails."""

from __future__ import annotations

import json

from plainmcp.lint.schemas import Checkers
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import schemas_dir


def official() -> dict[str, dict[str, object]]:
    folder = schemas_dir()
    return {r: json.loads((folder / r / "schema.json").read_bytes()) for r in REVISIONS}


def test_a_check_names_the_path_and_the_failure() -> None:
    checker = Checkers(official())
    tool = {"name": "t", "inputSchema": {"type": "object"}, "icons": [{"src": "x", "theme": "b"}]}
    assert checker("2025-11-25", "Tool")(tool) == [
        "at $.icons[0].theme: 'b' is not one of ['dark', 'light']; change what the server sends"
        " there (the definition Tool of the official schema says what it may hold)"
    ]
    assert checker("2025-06-18", "Tool")({"name": "t", "inputSchema": {"type": "object"}}) == []
    assert checker("2024-11-05", "CallToolResult")({"content": "no"}) == [
        "at $.content: 'no' is not of type 'array'; change what the server sends there (the"
        " definition CallToolResult of the official schema says what it may hold)"
    ]


def test_without_schemas_every_check_finds_nothing() -> None:
    """What check uses when it could not get the schemas (offline): no jsonschema needed."""
    checker = Checkers(None)
    assert checker("2025-11-25", "Tool")({"name": 7}) == []


def test_each_check_is_built_once() -> None:
    checker = Checkers(official())
    assert checker("2026-07-28", "Tool") is checker("2026-07-28", "Tool")
    assert checker("2026-07-28", "Tool") is not checker("2025-11-25", "Tool")
