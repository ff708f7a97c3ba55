"""The rules on listed definitions: host name rules, `$ref` left in schemas, descriptions."""

from __future__ import annotations

import re

from plainmcp.lint.definitions import (
    NAME_RULES,
    NameRule,
    name_problems,
    schema_refs,
    tool_problems,
)
from plainmcp.lint.problems import Problem

RULE = NameRule(
    host="Host X",
    allowed=re.compile(r"[a-z_]+"),
    max_length=20,
    shown="x__{server}__{tool}",
    source="https://example.com/rule",
)


def test_a_name_over_the_length_as_the_host_prefixes_it() -> None:
    assert name_problems("lookup_orders", "shop", (RULE,)) == [
        Problem(
            "name-rejected",
            "tool lookup_orders",
            "'lookup_orders' is 22 characters as Host X names it (x__shop__lookup_orders), over"
            " its 20; rename the tool with @app.tool(name=...), or install the server under a"
            " shorter name (plainmcp install --name). Source: https://example.com/rule",
        )
    ]
    assert name_problems("lookup", "shop", (RULE,)) == []


def test_characters_the_host_rejects() -> None:
    assert name_problems("get.v2", "s", (RULE,)) == [
        Problem(
            "name-rejected",
            "tool get.v2",
            "'get.v2' has characters Host X rejects; rename the tool with @app.tool(name=...)."
            " Source: https://example.com/rule",
        )
    ]


def test_every_rule_cites_a_source_and_a_short_plain_name_passes_them_all() -> None:
    assert all(rule.source.count("https://") >= 1 for rule in NAME_RULES)
    assert name_problems("add", "demo") == []


def test_a_dotted_name_is_refused_by_the_hosts_whose_model_apis_refuse_dots() -> None:
    hosts = [p.message.split(" rejects")[0] for p in name_problems("files.read", "demo")]
    assert hosts == [
        "'files.read' has characters Claude Desktop",
        "'files.read' has characters the OpenAI API (OpenAI Agents SDK, Codex CLI)",
    ]


def test_refs_are_found_where_they_are_and_property_names_are_not_refs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "$ref": {"type": "string"},
            "point": {"$ref": "#/$defs/point"},
            "many": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/a"}, {}]}},
        },
        "$defs": {"point": {"type": "object"}, "a": {"$ref": "#/$defs/point"}},
        "default": {"$ref": "not a schema"},
    }
    assert list(schema_refs(schema)) == [
        "$.properties.point",
        "$.properties.many.items.anyOf[0]",
        "$.$defs.a",
    ]


NO_TOOL_DESCRIPTION = (
    "the tool has no description; give the function a docstring (its first paragraph is the"
    " description the model reads) or @app.tool(description=...)"
)


def no_param_description(name: str) -> str:
    return (
        "the parameter has no description and the tool's description does not name it;"
        f" describe it in the docstring's Args: section ({name}: what it is), with"
        ' Annotated[..., "what it is"], or name it in the tool\'s description'
    )


def untyped(name: str) -> str:
    return (
        "the parameter's schema has no type, so the model is told it takes any value (`plainmcp"
        f' list` shows it as any); annotate it ({name}: int, say), or give it a "type" in a'
        " hand-written input schema"
    )


def test_tool_problems_name_the_tool_and_each_parameter() -> None:
    tool = {
        "name": "add",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer", "description": "first"}, "b": {}},
        },
        "outputSchema": {"$ref": "#/x"},
    }
    assert tool_problems(tool, "demo") == [
        Problem(
            "schema-ref",
            "tool add",
            "outputSchema has a $ref to #/x at $; many clients do not resolve $ref, so their"
            " model sees the pointer: inline the definition in the schema (plainmcp inlines the"
            " schemas it derives from annotations; this one was written by hand)",
        ),
        Problem("missing-description", "tool add", NO_TOOL_DESCRIPTION),
        Problem("untyped-parameter", "tool add parameter b", untyped("b")),
        Problem("missing-description", "tool add parameter b", no_param_description("b")),
    ]


def test_a_parameter_the_tool_description_names_is_described() -> None:
    """The README's quickstart: `Divide a by b.` says what a and b are; `region` in the
    chart's description likewise. A name inside another word does not count."""
    number = {"type": "number"}
    divide = {
        "name": "divide",
        "description": "Divide a by b.",
        "inputSchema": {"type": "object", "properties": {"a": number, "b": number}},
    }
    assert tool_problems(divide, "demo") == []
    chart = {
        "name": "chart",
        "description": "The sales chart of a region, by `regions_total`.",
        "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}},
    }
    assert tool_problems(chart, "demo") == []
    chart["description"] = "The sales chart of one regional office."
    assert tool_problems(chart, "demo") == [
        Problem(
            "missing-description", "tool chart parameter region", no_param_description("region")
        )
    ]


def test_an_untyped_parameter_is_flagged_once_it_takes_any_value() -> None:
    properties = {
        "x": {"description": "Anything.", "default": None},
        "y": True,
        "z": {"description": "A number.", "anyOf": [{"type": "integer"}, {"type": "null"}]},
        "w": {"description": "Listed.", "enum": [1, 2]},
    }
    tool = {
        "name": "t",
        "description": "Takes x, y.",
        "inputSchema": {"type": "object", "properties": properties},
    }
    assert tool_problems(tool, "demo") == [
        Problem("untyped-parameter", "tool t parameter x", untyped("x")),
        Problem("untyped-parameter", "tool t parameter y", untyped("y")),
    ]


def test_a_recursive_type_is_one_problem_with_every_place_it_is_pointed_at() -> None:
    node = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    }
    schema = {
        "type": "object",
        "properties": {"tree": {**node, "description": "The tree."}},
        "$defs": {"Node": node},
    }
    tool = {"name": "count", "description": "Count the nodes of a tree.", "inputSchema": schema}
    assert tool_problems(tool, "demo") == [
        Problem(
            "schema-ref",
            "tool count",
            "inputSchema has a $ref to #/$defs/Node at $.properties.tree.properties.children"
            ".items, $.$defs.Node.properties.children.items; many clients do not resolve $ref,"
            " so their model sees the pointer: the type refers to itself, so it cannot be"
            " inlined: give it a fixed depth (a type whose children are another type, without"
            " children)",
        )
    ]
