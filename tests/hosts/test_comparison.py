"""docs/hosts.md ends with the comparison of plainmcp, the official SDK and FastMCP rendered from
what test_matrix.py and test_anchors.py pin (comparison.py)."""

from __future__ import annotations

from tests.hosts import comparison, matrix


def test_docs_hosts_md_ends_with_the_comparison() -> None:
    page = comparison.DOCS.read_text(encoding="utf-8")
    assert page.endswith("\n" + comparison.MARKER + "\n\n" + comparison.section()), (
        "docs/hosts.md is stale: python -m tests.hosts.comparison"
    )
    assert page.count(comparison.MARKER) == 1


def test_a_cell_is_holds_or_its_reason() -> None:
    broken = {
        "plainmcp": {"h-stdio": {"audio": "lost | gone"}},
        "sdk": {"h-stdio": {}},
        "fastmcp": {},
    }
    text = comparison.comparison_markdown(["h-stdio"], broken, "H 1.0", "Why not run.")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0] == "| promise | plainmcp | official SDK (`mcp` 2.3.0) | FastMCP 4.2.3 |"
    assert "| audio | lost \\| gone | holds | not run |" in rows
    assert len(rows) == 1 + len(matrix.CHECKS)
    assert "\nWhy not run.\n" in text


def test_the_page_splits_at_the_marker() -> None:
    page = "# Hosts\n\ntable\n\n" + comparison.MARKER + "\n\n## compared\n"
    assert comparison.head_of(page) == "# Hosts\n\ntable\n"
    assert comparison.tail_of(page) == "\n## compared\n"
    assert comparison.head_of("# Hosts\n") == "# Hosts\n"
