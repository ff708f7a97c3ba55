"""An operation's input schema: one argument per parameter, `body` for the request body, names
made valid and collision-free; and which argument goes where in the request."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from plainmcp.openapi.document import Operation

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one argument goes: `location` is path, query, header, cookie or body."""

    argument: str
    location: str
    name: str


@dataclass(frozen=True, slots=True)
class Inputs:
    schema: dict[str, Any]
    slots: tuple[Slot, ...]
    binary_fields: Mapping[str, str]
    """The multipart body's fields sent as files (their argument is base64 text), and each
    one's media type."""


def inputs(operation: Operation) -> Inputs:
    properties: dict[str, Any] = {}
    required: list[str] = []
    slots: list[Slot] = []
    for parameter in operation.parameters:
        argument = _free(parameter.name, parameter.location, properties)
        schema = dict(parameter.schema)
        if parameter.description and "description" not in schema:
            schema["description"] = parameter.description
        properties[argument] = schema
        if parameter.required:
            required.append(argument)
        slots.append(Slot(argument, parameter.location, parameter.name))
    binary: Mapping[str, str] = {}
    if operation.body_schema is not None:
        argument = _free("body", "body", properties)
        schema = operation.body_schema
        if operation.body_type == "multipart/form-data":
            schema, binary = _files_as_base64(schema)
        properties[argument] = schema
        if operation.body_required:
            required.append(argument)
        slots.append(Slot(argument, "body", "body"))
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    out["additionalProperties"] = False
    return Inputs(out, tuple(slots), binary)


def _free(name: str, location: str, taken: dict[str, Any]) -> str:
    """The parameter's name made valid; on a clash `{name}_{location}`, then a number."""
    base = _UNSAFE.sub("_", name) or location
    if base not in taken:
        return base
    candidate, n = f"{base}_{location}", 2
    while candidate in taken:
        candidate, n = f"{base}_{location}{n}", n + 1
    return candidate


def is_binary(schema: Any) -> bool:
    if not isinstance(schema, dict) or schema.get("type") not in ("string", None):
        return False
    media = schema.get("contentMediaType")
    return schema.get("format") == "binary" or (
        isinstance(media, str) and not media.startswith("text/") and "json" not in media
    )


def _files_as_base64(schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A multipart body's binary fields take base64 text (a model writes no raw bytes)."""
    fields = schema.get("properties")
    if not isinstance(fields, dict):
        return schema, {}
    binary = {
        name: str(field.get("contentMediaType") or "application/octet-stream")
        for name, field in fields.items()
        if is_binary(field)
    }
    rewritten = {
        name: (_base64_field(field) if name in binary else field) for name, field in fields.items()
    }
    return {**schema, "properties": rewritten}, binary


def _base64_field(field: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "contentEncoding": "base64"}
    if isinstance(field.get("contentMediaType"), str):
        out["contentMediaType"] = field["contentMediaType"]
    out["description"] = " ".join(
        part for part in (field.get("description"), "The file's bytes, base64-encoded.") if part
    )
    return out
