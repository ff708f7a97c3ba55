"""wire.era: the one predicate telling the eras apart, from a body or from a version."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp.wire import era

VERSION = "io.modelcontextprotocol/protocolVersion"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, False),
        ({"_meta": {}}, False),
        ({"_meta": None}, False),
        ({"_meta": {"progressToken": 1}}, False),
        ({"_meta": [VERSION]}, False),
        ({"_meta": {VERSION: "2026-07-28"}}, True),
        ({"_meta": {VERSION: "1999-01-01"}}, True),  # refused later, as that era's error
        ({"_meta": {VERSION: 5}}, True),
    ],
)
def test_a_body_is_stateless_when_its_meta_names_a_version(
    params: dict[str, Any], expected: bool
) -> None:
    assert era.stateless(params) is expected


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2026-07-28", True),
        ("2025-11-25", False),
        ("2024-11-05", False),
        ("1999-01-01", False),
        ("", False),
        (" 2026-07-28", False),  # as given: a header is stripped by its reader
        (None, False),
    ],
)
def test_a_version_is_stateless_when_its_revision_has_no_handshake(
    version: str | None, expected: bool
) -> None:
    assert era.stateless(version=version) is expected


def test_either_says_so() -> None:
    assert era.stateless({}, version="2026-07-28")
    assert era.stateless({"_meta": {VERSION: "2026-07-28"}}, version="2025-11-25")
    assert not era.stateless(None)
