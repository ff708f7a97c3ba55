"""An OpenAPI 3.0 or 3.1 document as the operations it declares: validated by
openapi-spec-validator, every `$ref` resolved, each operation's parameters, body and responses
as plain data. No I/O."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.schema.refs import resolve_pointer

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
LOCATIONS = ("path", "query", "header", "cookie")


@dataclass(frozen=True, slots=True)
class Parameter:
    """One path, query, header or cookie parameter, its schema in JSON Schema."""

    name: str
    location: str
    required: bool
    schema: dict[str, Any]
    description: str | None


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of the document: what a tool is made of, and what selection rules read."""

    method: str
    """Upper case: GET, POST..."""
    path: str
    operation_id: str | None
    tags: tuple[str, ...]
    summary: str | None
    description: str | None
    parameters: tuple[Parameter, ...]
    body_type: str | None
    """The request body's media type used (application/json, multipart/form-data...), or None."""
    body_schema: dict[str, Any] | None
    body_required: bool
    output_schema: dict[str, Any] | None
    """The JSON schema of its first 2xx JSON response, when the document gives one."""
    security: tuple[Mapping[str, Any], ...]
    """Its security requirements (alternatives), the document's default when it names none."""
    deprecated: bool


class OpenAPIError(ValueError):
    """The document is not valid OpenAPI 3.0/3.1, or uses what this module cannot call."""


def validate(document: Mapping[str, Any]) -> None:
    """Raise OpenAPIError, with the validator's message and where, unless `document` is valid."""
    from openapi_spec_validator import validate as check
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    version = str(document.get("openapi", ""))
    if not version.startswith(("3.0.", "3.1.")):
        raise OpenAPIError(f"not an OpenAPI 3.0 or 3.1 document (openapi: {version or 'missing'})")
    try:
        check(dict(document))
    except OpenAPIValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(document)"
        raise OpenAPIError(f"invalid OpenAPI document at {where}: {exc.message}") from None


def resolve(document: Mapping[str, Any], node: Any) -> Any:
    """`node` itself, or the target of its local `$ref` (followed until it is no reference)."""
    seen: set[str] = set()
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        found, target = resolve_pointer(document, ref) if ref not in seen else (False, None)
        if not found:
            raise OpenAPIError(f"cannot resolve $ref {ref!r} (only local references are followed)")
        seen.add(ref)
        node = target
    return node


def operations(document: Mapping[str, Any]) -> list[Operation]:
    """Every operation of a validated document, in the document's order."""
    out = []
    for path, raw_item in (document.get("paths") or {}).items():
        item = resolve(document, raw_item)
        shared = [resolve(document, p) for p in item.get("parameters", [])]
        for method in METHODS:
            if method in item:
                out.append(_operation(document, path, method, shared, item[method]))
    return out


def _operation(
    document: Mapping[str, Any],
    path: str,
    method: str,
    shared: list[Any],
    raw: Mapping[str, Any],
) -> Operation:
    three_oh = str(document["openapi"]).startswith("3.0.")
    own = [resolve(document, p) for p in raw.get("parameters", [])]
    by_key = {(p["name"], p["in"]): p for p in [*shared, *own]}  # the operation's own win
    parameters = tuple(
        Parameter(
            name=p["name"],
            location=p["in"],
            required=bool(p.get("required", p["in"] == "path")),
            schema=json_schema(document, _parameter_schema(document, p), three_oh),
            description=p.get("description"),
        )
        for p in by_key.values()
    )
    body_type, body_schema, body_required = None, None, False
    if "requestBody" in raw:
        body = resolve(document, raw["requestBody"])
        body_type, media = _media(body.get("content", {}))
        if body_type is not None:
            body_schema = json_schema(document, media.get("schema", {}), three_oh)
            body_required = bool(body.get("required", False))
    return Operation(
        method=method.upper(),
        path=path,
        operation_id=raw.get("operationId"),
        tags=tuple(raw.get("tags", ())),
        summary=raw.get("summary"),
        description=raw.get("description"),
        parameters=parameters,
        body_type=body_type,
        body_schema=body_schema,
        body_required=body_required,
        output_schema=_output(document, raw.get("responses", {}), three_oh),
        security=tuple(raw.get("security", document.get("security", ()))),
        deprecated=bool(raw.get("deprecated", False)),
    )


def _parameter_schema(document: Mapping[str, Any], parameter: Mapping[str, Any]) -> Any:
    if "schema" in parameter:
        return parameter["schema"]
    for media in (parameter.get("content") or {}).values():
        return resolve(document, media).get("schema", {})
    return {}


BODY_TYPES = ("application/json", "multipart/form-data", "application/x-www-form-urlencoded")


def _media(content: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    """The body's media type this module sends: JSON first, then forms; else None."""
    for wanted in BODY_TYPES:
        for name, media in content.items():
            if name.split(";")[0].strip().lower() == wanted:
                return wanted, media
    for name, media in content.items():
        if name.split(";")[0].strip().lower().endswith("+json"):
            return "application/json", media
    return None, {}


def _output(document: Mapping[str, Any], responses: Mapping[str, Any], three_oh: bool) -> Any:
    for status, raw in sorted(responses.items(), key=lambda item: str(item[0])):
        if str(status).startswith("2"):
            response = resolve(document, raw)
            _, media = _media_json(response.get("content") or {})
            if media is not None and media.get("schema"):  # `{}` says nothing: no schema
                return json_schema(document, media["schema"], three_oh) or None
            return None
    return None


def _media_json(content: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any] | None]:
    for name, media in content.items():
        kind = name.split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            return kind, media
    return None, None


def json_schema(document: Mapping[str, Any], schema: Any, three_oh: bool) -> dict[str, Any]:
    """An OpenAPI schema as a self-contained JSON Schema: references inlined (a recursive one
    kept under `$defs`), 3.0's `nullable`, `example` and boolean exclusive bounds rewritten."""
    from plainmcp.schema.refs import inline_refs

    root = {"allOf": [copy.deepcopy(schema)], "components": document.get("components", {})}
    inlined = inline_refs(root)
    defs = inlined.get("$defs", {})
    body = inlined["allOf"][0]
    out: dict[str, Any] = body if isinstance(body, dict) else {"allOf": [body]}
    used = _used_defs(out, defs)  # the cycles of the components `body` never reaches are dropped
    if used:
        out = {**out, "$defs": {name: defs[name] for name in defs if name in used}}
    return _rewrite_30(out) if three_oh else out


def _used_defs(node: Any, defs: Mapping[str, Any]) -> set[str]:
    used: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/") :].replace("~1", "/").replace("~0", "~")
                if name in defs and name not in used:
                    used.add(name)
                    todo.append(defs[name])
            todo.extend(v for k, v in item.items() if k != "$ref")
    return used


_DROPPED = ("xml", "externalDocs", "discriminator")
_VALUES = ("enum", "default", "example")


def _rewrite_30(node: Any) -> Any:
    if isinstance(node, list):
        return [_rewrite_30(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: (v if k in _VALUES else _rewrite_30(v)) for k, v in node.items()}
    for key in _DROPPED:
        out.pop(key, None)
    if "example" in out:
        out["examples"] = [out.pop("example")]
    for bound in ("Minimum", "Maximum"):
        flag = out.get(f"exclusive{bound}")
        if isinstance(flag, bool):
            del out[f"exclusive{bound}"]
            if flag and bound.lower() in out:
                out[f"exclusive{bound}"] = out.pop(bound.lower())
    if out.pop("nullable", False):
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif "enum" in out:
            out["enum"] = [*out["enum"], None]
        elif kind is None:
            out = {"anyOf": [out, {"type": "null"}]}
    return out
