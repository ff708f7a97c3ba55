"""The other schemes, locations and bodies an OpenAPI 3.0 document can name, as the exact
requests made; text, binary and failed responses as results."""

from __future__ import annotations

import base64
from typing import Any

import httpx2
import pytest

from plainmcp import Client, Server
from plainmcp.openapi import from_openapi

pytestmark = pytest.mark.anyio

OK = {"200": {"description": "ok"}}

DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Misc", "version": "1"},
    "components": {
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "query", "name": "api_key"},
            "session": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "basic": {"type": "http", "scheme": "basic"},
        }
    },
    "paths": {
        "/notes": {
            "post": {
                "operationId": "add_note",
                "security": [{"key": [], "session": []}],
                "parameters": [
                    {"name": "lang", "in": "cookie", "schema": {"type": "string"}},
                    {"name": "tag", "in": "query", "schema": {"type": "array", "items": {}}},
                ],
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {"type": "object", "properties": {"text": {"type": "string"}}}
                        }
                    }
                },
                "responses": OK,
            }
        },
        "/logo": {"get": {"operationId": "logo", "security": [{"basic": []}], "responses": OK}},
    },
}


async def test_api_keys_cookies_arrays_and_a_form() -> None:
    seen: list[httpx2.Request] = []

    def api(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, text="noted", headers={"content-type": "text/plain"})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(api), base_url="https://n.example")
    credentials = {"key": "k1", "session": "s1"}
    host = Server("host")
    app = from_openapi(
        DOCUMENT, include="add_note", client=client, credentials=credentials, server=host
    )
    assert app is host
    async with Client.memory(app) as mcp:
        result = await mcp.call_tool(
            "add_note", {"lang": "en", "tag": ["a", 1], "body": {"text": "hi there"}}
        )
    assert (result.is_error, result.text) == (False, "noted")
    [request] = seen
    assert (request.method, str(request.url)) == (
        "POST",
        "https://n.example/notes?api_key=k1&tag=a&tag=1",
    )
    assert request.headers["cookie"] == "sid=s1; lang=en"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.read() == b"text=hi+there"


async def test_basic_auth_a_binary_answer_and_a_failed_connection() -> None:
    def api(request: httpx2.Request) -> httpx2.Response:
        if request.headers["authorization"] != "Basic " + base64.b64encode(b"ada:pw").decode():
            return httpx2.Response(401)
        return httpx2.Response(200, content=b"GIF89a", headers={"content-type": "image/gif"})

    def down(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    def served(handler: Any) -> Server:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler), base_url="http://a")
        return from_openapi(
            DOCUMENT, include="logo", client=client, credentials={"basic": "ada:pw"}
        )

    async with Client.memory(served(api)) as mcp:
        logo = await mcp.call_tool("logo", {})
    async with Client.memory(served(down)) as mcp:
        failed = await mcp.call_tool("logo", {})
    [block] = logo.content
    assert (logo.is_error, block.blob, block.mime_type) == (False, b"GIF89a", "image/gif")
    assert (failed.is_error, failed.text) == (
        True,
        "GET http://a/logo: the request failed: ConnectError: connection refused",
    )
