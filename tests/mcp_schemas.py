"""Validate messages a server wrote against the official MCP JSON Schemas, per protocol revision.

The schemas are read from ``../shared/mcp-schemas/<revision>/schema.json`` (relative to the repo
root) or from ``$MCP_SCHEMAS_DIR``; they are never copied into the repo. Which definition applies
to which method is derived from the schema itself (the ``method`` constants of its request and
notification definitions), so each revision's own names and shapes are the only source of truth.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema.exceptions
import jsonschema.protocols
import referencing
import referencing.jsonschema

__all__ = [
    "REVISIONS",
    "definition_names",
    "schemas_dir",
    "validate_definition",
    "validate_extension_definition",
    "validate_server_message",
]

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")

_REPO_ROOT = Path(__file__).resolve().parents[1]
_MAX_LISTED_ERRORS = 8


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _lone_surrogate_in(value: Any) -> str | None:
    stack = [value]
    while stack:
        item = stack.pop()
        texts = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) else []
        for text in texts:
            if any("\ud800" <= ch <= "\udfff" for ch in text):
                return text
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def wire_loads(data: bytes) -> Any:
    """A message as the server wrote it, read strictly and exactly, independently of plainmcp:
    UTF-8, JSON (no NaN or Infinity), integers of any size exact, no lone surrogate escapes."""
    value = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    bad = _lone_surrogate_in(value)
    if bad is not None:
        raise ValueError(f"a lone surrogate was written: {bad!r}")
    return value


def schemas_dir() -> Path:
    """The folder holding ``<revision>/schema.json``: ``$MCP_SCHEMAS_DIR`` or ``../shared``."""
    override = os.environ.get("MCP_SCHEMAS_DIR")
    return Path(override) if override else _REPO_ROOT.parent / "shared" / "mcp-schemas"


def _check_revision(revision: str) -> None:
    if revision not in REVISIONS:
        raise ValueError(f"unknown MCP revision {revision!r}; known: {', '.join(REVISIONS)}")


@functools.cache
def _schema(revision: str) -> dict[str, Any]:
    _check_revision(revision)
    path = schemas_dir() / revision / "schema.json"
    if not path.is_file():
        raise FileNotFoundError(
            f"MCP schema for {revision} not found at {path}; the schemas live beside the repo in "
            "../shared/mcp-schemas (or set MCP_SCHEMAS_DIR)"
        )
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def _defs_key(revision: str) -> str:
    """Draft-07 revisions keep definitions under ``definitions``; 2020-12 ones under ``$defs``."""
    return "$defs" if "$defs" in _schema(revision) else "definitions"


def _defs(revision: str) -> dict[str, Any]:
    defs: dict[str, Any] = _schema(revision)[_defs_key(revision)]
    return defs


def definition_names(revision: str) -> frozenset[str]:
    """All definition names of a revision (they differ between revisions)."""
    return frozenset(_defs(revision))


@functools.cache
def _registry_and_class(
    revision: str,
) -> tuple[referencing.Registry[Any], type[jsonschema.protocols.Validator], str]:
    """One registry per revision: the whole schema under a private URI, so refs resolve."""
    schema = _schema(revision)
    dialect = schema.get("$schema", "")
    if "2020-12" in dialect:
        spec, cls = referencing.jsonschema.DRAFT202012, jsonschema.Draft202012Validator
    elif "draft-07" in dialect:
        spec, cls = referencing.jsonschema.DRAFT7, jsonschema.Draft7Validator
    else:
        raise ValueError(f"{revision}: unsupported JSON Schema dialect {dialect!r}")
    uri = f"urn:mcp-schema:{revision}"
    resource = referencing.Resource.from_contents(schema, default_specification=spec)
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(uri, resource)
    return registry, cls, uri


@functools.cache
def _validator(revision: str, name: str) -> jsonschema.protocols.Validator:
    if name not in _defs(revision):
        raise AssertionError(f"revision {revision} has no definition {name!r}")
    registry, cls, uri = _registry_and_class(revision)
    return cls({"$ref": f"{uri}#/{_defs_key(revision)}/{name}"}, registry=registry)


def _path(error: jsonschema.exceptions.ValidationError) -> str:
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _leaves(
    errors: Iterable[jsonschema.exceptions.ValidationError],
) -> list[jsonschema.exceptions.ValidationError]:
    """Flatten anyOf/oneOf failures to their innermost errors, most relevant first."""
    out: list[jsonschema.exceptions.ValidationError] = []
    for error in sorted(errors, key=jsonschema.exceptions.relevance):
        out.extend(_leaves(error.context) if error.context else [error])
    return out


def _short(value: Any, limit: int = 600) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[:limit] + "…"


def validate_definition(instance: Any, revision: str, name: str) -> None:
    """Validate ``instance`` against definition ``name`` of ``revision``; AssertionError if not."""
    validator = _validator(revision, name)
    errors = list(validator.iter_errors(instance))
    if not errors:
        return
    best = jsonschema.exceptions.best_match(errors)
    lines = [
        f"not a valid {name} (MCP {revision}):",
        f"  best match: at {_path(best)}: {best.message}",
    ]
    leaves = _leaves(errors)
    if len(leaves) > 1:
        lines.append("  all failures (innermost; alternatives of anyOf included):")
        lines += [f"    at {_path(e)}: {e.message}" for e in leaves[:_MAX_LISTED_ERRORS]]
        if len(leaves) > _MAX_LISTED_ERRORS:
            lines.append(f"    … and {len(leaves) - _MAX_LISTED_ERRORS} more")
    lines.append(f"  instance: {_short(instance)}")
    raise AssertionError("\n".join(lines))


def _method_map(revision: str, union: str) -> dict[str, str]:
    """``method`` constant -> definition name, for each member of a union such as ServerRequest."""
    defs = _defs(revision)
    out: dict[str, str] = {}
    for member in defs.get(union, {}).get("anyOf", []):
        name = member["$ref"].rsplit("/", 1)[-1]
        const = defs[name].get("properties", {}).get("method", {}).get("const")
        if isinstance(const, str):
            out[const] = name
    return out


@functools.cache
def _result_definition(revision: str, method: str) -> str:
    """The result definition answering ``method``: FooRequest -> FooResult, else EmptyResult."""
    requests = _method_map(revision, "ClientRequest")
    if method not in requests:
        raise AssertionError(
            f"MCP {revision} defines no client request {method!r}, so no result for it; "
            f"known: {', '.join(sorted(requests))}"
        )
    request = requests[method]
    candidate = request.removesuffix("Request") + "Result"
    return candidate if candidate in _defs(revision) else "EmptyResult"


def _envelope(revision: str, *candidates: str) -> str:
    defs = _defs(revision)
    for name in candidates:
        if name in defs:
            return name
    raise AssertionError(f"MCP {revision} has none of {candidates}")


def _response_admits_input_required(revision: str, response_def: str) -> bool:
    result_schema = _defs(revision)[response_def].get("properties", {}).get("result", {})
    refs = [alt.get("$ref", "") for alt in result_schema.get("anyOf", [])]
    return any(ref.endswith("/InputRequiredResult") for ref in refs)


def _validate_result_type(result: Any, revision: str, response_def: str, result_def: str) -> None:
    """Prose rules the 2026-07-28 schema cannot express (its ResultType/InputRequiredResult docs).

    The schema's InputRequiredResult requires only ``resultType``, so any object would match the
    ``anyOf`` of e.g. CallToolResultResponse; dispatch on ``resultType`` to get real checks.
    """
    if not isinstance(result, Mapping):
        return  # the envelope check has already reported it
    result_type = result.get("resultType")
    if result_type == "input_required" and _response_admits_input_required(revision, response_def):
        validate_definition(result, revision, "InputRequiredResult")
        if "inputRequests" not in result and "requestState" not in result:
            raise AssertionError(
                "InputRequiredResult needs at least one of inputRequests or requestState: "
                + _short(result)
            )
        return
    if result_type != "complete":
        raise AssertionError(
            f"resultType must be 'complete' for a final {result_def} (MCP {revision}), "
            f"got {result_type!r}: {_short(result)}"
        )
    validate_definition(result, revision, result_def)


def _validate_result_response(
    message: Mapping[str, Any], revision: str, method: str | None
) -> None:
    # 2025-11-25+ split JSONRPCResponse into result/error responses; before, it was the result one.
    validate_definition(
        message, revision, _envelope(revision, "JSONRPCResultResponse", "JSONRPCResponse")
    )
    if method is None:
        return
    extension = _extension_result(revision, method, message.get("result"))
    if extension is not None:
        validate_extension_definition(message["result"], *extension)
        return
    result = message.get("result")
    if method == "tools/call" and isinstance(result, Mapping) and "task" in result:
        # A task-augmented call (2025-11-25 core tasks) answers a CreateTaskResult.
        validate_definition(result, revision, "CreateTaskResult")
        return
    result_def = _result_definition(revision, method)
    # 2026-07-28 has per-method response definitions (e.g. CallToolResultResponse, whose result is
    # CallToolResult or InputRequiredResult); prefer them where the revision defines one.
    response_def = result_def + "Response"
    if response_def in _defs(revision):
        validate_definition(message, revision, response_def)
        _validate_result_type(message["result"], revision, response_def, result_def)
    else:
        validate_definition(message["result"], revision, result_def)


def _validate_notification(message: Mapping[str, Any], revision: str) -> None:
    validate_definition(message, revision, "ServerNotification")
    specific = _method_map(revision, "ServerNotification").get(message["method"])
    if specific is None:  # unreachable if ServerNotification passed, kept for a clearer message
        raise AssertionError(f"MCP {revision} has no server notification {message['method']!r}")
    validate_definition(message, revision, specific)


def _validate_request(message: Mapping[str, Any], revision: str) -> None:
    if "ServerRequest" not in _defs(revision):
        raise AssertionError(
            f"MCP {revision} has no server-to-client requests (ServerRequest), got "
            f"{message.get('method')!r}: {_short(message)}"
        )
    validate_definition(message, revision, "ServerRequest")
    specific = _method_map(revision, "ServerRequest").get(message["method"])
    if specific is not None:
        validate_definition(message, revision, specific)


def validate_server_message(message: Any, revision: str, *, method: str | None = None) -> None:
    """Check one JSON-RPC message written by the server against the schema of ``revision``.

    ``method`` is the method of the request a result answers; with it the result is validated
    against that method's result definition, without it only the envelope. Raises AssertionError
    with a readable explanation when the message is invalid.
    """
    _check_revision(revision)
    if isinstance(message, list):
        if "JSONRPCBatchResponse" not in _defs(revision):
            raise AssertionError(f"MCP {revision} has no JSON-RPC batches: {_short(message)}")
        if not message:
            raise AssertionError("empty batch: JSON-RPC forbids an empty array")
        validate_definition(message, revision, "JSONRPCBatchResponse")
        for element in message:
            validate_server_message(element, revision, method=method)
        return
    if not isinstance(message, Mapping):
        raise AssertionError(f"a JSON-RPC message must be an object, got {_short(message)}")
    if "result" in message and "error" in message:
        raise AssertionError(f"a response has both 'result' and 'error': {_short(message)}")
    if "result" in message:
        _validate_result_response(message, revision, method)
    elif "error" in message:
        validate_definition(
            message, revision, _envelope(revision, "JSONRPCErrorResponse", "JSONRPCError")
        )
    elif "method" in message and "id" in message:
        _validate_request(message, revision)
    elif "method" in message:
        _validate_notification(message, revision)
    else:
        validate_definition(message, revision, "JSONRPCMessage")
        raise AssertionError(f"not a request, notification or response: {_short(message)}")


def validate_relay_record(record: Path, revision: str) -> int:
    """Every line the server wrote in a record of tests/interop/relay.py ("C "/"S " lines),
    validated against ``revision``, each result against its request's method; how many."""
    methods: dict[Any, str] = {}
    checked = 0
    for line in record.read_bytes().splitlines():
        side, raw = line[:2], json.loads(line[2:])
        if side == b"C " and isinstance(raw, dict) and "method" in raw and "id" in raw:
            methods[raw["id"]] = raw["method"]
        elif side == b"S ":
            validate_server_message(raw, revision, method=methods.get(raw.get("id")))
            checked += 1
    return checked


# --- extensions: messages the core schema does not define, checked against their own schema ----

EXTENSION_SCHEMAS = {
    "io.modelcontextprotocol/tasks": _REPO_ROOT / "tests" / "schemas" / "ext-tasks" / "schema.json",
}
"""Each extension's JSON Schema, copied into the repo as data (each folder's README cites it)."""

_EXTENSION_RESULTS = {
    "tasks/get": ("io.modelcontextprotocol/tasks", "GetTaskResult"),
    "tasks/update": ("io.modelcontextprotocol/tasks", "UpdateTaskResult"),
    "tasks/cancel": ("io.modelcontextprotocol/tasks", "CancelTaskResult"),
}
"""2026-07-28 results of an extension's methods: (extension, definition)."""


def _extension_result(revision: str, method: str, result: Any) -> tuple[str, str] | None:
    """The extension definition a 2026-07-28 result is checked against (None: the core's)."""
    if revision != "2026-07-28":
        return None
    if (
        method == "tools/call"
        and isinstance(result, Mapping)
        and result.get("resultType") == "task"
    ):
        return ("io.modelcontextprotocol/tasks", "CreateTaskResult")
    return _EXTENSION_RESULTS.get(method)


@functools.cache
def _extension_validator(extension: str, name: str) -> jsonschema.protocols.Validator:
    schema = json.loads(EXTENSION_SCHEMAS[extension].read_text(encoding="utf-8"))
    if name not in schema["$defs"]:
        raise AssertionError(f"the schema of {extension} has no definition {name!r}")
    uri = f"urn:mcp-extension:{extension}"
    resource = referencing.Resource.from_contents(
        schema, default_specification=referencing.jsonschema.DRAFT202012
    )
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(uri, resource)
    return jsonschema.Draft202012Validator({"$ref": f"{uri}#/$defs/{name}"}, registry=registry)


def validate_extension_definition(instance: Any, extension: str, name: str) -> None:
    """Validate ``instance`` against definition ``name`` of ``extension``'s own schema."""
    errors = list(_extension_validator(extension, name).iter_errors(instance))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        raise AssertionError(
            f"not a valid {name} ({extension}): at {_path(best)}: {best.message}\n"
            f"  instance: {_short(instance)}"
        )
