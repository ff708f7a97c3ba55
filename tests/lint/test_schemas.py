"""The schemas shipped for `plainmcp check` are the official ones (only what check needs), and
validation names where a value fails."""

from __future__ import annotations

import json

import pytest

from plainmcp.lint.schemas import DEFINITIONS, checker, extract, schema, shipped_path
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import schemas_dir


@pytest.mark.parametrize("revision", list(REVISIONS))
def test_the_shipped_schema_is_the_official_one_cut_to_what_check_needs(revision: str) -> None:
    official = json.loads((schemas_dir() / revision / "schema.json").read_text(encoding="utf-8"))
    assert shipped_path(revision).read_text(encoding="utf-8") == (
        json.dumps(extract(official), indent=2) + "\n"
    ), "stale: python -m plainmcp.lint.schemas ../shared/mcp-schemas"
    defs = schema(revision).get("$defs") or schema(revision)["definitions"]
    assert set(DEFINITIONS) <= set(defs)
    official_defs = official.get("$defs") or official["definitions"]
    assert all(defs[name] == official_defs[name] for name in defs)


def test_a_check_names_the_path_and_the_failure() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "icons": [{"src": "x", "theme": "b"}]}
    assert checker("2025-11-25", "Tool")(tool) == [
        "at $.icons[0].theme: 'b' is not one of ['dark', 'light']"
    ]
    assert checker("2025-06-18", "Tool")({"name": "t", "inputSchema": {"type": "object"}}) == []
    assert checker("2024-11-05", "CallToolResult")({"content": "no"}) == [
        "at $.content: 'no' is not of type 'array'"
    ]
