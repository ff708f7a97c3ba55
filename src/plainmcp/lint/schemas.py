"""Validation against the official MCP JSON Schemas, which `plainmcp check` gets at run time.

plainmcp ships no copy of the schemas (plainmcp.cli.schemas finds them: a folder, the per-user
cache, or a download checked against pinned hashes); this module only validates values against
the schemas it is given. Only `plainmcp check` loads it (and `jsonschema`, the `plainmcp[check]`
extra).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], list[str]]
"""Validates one value: the problems found, each with the path where it is."""


class MissingValidator(Exception):
    """`jsonschema` is not installed."""


def defs_key(schema: Mapping[str, Any]) -> str:
    """Draft-07 revisions keep definitions under `definitions`, 2020-12 ones under `$defs`."""
    return "$defs" if "$defs" in schema else "definitions"


def _location(error: Any) -> str:
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _nothing(value: Any) -> list[str]:
    return []


class Checkers:
    """The checks of values against the definitions of each revision's schema, each built once
    (MissingValidator at construction without jsonschema). Without schemas (None: check could
    not get them) every check finds nothing, and the report says validation was not run."""

    def __init__(self, schemas: Mapping[str, Mapping[str, Any]] | None) -> None:
        self._schemas = schemas
        self._built: dict[tuple[str, str], Check] = {}
        if schemas is None:
            return
        try:
            import jsonschema  # type: ignore[import-untyped, unused-ignore]  # noqa: F401
            import referencing  # noqa: F401
        except ImportError:
            raise MissingValidator(
                "plainmcp check validates against the MCP schemas with jsonschema, which is not"
                " installed: pip install 'plainmcp[check]'"
            ) from None

    def __call__(self, revision: str, name: str) -> Check:
        if self._schemas is None:
            return _nothing
        key = (revision, name)
        if key not in self._built:
            self._built[key] = self._build(revision, name)
        return self._built[key]

    def _build(self, revision: str, name: str) -> Check:
        import jsonschema
        import referencing
        import referencing.jsonschema

        assert self._schemas is not None
        root = self._schemas[revision]
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
            return [
                f"at {_location(best)}: {best.message}; change what the server sends there"
                f" (the definition {name} of the official schema says what it may hold)"
            ]

        return check
