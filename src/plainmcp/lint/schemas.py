"""The official MCP JSON Schemas `plainmcp check` validates against, shipped in the package.

A user's machine has no copy of the specification, so the definitions check needs (a tool,
prompt, resource and template definition, a tool result, and everything they refer to) are
shipped in `mcp-schemas/<revision>.json`: each one the official `schema/<revision>/schema.json`
of modelcontextprotocol/modelcontextprotocol with only those definitions kept, unchanged
(mcp-schemas/README.md cites the commit). `python -m plainmcp.lint.schemas DIR` writes them from
a folder of the official files; a test fails when they differ from it.

Only `plainmcp check` loads this module (and `jsonschema`, the `plainmcp[check]` extra).
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

DEFINITIONS = ("Tool", "Prompt", "Resource", "ResourceTemplate", "CallToolResult")
"""What check validates; the shipped files hold these and what they refer to."""

_REF = re.compile(r"^#/(?:\$defs|definitions)/(.+)$")

Check = Callable[[Any], list[str]]
"""Validates one value: the problems found, each with the path where it is."""


class MissingValidator(Exception):
    """`jsonschema` is not installed."""


def defs_key(schema: Mapping[str, Any]) -> str:
    """Draft-07 revisions keep definitions under `definitions`, 2020-12 ones under `$defs`."""
    return "$defs" if "$defs" in schema else "definitions"


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and (match := _REF.match(ref)):
                found.append(match.group(1))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def extract(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The official schema with only DEFINITIONS and what they refer to, in its own order."""
    key = defs_key(schema)
    defs: Mapping[str, Any] = schema[key]
    keep: set[str] = set()
    stack = [name for name in DEFINITIONS if name in defs]
    while stack:
        name = stack.pop()
        if name not in keep:
            keep.add(name)
            stack.extend(_refs(defs[name]))
    out = {k: v for k, v in schema.items() if k != key}
    out[key] = {name: value for name, value in defs.items() if name in keep}
    return out


def shipped_path(revision: str) -> Path:
    return Path(str(resources.files("plainmcp.lint") / "mcp-schemas" / f"{revision}.json"))


@functools.cache
def schema(revision: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(shipped_path(revision).read_text(encoding="utf-8"))
    return loaded


def _location(error: Any) -> str:
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


@functools.cache
def checker(revision: str, name: str) -> Check:
    """A check of values against definition `name` of `revision` (MissingValidator without
    jsonschema)."""
    try:
        import jsonschema  # type: ignore[import-untyped, unused-ignore]
        import referencing
        import referencing.jsonschema
    except ImportError:
        raise MissingValidator(
            "plainmcp check validates against the MCP schemas with jsonschema, which is not"
            " installed: pip install 'plainmcp[check]'"
        ) from None
    root = schema(revision)
    if "2020-12" in root.get("$schema", ""):
        spec, cls = referencing.jsonschema.DRAFT202012, jsonschema.Draft202012Validator
    else:
        spec, cls = referencing.jsonschema.DRAFT7, jsonschema.Draft7Validator
    uri = f"urn:mcp-schema:{revision}"
    resource = referencing.Resource.from_contents(root, default_specification=spec)
    registry = referencing.Registry().with_resource(uri, resource)
    validator = cls({"$ref": f"{uri}#/{defs_key(root)}/{name}"}, registry=registry)

    def check(value: Any) -> list[str]:
        errors = sorted(validator.iter_errors(value), key=jsonschema.exceptions.relevance)
        if not errors:
            return []
        best = jsonschema.exceptions.best_match(errors)
        return [f"at {_location(best)}: {best.message}"]

    return check


def write_shipped(official: Path) -> list[Path]:
    """Write mcp-schemas/<revision>.json from `official`/<revision>/schema.json."""
    from plainmcp.wire.revisions import REVISIONS

    written = []
    for revision in REVISIONS:
        source = json.loads((official / revision / "schema.json").read_text(encoding="utf-8"))
        path = shipped_path(revision)
        path.write_text(json.dumps(extract(source), indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_shipped(Path(sys.argv[1])):
        print(written_path)
