"""The import graph of src/plainmcp, every import counted: module level, inside functions and
under TYPE_CHECKING, so that a loop in the design shows even when none happens at import time."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"


def module_name(path: Path, root: Path = SOURCE) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = SOURCE) -> dict[str, Path]:
    """Every module of plainmcp by dotted name."""
    return {module_name(p, root): p for p in sorted((root / "plainmcp").rglob("*.py"))}


def imported(path: Path, name: str, known: Mapping[str, Path]) -> Iterator[str]:
    """The plainmcp modules that the module `name` at `path` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _known(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                if submodule in known:
                    yield submodule
                else:
                    yield from _known(base, known)


def _known(dotted: str, known: Mapping[str, Path]) -> Iterator[str]:
    """`dotted` if it is a plainmcp module, else its nearest enclosing one."""
    while dotted:
        if dotted in known:
            yield dotted
            return
        dotted = dotted.rpartition(".")[0]


def graph(root: Path = SOURCE) -> dict[str, set[str]]:
    known = modules(root)
    return {
        name: {other for other in imported(path, name, known) if other != name}
        for name, path in known.items()
    }


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def package_of(name: str, known: Mapping[str, Path]) -> str:
    """The package a module belongs to (a package's __init__ belongs to itself)."""
    if known[name].name == "__init__.py":
        return name
    return name.rpartition(".")[0]
