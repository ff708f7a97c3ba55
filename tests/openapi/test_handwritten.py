"""A hand-written OpenAPI 3.1 document (references, a bearer scheme, a multipart body, a name
used twice) served as tools: the exact requests they make, against httpx2.MockTransport."""

from __future__ import annotations

import base64
import copy
from typing import Any

import httpx2
import pytest

from plainmcp import Client
from plainmcp.openapi import OpenAPIError, Operation, from_openapi

pytestmark = pytest.mark.anyio

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Files", "version": "1"},
    "servers": [{"url": "https://files.example/api/v1"}],
    "security": [{"bearer": []}],
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "parameters": {
            "Folder": {
                "name": "folder",
                "in": "path",
                "required": True,
                "description": "The folder.",
                "schema": {"$ref": "#/components/schemas/FolderName"},
            }
        },
        "schemas": {
            "FolderName": {"type": "string", "pattern": "^[a-z]+$"},
            "Upload": {
                "type": "object",
                "properties": {
                    "file": {"type": "string", "contentMediaType": "image/png"},
                    "note": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["file"],
            },
            "Stored": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "size": {"type": "integer"}},
                "required": ["id", "size"],
            },
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                },
            },
        },
    },
    "paths": {
        "/folders/{folder}/files": {
            "parameters": [{"$ref": "#/components/parameters/Folder"}],
            "post": {
                "operationId": "upload-file",
                "summary": "Upload a file.",
                "tags": ["files"],
                "parameters": [
                    {
                        "name": "folder",
                        "in": "query",
                        "description": "Also create the folder.",
                        "schema": {"type": "boolean"},
                    },
                    {"name": "X-Request-Id", "in": "header", "schema": {"type": "string"}},
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "multipart/form-data": {"schema": {"$ref": "#/components/schemas/Upload"}}
                    },
                },
                "responses": {
                    "201": {
                        "description": "Stored.",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Stored"}}
                        },
                    }
                },
            },
        },
        "/tree": {
            "get": {
                "operationId": "tree",
                "tags": ["files"],
                "description": "The folder tree.",
                "security": [{}],
                "responses": {
                    "200": {
                        "description": "The tree.",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}
                        },
                    }
                },
            }
        },
        "/admin/purge": {
            "post": {"operationId": "purge", "responses": {"204": {"description": "Gone."}}}
        },
    },
}


class Recorder:
    """The API's side: every request kept, answered as the test says."""

    def __init__(self) -> None:
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        if request.url.path.endswith("/files"):
            return httpx2.Response(201, json={"id": "f1", "size": 3})
        if request.url.path == "/api/v1/tree":
            return httpx2.Response(200, json={"name": "/", "children": [{"name": "docs"}]})
        return httpx2.Response(500, text="boom " * 1000)


def served(recorder: Recorder, **options: Any) -> Any:
    client = httpx2.AsyncClient(
        transport=httpx2.MockTransport(recorder), base_url="https://files.example/api/v1"
    )
    options.setdefault("credentials", {"bearer": "s3cret"})
    return from_openapi(DOCUMENT, client=client, **options)


async def test_the_tools_schemas_resolve_references_and_keep_names_apart() -> None:
    app = served(Recorder(), include=["tag:files"])
    async with Client.memory(app) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
    upload, tree = tools["upload-file"], tools["tree"]
    assert upload.description == "Upload a file."
    assert upload.input_schema == {
        "type": "object",
        "properties": {
            "folder": {"type": "string", "pattern": "^[a-z]+$", "description": "The folder."},
            "folder_query": {"type": "boolean", "description": "Also create the folder."},
            "X-Request-Id": {"type": "string"},
            "body": {
                "type": "object",
                "properties": {
                    "file": {
                        "type": "string",
                        "contentEncoding": "base64",
                        "contentMediaType": "image/png",
                        "description": "The file's bytes, base64-encoded.",
                    },
                    "note": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["file"],
            },
        },
        "required": ["folder", "body"],
        "additionalProperties": False,
    }
    assert upload.output_schema == DOCUMENT["components"]["schemas"]["Stored"]
    assert tree.description == (  # plainmcp's note on a result it may send in parts
        "The folder tree.\n\nResults over 40,000 characters are sent in parts: a partial result"
        " says how many items it holds and which read_more call returns the next ones."
    )
    assert tree.input_schema == {"type": "object", "properties": {}, "additionalProperties": False}

    # a recursive schema is inlined once and keeps its cycle under $defs
    def node(items: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": items},
            },
        }

    cycle = node({"$ref": "#/$defs/Node"})
    assert tree.output_schema == {**node(cycle), "$defs": {"Node": cycle}}


async def test_a_multipart_upload_is_the_exact_request() -> None:
    recorder = Recorder()
    app = served(recorder, include=["upload-file"])
    png = b"\x89PNG"
    async with Client.memory(app) as client:
        result = await client.call_tool(
            "upload-file",
            {
                "folder": "photos",
                "folder_query": True,
                "X-Request-Id": "r-1",
                "body": {
                    "file": base64.b64encode(png).decode(),
                    "note": "hi",
                    "tags": ["a", "b"],
                },
            },
        )
    assert (result.is_error, result.structured) == (False, {"id": "f1", "size": 3})
    [request] = recorder.requests
    assert (request.method, str(request.url)) == (
        "POST",
        "https://files.example/api/v1/folders/photos/files?folder=true",
    )
    assert request.headers["authorization"] == "Bearer s3cret"
    assert request.headers["x-request-id"] == "r-1"
    kind, _, boundary = request.headers["content-type"].partition("; boundary=")
    assert kind == "multipart/form-data"
    part = f'--{boundary}\r\nContent-Disposition: form-data; name="'
    assert (
        request.read()
        == (
            f'{part}note"\r\n\r\nhi\r\n'
            f'{part}tags"\r\n\r\na\r\n'
            f'{part}tags"\r\n\r\nb\r\n'
            f'{part}file"; filename="file"\r\nContent-Type: image/png\r\n\r\n'
        ).encode()
        + png
        + f"\r\n--{boundary}--\r\n".encode()
    )


async def test_a_public_operation_sends_no_credentials_and_headers_can_be_per_request() -> None:
    recorder = Recorder()
    seen: list[str] = []

    async def per_request(operation: Operation) -> dict[str, str]:
        seen.append(operation.operation_id or "")
        return {"X-Trace": f"t-{len(seen)}"}

    app = served(recorder, include=["tree"], headers=per_request)
    async with Client.memory(app) as client:
        first = await client.call_tool("tree", {})
        await client.call_tool("tree", {})
    assert first.structured == {"name": "/", "children": [{"name": "docs"}]}
    assert [(r.method, str(r.url)) for r in recorder.requests] == [
        ("GET", "https://files.example/api/v1/tree")
    ] * 2
    assert [r.headers.get("x-trace") for r in recorder.requests] == ["t-1", "t-2"]
    assert ["authorization" in r.headers for r in recorder.requests] == [False, False]
    assert seen == ["tree", "tree"]


async def test_a_credential_can_be_a_function_called_per_request() -> None:
    recorder = Recorder()
    tokens = iter(["one", "two"])
    app = served(recorder, include=["upload-file"], credentials={"bearer": lambda: next(tokens)})
    args = {"folder": "a", "body": {"file": ""}}
    async with Client.memory(app) as client:
        await client.call_tool("upload-file", args)
        await client.call_tool("upload-file", args)
    assert [r.headers["authorization"] for r in recorder.requests] == ["Bearer one", "Bearer two"]


async def test_a_server_error_is_cut_for_the_model() -> None:
    document = copy.deepcopy(DOCUMENT)
    app = served(Recorder(), include=["POST /admin/*"])
    assert document == DOCUMENT  # the document is not changed
    async with Client.memory(app) as client:
        result = await client.call_tool("purge", {})
    assert result.is_error
    assert result.text == (
        "HTTP 500 Internal Server Error from POST /api/v1/admin/purge (cut)\n" + ("boom " * 400)
    ).rstrip("\n")


def test_missing_credentials_are_named_when_the_server_is_built() -> None:
    with pytest.raises(OpenAPIError) as missing:
        served(Recorder(), include=["upload-file"], credentials={})
    assert str(missing.value) == (
        "operation 'upload-file' needs credentials= for bearer (http bearer: a token)"
    )


def test_an_invalid_document_is_refused_with_the_validators_reason() -> None:
    broken = copy.deepcopy(DOCUMENT)
    del broken["paths"]["/tree"]["get"]["responses"]["200"]["description"]
    with pytest.raises(OpenAPIError) as invalid:
        from_openapi(broken, include="*", base_url="https://x.example")
    assert str(invalid.value).startswith("invalid OpenAPI document at ")
    assert "'description' is a required property" in str(invalid.value)


async def test_static_headers_can_carry_a_scheme_and_others_do_not_count() -> None:
    recorder = Recorder()
    app = served(
        recorder, include=["upload-file"], credentials={}, headers={"Authorization": "Bearer h"}
    )
    async with Client.memory(app) as client:
        await client.call_tool("upload-file", {"folder": "a", "body": {"file": ""}})
    assert recorder.requests[0].headers["authorization"] == "Bearer h"
    with pytest.raises(OpenAPIError) as missing:
        served(Recorder(), include=["upload-file"], credentials={}, headers={"X-Trace": "t"})
    assert str(missing.value) == (
        "operation 'upload-file' needs credentials= for bearer (http bearer: a token)"
    )
