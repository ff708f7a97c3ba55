"""The import graph, every import counted (module level, inside functions, under TYPE_CHECKING):
layers import downward only, so a new upward import fails here before it grows into a loop."""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import cycles, graph, modules, package_of

KNOWN = modules()
EDGES = graph()


def test_no_import_cycle_crosses_a_package() -> None:
    crossing = [c for c in cycles(EDGES) if len({package_of(m, KNOWN) for m in c}) > 1]
    assert crossing == []


def test_no_import_cycle_inside_a_package_is_longer_than_three_modules() -> None:
    assert [c for c in cycles(EDGES) if len(c) > 3] == []


def upward(edges: dict[str, set[str]], layer: str, allowed: tuple[str, ...]) -> list[str]:
    """The imports of `layer`'s modules that reach outside `allowed`."""
    return sorted(
        f"{name} -> {other}"
        for name, imports in edges.items()
        if name == layer or name.startswith(f"{layer}.")
        for other in imports
        if not any(other == a or other.startswith(f"{a}.") for a in allowed)
    )


def test_the_model_imports_nothing_above_it() -> None:
    assert upward(EDGES, "plainmcp.model", ("plainmcp.model",)) == []


def test_wire_imports_only_itself_and_the_model() -> None:
    assert upward(EDGES, "plainmcp.wire", ("plainmcp.wire", "plainmcp.model")) == []


def test_only_the_package_and_the_cli_import_the_proxy() -> None:
    """The proxy sits on the client: nothing the client or the core is made of imports it."""
    importers = sorted(name for name, imports in EDGES.items() if "plainmcp.proxy" in imports)
    assert [m for m in importers if m != "plainmcp" and not m.startswith("plainmcp.cli")] == []


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_every_kind_of_import_is_counted_and_an_upward_one_fails(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "plainmcp/__init__.py": "",
            "plainmcp/server.py": "from plainmcp.wire import render\n",
            "plainmcp/model/__init__.py": "",
            "plainmcp/model/blocks.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from plainmcp.wire.render import Rendered\n"
            ),
            "plainmcp/wire/__init__.py": "",
            "plainmcp/wire/render.py": (
                "from . import meta\ndef late():\n    from plainmcp import server\n"
            ),
            "plainmcp/wire/meta.py": "from ..model import blocks\n",
        },
    )
    edges = graph(tmp_path)
    assert edges["plainmcp.model.blocks"] == {"plainmcp.wire.render"}
    assert edges["plainmcp.wire.render"] == {"plainmcp.wire.meta", "plainmcp.server"}
    assert edges["plainmcp.wire.meta"] == {"plainmcp.model.blocks"}
    assert cycles(edges) == [
        ["plainmcp.model.blocks", "plainmcp.server", "plainmcp.wire.meta", "plainmcp.wire.render"]
    ]
    assert upward(edges, "plainmcp.model", ("plainmcp.model",)) == [
        "plainmcp.model.blocks -> plainmcp.wire.render"
    ]
    assert upward(edges, "plainmcp.wire", ("plainmcp.wire", "plainmcp.model")) == [
        "plainmcp.wire.render -> plainmcp.server"
    ]
