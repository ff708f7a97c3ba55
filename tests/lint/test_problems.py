"""Problems found at several revisions and hosts are reported once, in a stable order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from plainmcp.lint.problems import CODES, Problem, merged

ORDER = ("2024-11-05", "2025-06-18", "2026-07-28")


def test_the_same_problem_at_several_revisions_and_hosts_is_one() -> None:
    found = [
        Problem("over-limit", "tool b call {}", "too big", ("2026-07-28",), ("h2",)),
        Problem("missing-description", "tool a", "none"),
        Problem("over-limit", "tool b call {}", "too big", ("2024-11-05",), ("h1",)),
        Problem("over-limit", "tool b call {}", "too big", ("2025-06-18",), ("h2",)),
    ]
    assert merged(found, ORDER) == [
        Problem("missing-description", "tool a", "none"),
        Problem("over-limit", "tool b call {}", "too big", ORDER, ("h1", "h2")),
    ]
    assert merged(reversed(found), ORDER) == merged(found, ORDER)


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown problem code 'typo'"):
        Problem("typo", "tool a", "x")


def test_every_code_is_documented_in_the_check_page() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "check.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `([a-z][a-z-]+)` \|", page, re.M)
    assert documented == list(CODES)
