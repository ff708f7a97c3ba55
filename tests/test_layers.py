"""The layers import only downward: model/ nothing of plainmcp outside it, wire/ only itself and
model/. Every import counts: module level, function-local and under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "plainmcp"

ALLOWED = {
    "plainmcp.model": ("plainmcp.model",),
    "plainmcp.wire": ("plainmcp.wire", "plainmcp.model"),
}
"""A layer, and the packages its modules may import from."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every plainmcp module `source` (the text of `module`) imports, wherever the import is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                origin = ".".join([*base, node.module] if node.module else base)
            else:
                origin = node.module or ""
            found.add(origin)
            # `from plainmcp import images`: the module plainmcp.images, when it is one.
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "plainmcp" or name.startswith("plainmcp.")}


def modules() -> set[str]:
    return {module_name(path) for path in PACKAGE.rglob("*.py")}


def violations(layer: str, allowed: tuple[str, ...]) -> list[str]:
    known = modules()
    out = []
    for path in sorted((SRC / layer.replace(".", "/")).rglob("*.py")):
        name = module_name(path)
        targets = imported(path.read_text(), name, path.name == "__init__.py")
        for target in sorted(targets):
            if target not in known and target != "plainmcp":
                continue  # a name imported from a module, not a module
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                out.append(f"{name} imports {target}")
    return out


def test_model_imports_nothing_of_plainmcp_outside_model() -> None:
    assert violations("plainmcp.model", ALLOWED["plainmcp.model"]) == []


def test_wire_imports_only_wire_and_model() -> None:
    assert violations("plainmcp.wire", ALLOWED["plainmcp.wire"]) == []


def test_every_kind_of_import_is_counted() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import plainmcp.wire.json\n"
        "from plainmcp import server\n"
        "from .. import dispatch\n"
        "if TYPE_CHECKING:\n"
        "    from plainmcp.tools import Tool\n"
        "def f() -> None:\n"
        "    from plainmcp.guards import guard\n"
    )
    assert imported(source, "plainmcp.model.blocks.base") == {
        "plainmcp",
        "plainmcp.guards",
        "plainmcp.guards.guard",
        "plainmcp.model",
        "plainmcp.model.dispatch",
        "plainmcp.server",
        "plainmcp.tools",
        "plainmcp.tools.Tool",
        "plainmcp.wire.json",
    }
