"""The document FastAPI generates for a small app, served as tools and called in process
(from_asgi: app.openapi(), httpx2.ASGITransport)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from plainmcp import Client, McpError
from plainmcp.openapi import SAFE_GETS, OpenAPIError, from_asgi

pytestmark = pytest.mark.anyio


class NewPet(BaseModel):
    name: str
    age: int | None = None


class Pet(BaseModel):
    id: int
    name: str
    age: int | None = None
    owner: str


def make_api() -> FastAPI:
    api = FastAPI(title="Pets")
    pets = {1: Pet(id=1, name="Rex", owner="ada")}

    @api.get("/pets/{pet_id}", operation_id="get_pet", tags=["pets"])
    def get_pet(pet_id: int) -> Pet:
        """Fetch one pet."""
        if pet_id not in pets:
            raise HTTPException(404, "no such pet")
        return pets[pet_id]

    @api.put("/owners/{owner}/pets/{pet_id}", operation_id="put_pet", tags=["pets"])
    def put_pet(owner: str, pet_id: int, body: NewPet, notify: bool = False) -> Pet:
        if body.age is not None and body.age < 0:
            raise HTTPException(422, "age must not be negative")
        pets[pet_id] = Pet(id=pet_id, owner=f"{owner}{'!' if notify else ''}", **body.model_dump())
        return pets[pet_id]

    @api.delete("/admin/reset", operation_id="reset", tags=["admin"])
    def reset() -> None:
        pets.clear()

    return api


PET_SCHEMA: dict[str, Any] = {
    "properties": {
        "id": {"type": "integer", "title": "Id"},
        "name": {"type": "string", "title": "Name"},
        "age": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Age"},
        "owner": {"type": "string", "title": "Owner"},
    },
    "type": "object",
    "required": ["id", "name", "owner"],
    "title": "Pet",
}


async def test_the_chosen_operations_are_listed_with_their_schemas() -> None:
    app = from_asgi(make_api(), include=["tag:pets"])
    async with Client.memory(app) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
    assert sorted(tools) == ["get_pet", "put_pet", "read_more"]  # reset (tag admin) is not
    get, put = tools["get_pet"], tools["put_pet"]
    assert get.description == "Get Pet\n\nFetch one pet."
    assert get.input_schema == {
        "type": "object",
        "properties": {"pet_id": {"type": "integer", "title": "Pet Id"}},
        "required": ["pet_id"],
        "additionalProperties": False,
    }
    assert get.output_schema == PET_SCHEMA
    assert get.annotations == {"readOnlyHint": True, "openWorldHint": True}
    assert put.input_schema == {
        "type": "object",
        "properties": {
            "owner": {"type": "string", "title": "Owner"},
            "pet_id": {"type": "integer", "title": "Pet Id"},
            "notify": {"type": "boolean", "default": False, "title": "Notify"},
            "body": {  # the $ref to components/schemas/NewPet, inlined
                "properties": {
                    "name": {"type": "string", "title": "Name"},
                    "age": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Age"},
                },
                "type": "object",
                "required": ["name"],
                "title": "NewPet",
            },
        },
        "required": ["owner", "pet_id", "body"],
        "additionalProperties": False,
    }
    assert put.output_schema == PET_SCHEMA
    assert put.annotations == {
        "readOnlyHint": False,
        "openWorldHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
    }


async def test_a_call_with_path_query_and_body_reaches_the_app() -> None:
    app = from_asgi(make_api(), include=["put_pet", "get_pet"])
    async with Client.memory(app) as client:
        put = await client.call_tool(
            "put_pet",
            {"owner": "bo", "pet_id": 2, "notify": True, "body": {"name": "Tom", "age": 3}},
        )
        got = await client.call_tool("get_pet", {"pet_id": 2})
    expected = {"id": 2, "name": "Tom", "age": 3, "owner": "bo!"}
    assert (put.is_error, put.structured, put.text) == (
        False,
        expected,
        '{"id":2,"name":"Tom","age":3,"owner":"bo!"}',
    )
    assert (got.is_error, got.structured) == (False, expected)


async def test_http_errors_are_results_the_model_reads() -> None:
    app = from_asgi(make_api(), include=["GET /pets/*", "PUT /owners/*"])
    async with Client.memory(app) as client:
        missing = await client.call_tool("get_pet", {"pet_id": 9})
        refused = await client.call_tool(
            "put_pet", {"owner": "bo", "pet_id": 2, "body": {"name": "Tom", "age": -1}}
        )
        invalid = await client.call_tool("put_pet", {"owner": "bo", "pet_id": 2, "body": {}})
    assert (missing.is_error, missing.text) == (
        True,
        'HTTP 404 Not Found from GET /pets/9\n{"detail":"no such pet"}',
    )
    assert (refused.is_error, refused.text) == (
        True,
        "HTTP 422 Unprocessable Content from PUT /owners/bo/pets/2\n"
        '{"detail":"age must not be negative"}',
    )
    # arguments the schema refuses never reach the API
    assert (invalid.is_error, invalid.text) == (
        True,
        "Invalid arguments for tool 'put_pet':\n- body: 'name' is a required property",
    )


def test_nothing_is_exposed_unless_chosen() -> None:
    with pytest.raises(TypeError, match="include"):
        from_asgi(make_api())  # type: ignore[call-arg]
    with pytest.raises(OpenAPIError) as none:
        from_asgi(make_api(), include=["tag:nothing"])
    assert str(none.value) == "include= chose no operation of the document"
    everything = from_asgi(make_api(), include="*", exclude=["tag:admin"])
    assert sorted(everything.tools) == ["get_pet", "put_pet"]


async def test_safe_gets_can_be_resources_by_a_rule() -> None:
    app = from_asgi(make_api(), include=["tag:pets"], resources=SAFE_GETS)
    async with Client.memory(app) as client:
        names = [tool.name for tool in await client.list_tools()]
        [template] = await client.list_resource_templates()
        read = await client.read_resource("http://asgi/pets/1")
        with pytest.raises(McpError) as missing:
            await client.read_resource("http://asgi/pets/9")
    assert names == ["put_pet", "read_more"]  # get_pet is read, not called
    assert (template.uri_template, template.name, template.mime_type) == (
        "http://asgi/pets/{pet_id}",
        "get_pet",
        "application/json",
    )
    assert (read.text, read.contents[0].mime_type) == (
        '{"id":1,"name":"Rex","age":null,"owner":"ada"}',
        "application/json",
    )
    assert str(missing.value) == (
        'HTTP 404 Not Found from GET /pets/9\n{"detail":"no such pet"} (code -32602)'
    )


def test_a_resource_rule_that_chooses_no_safe_get_is_refused() -> None:
    with pytest.raises(OpenAPIError) as refused:
        from_asgi(make_api(), include="*", resources="tag:pets")
    assert str(refused.value) == "operation 'put_pet': only a GET can be a resource"
