"""A Starlette app with a hand-written document, called in process (from_asgi(document=))."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from plainmcp import Client
from plainmcp.openapi import from_asgi

pytestmark = pytest.mark.anyio


async def echo(request: Request) -> JSONResponse:
    return JSONResponse(
        {
            "path": request.path_params["word"],
            "times": request.query_params.get("times"),
            "body": await request.json(),
            "key": request.headers.get("x-api-key"),
        }
    )


APP = Starlette(routes=[Route("/echo/{word}", echo, methods=["POST"])])

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "echo", "version": "1"},
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}}
    },
    "security": [{"key": []}],
    "paths": {
        "/echo/{word}": {
            "post": {
                "operationId": "echo",
                "parameters": [
                    {"name": "word", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "times", "in": "query", "schema": {"type": "integer"}},
                ],
                "requestBody": {"content": {"application/json": {"schema": {}}}},
                "responses": {"200": {"description": "What it was sent."}},
            }
        }
    },
}


async def test_a_starlette_app_is_called_in_process() -> None:
    app = from_asgi(APP, document=DOCUMENT, include="*", credentials={"key": "k"})
    async with Client.memory(app) as client:
        result = await client.call_tool(
            "echo", {"word": "a b", "times": 2, "body": {"x": [1, None]}}
        )
    assert result.is_error is False
    assert result.text == '{"path":"a b","times":"2","body":{"x":[1,null]},"key":"k"}'


def test_an_app_without_a_document_is_refused() -> None:
    with pytest.raises(TypeError) as refused:
        from_asgi(APP, include="*")
    assert str(refused.value) == "from_asgi: the app has no openapi(); pass document="
