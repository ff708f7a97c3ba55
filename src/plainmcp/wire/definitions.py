"""Definitions for one revision: what the list methods and initialize send (tools, prompts,
resources, templates, the server's identity), without the fields the revision lacks.

The pieces results share with them (icons, annotations, object schemas) are here too;
`render` writes the results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from plainmcp.model.blocks import Annotations, Icon
from plainmcp.model.options import ResultOptions
from plainmcp.wire.methods import Method
from plainmcp.wire.revisions import Revision

# --- what a definition is read from ----------------------------------------------------------
# Protocols, not the core's classes: the wire names no module above it (tests/test_layers.py).


class Definable(Protocol):
    """What every listed feature has: its name, the words shown for it, its icons and _meta."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def icons(self) -> tuple[Icon, ...] | None: ...
    @property
    def meta(self) -> Mapping[str, Any] | None: ...


class ToolDefinable(Definable, Protocol):
    @property
    def input_schema(self) -> dict[str, Any]: ...
    @property
    def output_schema(self) -> dict[str, Any] | None: ...
    @property
    def annotations(self) -> Mapping[str, Any] | None: ...
    @property
    def task(self) -> str | None: ...


class ArgumentDefinable(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...
    @property
    def required(self) -> bool: ...


class PromptDefinable(Definable, Protocol):
    @property
    def arguments(self) -> Sequence[ArgumentDefinable]: ...


class ResourceCommon(Definable, Protocol):
    @property
    def mime_type(self) -> str | None: ...
    @property
    def annotations(self) -> Annotations | None: ...


class ResourceDefinable(ResourceCommon, Protocol):
    @property
    def uri(self) -> str: ...
    @property
    def size(self) -> int | None: ...


class TemplateDefinable(ResourceCommon, Protocol):
    @property
    def uri_template(self) -> str: ...


# --- shared pieces -------------------------------------------------------------------------


def is_object_schema(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object"


def wrapped_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The object schema that carries a non-object value as {"result": value}."""
    return {"type": "object", "properties": {"result": dict(schema)}, "required": ["result"]}


def icon(value: Icon) -> dict[str, Any]:
    return value.wire()


def annotation_fields(value: Annotations, rev: Revision) -> dict[str, Any] | None:
    return value.wire(rev.annotation_fields)


# --- definitions ---------------------------------------------------------------------------


def tool(
    value: ToolDefinable, rev: Revision, options: ResultOptions, note: str | None = None
) -> dict[str, Any]:
    """A Tool definition for `tools/list`, without the fields the revision lacks. `note`: a
    sentence the server adds to the description (how results over its limit arrive)."""
    out: dict[str, Any] = {"name": value.name}
    if value.title and "title" in rev.tool_fields:
        out["title"] = value.title
    if value.description and note:
        out["description"] = f"{value.description.rstrip()}\n\n{note}"
    elif value.description or note:
        out["description"] = value.description or note
    out["inputSchema"] = value.input_schema
    schema = value.output_schema
    if schema is not None and "outputSchema" in rev.tool_fields:
        if rev.structured == "any" or is_object_schema(schema):
            out["outputSchema"] = schema
        elif options.compat == "fallback":
            out["outputSchema"] = wrapped_schema(schema)
    if "annotations" in rev.tool_fields:
        tool_annotations = dict(value.annotations or {})
        if value.title and "title" not in rev.tool_fields:
            tool_annotations.setdefault("title", value.title)
        if tool_annotations:
            out["annotations"] = tool_annotations
    if value.task is not None and "execution" in rev.tool_fields:
        out["execution"] = {"taskSupport": value.task}
    _icons_and_meta(value, rev.tool_fields, out)
    return out


def _icons_and_meta(value: Definable, fields: frozenset[str], out: dict[str, Any]) -> None:
    """`icons` and `_meta` of a definition, where the revision's `fields` have them."""
    if value.icons and "icons" in fields:
        out["icons"] = [icon(i) for i in value.icons]
    if value.meta and "_meta" in fields:
        out["_meta"] = dict(value.meta)


def prompt(value: PromptDefinable, rev: Revision) -> dict[str, Any]:
    """A Prompt definition for `prompts/list`, without the fields the revision lacks."""
    out: dict[str, Any] = {"name": value.name}
    if value.title and "title" in rev.prompt_fields:
        out["title"] = value.title
    if value.description:
        out["description"] = value.description
    arguments = []
    for argument in value.arguments:
        item: dict[str, Any] = {"name": argument.name}
        if argument.title and "title" in rev.prompt_argument_fields:
            item["title"] = argument.title
        if argument.description:
            item["description"] = argument.description
        item["required"] = argument.required
        arguments.append(item)
    out["arguments"] = arguments
    _icons_and_meta(value, rev.prompt_fields, out)
    return out


def _resource_common(value: ResourceCommon, out: dict[str, Any], rev: Revision) -> dict[str, Any]:
    """The optional fields Resource and ResourceTemplate share, as far as the revision has them."""
    if value.title and "title" in rev.resource_fields:
        out["title"] = value.title
    if value.description:
        out["description"] = value.description
    if value.mime_type:
        out["mimeType"] = value.mime_type
    if value.annotations is not None:
        rendered = annotation_fields(value.annotations, rev)
        if rendered is not None:
            out["annotations"] = rendered
    _icons_and_meta(value, rev.resource_fields, out)
    return out


def resource(value: ResourceDefinable, rev: Revision) -> dict[str, Any]:
    """A Resource definition for `resources/list`."""
    out = _resource_common(value, {"uri": value.uri, "name": value.name}, rev)
    if value.size is not None:
        out["size"] = value.size
    return out


def resource_template(value: TemplateDefinable, rev: Revision) -> dict[str, Any]:
    """A ResourceTemplate definition for `resources/templates/list`."""
    return _resource_common(value, {"uriTemplate": value.uri_template, "name": value.name}, rev)


# --- lists and the server ------------------------------------------------------------------


def listing(method: Method, items: list[dict[str, Any]], next_cursor: str | None) -> dict[str, Any]:
    """One page of a paginated list method's result, under the key the table gives it."""
    assert method.lists is not None, f"{method.name} is not a paginated list"
    result: dict[str, Any] = {method.lists: items}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return result


def server_info(
    fields: Mapping[str, Any], icons: Sequence[Icon] | None, rev: Revision
) -> dict[str, Any]:
    out = {k: v for k, v in fields.items() if v is not None and k in rev.server_info_fields}
    if icons and "icons" in rev.server_info_fields:
        out["icons"] = [icon(i) for i in icons]
    return out
