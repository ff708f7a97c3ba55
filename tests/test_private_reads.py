"""No module reads another object's private attributes (the Server's, the Client's, the
HttpApp's...): each object offers what others need as public methods and properties, so its
internals can change alone.

An attribute starting with one underscore may be read only on `self` or `cls`; anything else
(`client._receive`, `self.client._fail`, `server._tools`, `getattr(app, "_routes")`) fails
here, naming the place."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "plainmcp"
EXEMPT = {
    "middleware/base.py": "RequestInfo and Reply are its own: their fields kept from middleware",
    "transports/http/head_bounds.py": "its h11 connection and its protocol are one pair",
    "transports/stdout.py": "the held stdout's writer is its own",
}
"""Modules whose classes read each other's private fields, within the module only."""

CHECKED = sorted(
    path.relative_to(PACKAGE).as_posix()
    for path in PACKAGE.rglob("*.py")
    if path.relative_to(PACKAGE).as_posix() not in EXEMPT
)


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


def test_no_module_reads_a_private_attribute_of_another_object() -> None:
    reads = [
        f"{name}:{line}: {expression}"
        for name in CHECKED
        for line, expression in private_reads((PACKAGE / name).read_text(encoding="utf-8"))
    ]
    assert reads == []


def test_the_exempt_modules_read_only_their_own_classes() -> None:
    for name in EXEMPT:
        source = (PACKAGE / name).read_text(encoding="utf-8")
        assert private_reads(source) != []  # else it needs no exemption
        for _, expression in private_reads(source):
            attribute = expression.rsplit(".", 1)[-1]
            # a field its own classes define: assigned on self, or declared in a class body
            assert re.search(rf"self\.{attribute}\b|^\s+{attribute}\s*[:=]", source, re.M)
