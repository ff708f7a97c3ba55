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
            " its 20: https://example.com/rule",
        )
    ]
    assert name_problems("lookup", "shop", (RULE,)) == []


def test_characters_the_host_rejects() -> None:
    assert name_problems("get.v2", "s", (RULE,)) == [
        Problem(
            "name-rejected",
            "tool get.v2",
            "'get.v2' has characters Host X rejects: https://example.com/rule",
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
        Problem("schema-ref", "tool add", "outputSchema has a $ref at $"),
        Problem("missing-description", "tool add", "the tool has no description"),
        Problem("missing-description", "tool add parameter b", "the parameter has no description"),
    ]
