"""The README's Layout names every module of the package, so a newcomer's map stays whole."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "plainmcp"


def layout() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"## Layout\n.*?```text\n(.*?)```", readme, re.S)
    assert match is not None, "README.md has no Layout block"
    return match.group(1)


def test_the_layout_names_every_module() -> None:
    text = layout()
    missing = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py"
        and "__pycache__" not in path.parts
        and not re.search(rf"(?<![\w.]){re.escape(path.stem)}\.py\b", text)
    ]
    assert missing == []


def test_the_layout_names_every_folder() -> None:
    text = layout()
    folders = sorted(
        p.name for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists()
    )
    assert [name for name in folders if f"{name}/" not in text] == []
