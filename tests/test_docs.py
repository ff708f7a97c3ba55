"""Every code block of README.md and docs/*.md runs as written (the convention: doc_snippets.py).

A page's blocks run in order in a fresh folder, against this checkout's plainmcp; a block that
fails, prints other than its page shows, or carries no marker fails its page's test.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.doc_snippets import PAGES, README, ROOT, Page, SnippetError, parse, run_page


@pytest.fixture(scope="module")
def readme_folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """The folder the README's snippets leave (pages that use its server start from a copy)."""
    folder = tmp_path_factory.mktemp("readme")
    ran = run_page(parse(README), folder)
    return folder, [block.line for block in ran]


def test_every_block_of_every_page_has_a_marker_that_parses() -> None:
    problems = [problem for page in PAGES for problem in parse(page).problems]
    assert problems == []


def test_the_readme_runs_as_written(readme_folder: tuple[Path, list[int]]) -> None:
    folder, ran = readme_folder
    page = parse(README)
    assert ran == [b.line for b in page.blocks if b.kind != "skip"]
    assert [b.kind for b in page.blocks] == [
        "skip",  # pip install
        "file",  # server.py
        "run",  # chart.png
        "run",  # plainmcp list
        "run",  # plainmcp call
        "test",  # test_server.py
        "run",  # the client
        "run",  # plainmcp install claude-code
        "host",  # mcpServers JSON
        "host",  # claude mcp add
        "skip",  # scripts/demo, scripts/test
    ]
    assert (folder / "chart.png").read_bytes().startswith(b"\x89PNG")
    installed = json.loads((folder / ".mcp.json").read_text())
    assert installed == {
        "mcpServers": {
            "demo": {
                "type": "stdio",
                "command": sys.executable,
                "args": ["-m", "plainmcp", "run", str((folder / "server.py").resolve())],
            }
        }
    }


@pytest.mark.parametrize("path", PAGES[1:], ids=[p.name for p in PAGES[1:]])
def test_the_page_runs_as_written(
    path: Path, tmp_path: Path, readme_folder: tuple[Path, list[int]]
) -> None:
    page = parse(path)
    folder = tmp_path / "page"
    if page.uses:
        assert ROOT / page.uses == README, "pages can start only from the README's folder"
        shutil.copytree(readme_folder[0], folder)
    else:
        folder.mkdir()
    ran = run_page(page, folder)
    assert [b.line for b in ran] == [b.line for b in page.blocks if b.kind != "skip"]


def test_the_skips_are_few_and_say_why() -> None:
    skips = {
        f"{b.page.name}:{b.line}": b.attrs["reason"]
        for page in PAGES
        for b in parse(page).blocks
        if b.kind == "skip"
    }
    assert len(skips) <= 8, skips


# --- the convention itself ----------------------------------------------------------------------


def page_of(tmp_path: Path, text: str) -> Page:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return parse(path)


def test_a_block_without_a_marker_is_a_problem(tmp_path: Path) -> None:
    page = page_of(tmp_path, "Intro.\n\n```python\nprint(1)\n```\n\n```\nplain\n```\n")
    assert page.problems == [
        f"{tmp_path / 'page.md'}:3: a python block with no <!-- snippet: ... --> marker",
        f"{tmp_path / 'page.md'}:7: the fence names no language (use text for prose)",
    ]


def test_a_malformed_marker_is_a_problem(tmp_path: Path) -> None:
    where = tmp_path / "page.md"
    page = page_of(
        tmp_path,
        "<!-- snippet: skip -->\n```bash\nls\n```\n"
        "<!-- snippet: explode -->\n```python\npass\n```\n"
        '<!-- snippet: host server=x -->\n```json\n{"mcpServers": {}}\n```\n'
        "<!-- snippet: run -->\n```json\n{}\n```\n"
        "<!-- snippet: run -->\n\nstray\n",
    )
    assert page.problems == [
        f"{where}:17: a snippet marker must stand right before a fence",
        f"{where}:2: skip needs reason",
        f"{where}:6: unknown snippet kind 'explode'",
        f"{where}:10: host needs python, root",
        f"{where}:14: a json block cannot be 'run'",
    ]


def test_a_stale_expected_output_fails(tmp_path: Path) -> None:
    page = page_of(tmp_path, "<!-- snippet: run -->\n```bash\necho 4\n```\n```text\n5\n```\n")
    assert page.problems == []
    with pytest.raises(SnippetError, match=r"page.md:2: the output differs.*\nshown:\n5\n"):
        run_page(page, tmp_path)


def test_a_test_block_must_pass_every_test(tmp_path: Path) -> None:
    page = page_of(
        tmp_path,
        "<!-- snippet: test -->\n```python\ndef test_one():\n    pass\n\n"
        "async def test_unmarked():\n    pass\n```\n",
    )
    with pytest.raises(SnippetError, match=r"expected 2 passed \(test_one, test_unmarked\)"):
        run_page(page, tmp_path)


def test_a_server_that_answers_under_another_name_fails(tmp_path: Path) -> None:
    page = page_of(
        tmp_path,
        "<!-- snippet: serve server=other -->\n```python\nfrom plainmcp import Server\n\n"
        'Server("mine").run()\n```\n',
    )
    with pytest.raises(SnippetError, match=r"page.md:2: answered as 'mine'"):
        run_page(page, tmp_path)


def test_a_host_config_must_name_the_server_by_absolute_path(tmp_path: Path) -> None:
    page = page_of(
        tmp_path,
        "<!-- snippet: host server=demo python=/p/.venv/bin/python root=/p -->\n```json\n"
        '{"mcpServers": {"demo": {"command": "/p/.venv/bin/python", '
        '"args": ["-m", "plainmcp", "run", "server.py"]}}}\n```\n',
    )
    assert page.problems == []
    with pytest.raises(SnippetError, match=r"page.md:2: no argument is an absolute path under /p"):
        run_page(page, tmp_path)
