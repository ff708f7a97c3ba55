"""Local `$ref`s inlined, for hosts that break on `$ref`/`$defs`; only a true cycle (a recursive
type) keeps a minimal `$defs`."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

NOT_SCHEMAS = frozenset({"enum", "const", "default", "examples", "example"})
_DEF_KEYS = ("$defs", "definitions")


def inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Replace every local `$ref` ("#", "#/$defs/X", any "#/json/pointer") with its target.

    A reference that would recurse forever (a recursive type) is inlined once and then kept as a
    `$ref`; the targets of such references are the only entries of the returned `$defs`. A root
    that is itself a `$ref` is replaced by its target, so the root keeps its "type". Non-local
    references (URLs) are never followed. Sibling keywords next to a `$ref` win over the target's.
    The input is not modified.
    """
    root = dict(schema)
    cycle_names: dict[str, str] = {}
    unresolved = False

    def def_name(pointer: str) -> str:
        from urllib.parse import unquote  # only for a $ref: urllib stays out of start-up

        if pointer not in cycle_names:
            base = unquote(pointer.rsplit("/", 1)[-1]).replace("~1", "/").replace("~0", "~")
            base = base or "def"
            name, n = base, 2
            while name in cycle_names.values():
                name, n = f"{base}{n}", n + 1
            cycle_names[pointer] = name
        return cycle_names[pointer]

    def expand(node: Any, stack: tuple[str, ...], at_root: bool = False) -> Any:
        nonlocal unresolved
        if isinstance(node, list):
            return [expand(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        siblings = {
            key: (value if key in NOT_SCHEMAS else expand(value, stack))
            for key, value in node.items()
            if key != "$ref" and not (at_root and key in _DEF_KEYS)
        }
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            if ref is not None:
                siblings = {"$ref": ref, **siblings}
            return siblings
        found, target = resolve_pointer(root, ref)
        if not found:
            unresolved = True
            return {"$ref": ref, **siblings}
        if ref in stack:
            kept = ref if ref == "#" else "#/$defs/" + _escape(def_name(ref))
            return {"$ref": kept, **siblings}
        body = expand(target, (*stack, ref), at_root=ref == "#")
        if not isinstance(body, dict):  # a boolean schema
            return body if not siblings else {"allOf": [body], **siblings}
        return {**body, **siblings}

    result = expand(root, ("#",), at_root=True)
    if not isinstance(result, dict):
        result = {"allOf": [result]}
    defs: dict[str, Any] = {}
    done: set[str] = set()
    while len(done) < len(cycle_names):
        for pointer, name in list(cycle_names.items()):
            if pointer not in done:
                done.add(pointer)
                defs[name] = expand(resolve_pointer(root, pointer)[1], (pointer,))
    if unresolved:  # "#anchor" and friends: keep what they might point into
        for key in _DEF_KEYS:
            if key in root:
                result.setdefault(key, copy.deepcopy(root[key]))
    if defs:
        result["$defs"] = {**result.get("$defs", {}), **defs}
    return result


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def resolve_pointer(root: Any, ref: str) -> tuple[bool, Any]:
    if ref == "#":
        return True, root
    if not ref.startswith("#/"):
        return False, None
    from urllib.parse import unquote  # only for a $ref: urllib stays out of start-up

    node = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node
