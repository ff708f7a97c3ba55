"""docs/compatibility.md (plainmcp.compatibility): the page is what the generator writes from the
everything server, and its extensions section is read from the extensions a Server is given
(their `since` and settings) and the capabilities it announces, not written by hand."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from plainmcp import Server
from plainmcp.compatibility import extensions_markdown, load_server, page
from plainmcp.extensions import Extension
from plainmcp.offers import Offers
from plainmcp.wire.revisions import Revision, compatibility_markdown

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "compatibility.md"
EVERYTHING = ROOT / "examples" / "everything_server.py"
HEAD = (
    "| | 2024-11-05 | 2025-03-26 | 2025-06-18 | 2025-11-25 | 2026-07-28 |\n"
    "|---|---|---|---|---|---|"
)
TASKS_ROW = (
    "| core `tasks` capability (2025-11-25: `tasks/*`, `execution.taskSupport`) "
    "| – | – | – | – | – |"
)


class Widgets(Extension):
    id = "com.example/widgets"

    def capability(self) -> Mapping[str, Any]:
        return {"maxWidgets": 3, "colors": ["red"]}


class Older(Extension):
    id = "com.example/older"
    since = "2025-06-18"


def test_the_page_is_generated_from_the_everything_server() -> None:
    actual = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    assert actual == page(load_server(str(EVERYTHING))), (
        "docs/compatibility.md is stale; regenerate it with\n"
        "    .venv/bin/python -m plainmcp.compatibility examples/everything_server.py"
        " > docs/compatibility.md"
    )


def test_the_command_writes_the_page() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "plainmcp.compatibility", str(EVERYTHING)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == page(load_server(str(EVERYTHING)))


def test_each_extension_is_a_row_from_its_own_declaration() -> None:
    app = Server("s", extensions=[Widgets(), Older()])
    assert extensions_markdown(app) == textwrap.dedent(
        f"""\
        {HEAD.splitlines()[0]}
        {HEAD.splitlines()[1]}
        {TASKS_ROW}
        | extension `com.example/widgets` | – | – | – | – | yes |
        | extension `com.example/older` | – | – | yes | yes | yes |

        | extension | offered from | settings (`capabilities.extensions[id]`) |
        |---|---|---|
        | `com.example/widgets` | 2026-07-28 | `{{"colors": ["red"], "maxWidgets": 3}}` |
        | `com.example/older` | 2025-06-18 | `{{}}` |"""
    )


def test_a_server_without_extensions_says_so() -> None:
    assert (
        extensions_markdown(Server("s"))
        == f"{HEAD}\n{TASKS_ROW}\n\nThe server is given no extensions."
    )


def test_the_core_tasks_row_is_where_the_server_announces_tasks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = Offers.capabilities

    def with_tasks(self: Offers, rev: Revision) -> dict[str, Any]:
        caps = real(self, rev)
        return {**caps, "tasks": {"list": {}}} if rev.version == "2025-11-25" else caps

    monkeypatch.setattr(Offers, "capabilities", with_tasks)
    assert extensions_markdown(Server("s")).splitlines()[2] == (
        "| core `tasks` capability (2025-11-25: `tasks/*`, `execution.taskSupport`) "
        "| – | – | – | yes | – |"
    )


def test_the_section_sits_between_the_revision_table_and_the_fallbacks() -> None:
    text = page(Server("s", extensions=[Widgets()]))
    assert text == compatibility_markdown(
        extensions=extensions_markdown(Server("s", extensions=[Widgets()]))
    )
    before, _, after = text.partition("## Extensions\n")
    assert "| initialize handshake |" in before
    assert after.index("| extension `com.example/widgets` |") < after.index("## What a client gets")


def test_a_file_with_no_server_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    proc = subprocess.run(
        [sys.executable, "-m", "plainmcp.compatibility", str(empty)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (
        1,
        f"{empty} must define exactly one plainmcp.Server, not 0\n",
    )
