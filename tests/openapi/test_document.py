"""OpenAPI 3.0 schemas as JSON Schema, tool names from operationIds, and selection rules."""

from __future__ import annotations

from typing import Any

import pytest

from plainmcp import Client
from plainmcp.openapi import SAFE_GETS, OpenAPIError, from_openapi
from plainmcp.openapi.document import json_schema, operations
from plainmcp.openapi.inputs import inputs
from plainmcp.openapi.select import chosen


def document(paths: dict[str, Any], version: str = "3.0.3") -> dict[str, Any]:
    return {"openapi": version, "info": {"title": "T", "version": "1"}, "paths": paths}


def test_openapi_3_0_keywords_become_json_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "nullable": True, "minimum": 0, "exclusiveMinimum": True},
            "s": {"type": "string", "example": "x", "maximum": 3, "exclusiveMaximum": False},
            "e": {"enum": ["a"], "nullable": True},
            "r": {"$ref": "#/components/schemas/R", "nullable": True},
        },
        "xml": {"name": "thing"},
    }
    doc = {"components": {"schemas": {"R": {"type": "boolean"}}}}
    assert json_schema(doc, schema, three_oh=True) == {
        "type": "object",
        "properties": {
            "n": {"type": ["integer", "null"], "exclusiveMinimum": 0},
            "s": {"type": "string", "examples": ["x"], "maximum": 3},
            "e": {"enum": ["a", None]},
            "r": {"type": ["boolean", "null"]},
        },
    }
    # 3.1 schemas are JSON Schema already: only their references are inlined
    assert json_schema(doc, {"$ref": "#/components/schemas/R", "nullable": True}, False) == {
        "type": "boolean",
        "nullable": True,
    }


def ops(method: str, path: str, operation_id: str | None, tags: list[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"responses": {"200": {"description": "ok"}}, "tags": tags}
    if operation_id is not None:
        body["operationId"] = operation_id
    if "{id}" in path:
        body["parameters"] = [{"name": "id", "in": "path", "required": True, "schema": {}}]
    return {path: {method: body}}


def test_an_empty_response_schema_is_no_output_schema() -> None:
    ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {}}}}}
    [operation] = operations(document({"/x": {"get": {"responses": ok}}}))
    assert operation.output_schema is None


def test_tool_names_are_sanitised_and_kept_apart() -> None:
    paths = {
        **ops("get", "/users/{id}", "get user!", ["users"]),
        **ops("post", "/users", None, ["users"]),
        **ops("put", "/accounts/{id}", "get_user", ["users"]),
    }
    app = from_openapi(document(paths), include="*", base_url="https://api.example")
    assert [name for name in app.tools if name != "read_more"] == [
        "get_user",
        "post_users",
        "get_user_2",
    ]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("listUsers", ["listUsers"]),
        ("tag:admin", ["purge"]),
        ("GET /users*", ["listUsers"]),
        ("* /admin/*", ["purge"]),
        ("*", ["listUsers", "purge"]),
    ],
)
def test_selection_rules(rule: str, expected: list[str]) -> None:
    paths = {
        **ops("get", "/users", "listUsers", ["users"]),
        **ops("delete", "/admin/x", "purge", ["admin"]),
    }
    found = chosen(operations(document(paths)), [rule], [])
    assert [op.operation_id for op in found] == expected
    assert [op.operation_id for op in chosen(operations(document(paths)), ["*"], [rule])] == [
        name for name in ["listUsers", "purge"] if name not in expected
    ]


def test_a_parameter_named_body_keeps_the_body_apart() -> None:
    paths = {
        "/x/{a.b}": {
            "post": {
                "operationId": "x",
                "parameters": [
                    {"name": "a.b", "in": "path", "required": True, "schema": {}},
                    {"name": "body", "in": "query", "schema": {"type": "string"}},
                    {"name": "X Y", "in": "header", "schema": {"type": "string"}},
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "integer"}}},
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    [operation] = operations(document(paths))
    shape = inputs(operation)
    assert list(shape.schema["properties"]) == ["a.b", "body", "X_Y", "body_body"]
    assert shape.schema["required"] == ["a.b", "body_body"]
    assert [(s.argument, s.location, s.name) for s in shape.slots] == [
        ("a.b", "path", "a.b"),
        ("body", "query", "body"),
        ("X_Y", "header", "X Y"),
        ("body_body", "body", "body"),
    ]


@pytest.mark.anyio
async def test_the_documents_server_url_takes_its_variables_defaults() -> None:
    doc = document(ops("get", "/items/{id}", "item", []), version="3.1.0")
    doc["servers"] = [
        {
            "url": "https://{region}.x.example/v{major}",
            "variables": {"region": {"default": "eu"}, "major": {"default": "2"}},
        }
    ]
    app = from_openapi(doc, include="*", resources=SAFE_GETS)
    async with Client.memory(app) as client:
        [template] = await client.list_resource_templates()
    assert template.uri_template == "https://eu.x.example/v2/items/{id}"
    del doc["servers"]
    with pytest.raises(OpenAPIError) as missing:
        from_openapi(doc, include="*")
    assert str(missing.value) == "the document names no absolute server URL: pass base_url="


def test_a_rule_of_another_kind_is_refused() -> None:
    doc = document(ops("get", "/x", "x", []))
    with pytest.raises(TypeError) as refused:
        from_openapi(doc, include=[3], base_url="https://x.example")  # type: ignore[list-item]
    assert str(refused.value) == (
        "include= takes operationIds, 'tag:NAME', 'METHOD /path' or callables"
    )
