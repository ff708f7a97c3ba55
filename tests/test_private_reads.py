"""No module of the client or the CLI reads another object's private attributes: each object
offers what others need as public methods and properties, so its internals can change alone.

An attribute starting with one underscore may be read only on `self` or `cls`; anything else
(`client._receive`, `self.client._fail`, `server._tools`, `getattr(app, "_routes")`) fails
here, naming the place."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "plainmcp"
CHECKED = ["client", "cli"]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reads(source: str) -> list[tuple[int, str]]:
    """The (line, expression) of each private attribute read on something but self or cls."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_the_walk_finds_each_form_of_a_private_read() -> None:
    source = (
        "def f(client, self):\n"
        "    client._receive(b'')\n"
        "    self.client._fail(1)\n"
        "    getattr(server, '_tools')\n"
        "    self._own, cls._own, client.public, client.__class__\n"
    )
    assert private_reads(source) == [
        (2, "client._receive"),
        (3, "self.client._fail"),
        (4, "getattr(server, '_tools')"),
    ]


@pytest.mark.parametrize("package", CHECKED)
def test_no_module_reads_a_private_attribute_of_another_object(package: str) -> None:
    reads = [
        f"{path.relative_to(PACKAGE)}:{line}: {expression}"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for line, expression in private_reads(path.read_text(encoding="utf-8"))
    ]
    assert reads == []
