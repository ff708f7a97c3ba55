"""Typed results: `CallToolResult.data` checked, unwrapped and hydrated the same at every
revision, `result_type=`, `raise_on_error=`, protocol errors as McpError; against plainmcp's
server in memory and the official SDK's server over stdio."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from plainmcp import Server, ToolError
from plainmcp.client import (
    CallToolResult,
    Client,
    McpError,
    ToolCallError,
    ToolInfo,
    plain,
)
from plainmcp.client.structured import OutputSchemas, is_wrapped, unwrap
from plainmcp.model.blocks import Text
from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, REVISIONS

pytestmark = pytest.mark.anyio

SDK_SERVER = Path(__file__).parent / "sdk_structured_server.py"
STRUCTURED = [v for v in HANDSHAKE_VERSIONS if REVISIONS[v].structured != "none"]
UNSTRUCTURED = [v for v in HANDSHAKE_VERSIONS if REVISIONS[v].structured == "none"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Box(BaseModel):
    label: str
    corners: list[Point]
    note: str | None = None


Profile = TypedDict("Profile", {"first-name": str, "class": int})

app = Server("typed")


@app.tool
def total(a: int, b: int) -> int:
    return a + b


@app.tool
def origin() -> Point:
    return Point(0, 0)


@app.tool
def box(label: str) -> Box:
    return Box(label=label, corners=[Point(0, 0), Point(2, 3)])


@app.tool
def corners() -> list[Point]:
    return [Point(1, 1), Point(4, 5)]


@app.tool
def profile() -> Profile:
    return {"first-name": "Ada", "class": 1}


@app.tool
def scores() -> dict[str, int]:
    return {"ada": 3, "bob": 1}


@app.tool
def broken() -> int:
    raise ToolError("no total today")


@app.tool
def words() -> str:
    return "just text"


@pytest.mark.parametrize("revision", STRUCTURED)
async def test_a_wrapped_value_comes_back_as_the_value(revision: str) -> None:
    async with Client.memory(app, protocol_version=revision) as client:
        result = await client.call_tool("total", {"a": 2, "b": 3})
    assert (result.structured, result.data, result.text) == ({"result": 5}, 5, "5")


@pytest.mark.parametrize("revision", STRUCTURED)
async def test_objects_are_hydrated_into_generated_dataclasses(revision: str) -> None:
    async with Client.memory(app, protocol_version=revision) as client:
        first = await client.call_tool("box", {"label": "b"})
        again = await client.call_tool("box", {"label": "b"})
        listed = await client.call_tool("corners")
    data = first.data
    # Untitled schemas (plainmcp's) are named for the tool, and a member's for its property.
    assert repr(data) == "Box(label='b', corners=[Corners(x=0, y=0), Corners(x=2, y=3)], note=None)"
    assert (data.label, data.corners[1].y) == ("b", 3)
    assert dataclasses.is_dataclass(data) and data == again.data
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.label = "c"
    assert plain(data) == first.structured
    assert repr(listed.data) == "[Corners(x=1, y=1), Corners(x=4, y=5)]"
    assert type(listed.data[0]) is type(data.corners[0])  # one class per schema


async def test_property_names_that_are_no_identifiers_become_attributes() -> None:
    async with Client.memory(app) as client:
        result = await client.call_tool("profile")
    assert (result.data.first_name, result.data.class_) == ("Ada", 1)
    assert plain(result.data) == {"first-name": "Ada", "class": 1}


async def test_a_map_stays_a_dict() -> None:
    async with Client.memory(app) as client:
        assert (await client.call_tool("scores")).data == {"ada": 3, "bob": 1}


@pytest.mark.parametrize("revision", UNSTRUCTURED)
async def test_revisions_without_structured_content_have_no_data(revision: str) -> None:
    async with Client.memory(app, protocol_version=revision) as client:
        result = await client.call_tool("total", {"a": 2, "b": 3})
    assert (result.structured, result.data, result.text) == (None, None, "5")


async def test_result_type_validates_into_the_callers_type() -> None:
    async with Client.memory(app) as client:
        box_result = await client.call_tool("box", {"label": "b"}, result_type=Box)
        listed = await client.call_tool("corners", result_type=list[Point])
        total_result = await client.call_tool("total", {"a": 1, "b": 1}, result_type=float)
    assert box_result.data == Box(label="b", corners=[Point(0, 0), Point(2, 3)])
    assert listed.data == [Point(1, 1), Point(4, 5)]
    assert (total_result.data, type(total_result.data)) == (2.0, float)


async def test_a_result_that_is_not_the_callers_type_raises() -> None:
    async with Client.memory(app) as client:
        with pytest.raises(McpError) as caught:
            await client.call_tool("corners", result_type=list[str])
    assert caught.value.code == -32603
    assert caught.value.message == (
        "Invalid response from server: the structured content of tool 'corners' is no"
        ' list[str]: 0: Input should be a valid string, got {"x":1,"y":1}; 1: Input should'
        ' be a valid string, got {"x":4,"y":5}'
    )
    assert caught.value.data == {
        "errors": [
            {"path": "0", "message": 'Input should be a valid string, got {"x":1,"y":1}'},
            {"path": "1", "message": 'Input should be a valid string, got {"x":4,"y":5}'},
        ]
    }


async def test_tool_errors_are_results_unless_asked_to_raise() -> None:
    async with Client.memory(app) as client:
        result = await client.call_tool("broken")
        with pytest.raises(ToolCallError) as caught:
            await client.call_tool("broken", raise_on_error=True)
        assert (await client.call_tool("words", raise_on_error=True)).text == "just text"
    assert (result.is_error, result.text, result.data) == (True, "no total today", None)
    assert str(caught.value) == "Tool 'broken' failed: no total today"
    assert caught.value.tool == "broken"
    assert caught.value.result == result


@pytest.mark.parametrize(
    ("protocol", "not_found"), [("2025-11-25", -32002), ("2026-07-28", -32602)]
)
async def test_protocol_errors_raise_with_code_and_data(protocol: str, not_found: int) -> None:
    # A missing resource is -32002 in the handshake revisions, -32602 at 2026-07-28.
    async with Client.memory(app, protocol=protocol) as client:
        with pytest.raises(McpError) as unknown:
            await client.call_tool("nope", raise_on_error=True)
        with pytest.raises(McpError) as missing:
            await client.read_resource("file:///nowhere")
    assert (unknown.value.code, unknown.value.message, unknown.value.data) == (
        -32602,
        "Unknown tool: nope",
        None,
    )
    assert (missing.value.code, missing.value.data) == (not_found, {"uri": "file:///nowhere"})


async def test_output_schemas_are_listed_once_and_kept() -> None:
    async with Client.memory(app) as client:
        methods: list[str] = []
        request = client.request

        async def counting(
            method: str, params: dict[str, Any] | None = None, **options: Any
        ) -> dict[str, Any]:
            methods.append(method)
            return await request(method, params, **options)

        client.request = counting  # type: ignore[method-assign]
        await client.call_tool("total", {"a": 1, "b": 2})
        await client.call_tool("origin")
        await client.call_tool("words")
    assert methods == ["tools/call", "tools/list", "tools/call", "tools/call"]


# --- the schema cache without a server ---------------------------------------------------------

WRAPPED_INT = {
    "type": "object",
    "properties": {"result": {"type": "integer"}},
    "required": ["result"],
}
OBJECT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


class Listing:
    """tools/list answers, one per fetch: a tool that changed between two listings."""

    def __init__(self, *schemas: dict[str, Any] | None) -> None:
        self.schemas = list(schemas)
        self.fetches = 0

    async def __call__(self) -> list[ToolInfo]:
        schema = self.schemas[min(self.fetches, len(self.schemas) - 1)]
        self.fetches += 1
        return [ToolInfo(name="t", input_schema={"type": "object"}, output_schema=schema)]


async def test_a_value_that_does_not_fit_a_fresh_schema_raises() -> None:
    schemas = OutputSchemas(Listing(OBJECT))
    with pytest.raises(McpError) as caught:
        await schemas.data("t", {"n": "one"})
    assert caught.value.message == (
        "Invalid response from server: the structured content of tool 't' does not match its"
        " output schema: n: 'one' is not of type 'integer'"
    )
    assert caught.value.data == {
        "errors": [{"path": "n", "message": "'one' is not of type 'integer'"}]
    }


async def test_a_stale_schema_is_fetched_again_before_a_value_is_refused() -> None:
    listing = Listing(WRAPPED_INT, OBJECT)
    schemas = OutputSchemas(listing)
    assert await schemas.data("t", {"result": 4}) == 4
    assert repr(await schemas.data("t", {"n": 1})) == "T(n=1)"
    assert listing.fetches == 2


async def test_no_schema_leaves_the_value_as_sent() -> None:
    schemas = OutputSchemas(Listing(None))
    assert await schemas.data("t", {"result": 4}) == {"result": 4}


def test_only_the_one_property_result_object_is_a_wrapper() -> None:
    assert is_wrapped(WRAPPED_INT)
    assert not is_wrapped(OBJECT)
    assert not is_wrapped({**WRAPPED_INT, "required": []})
    two = {"type": "object", "properties": {"result": {}, "more": {}}, "required": ["result"]}
    assert not is_wrapped(two)
    assert unwrap({"result": [1]}, WRAPPED_INT) == ([1], {"type": "integer"})
    assert unwrap({"result": 1, "x": 2}, WRAPPED_INT) == ({"result": 1, "x": 2}, WRAPPED_INT)


def test_results_compare_without_data() -> None:
    result = CallToolResult(content=[Text("5")], structured={"result": 5}, data=5)
    assert result == CallToolResult(content=[Text("5")], structured={"result": 5})


# --- the official SDK's server -----------------------------------------------------------------


@pytest.mark.parametrize("revision", HANDSHAKE_VERSIONS)
async def test_sdk_server_structured_results_are_typed_alike(revision: str) -> None:
    """The SDK sends structuredContent at every revision (it does not downgrade), wrapping
    non-object values in {"result": ...} with a titled schema, and refers to nested models
    through $defs."""
    async with Client.stdio(sys.executable, str(SDK_SERVER), protocol_version=revision) as client:
        assert client.protocol_version == revision
        added = await client.call_tool("add", {"a": 2, "b": 3})
        point = await client.call_tool("point", {"x": 1, "y": 2})
        path = await client.call_tool("path", {"name": "p"})
        listed = await client.call_tool("corners")
        typed = await client.call_tool("corners", result_type=list[Point])
    assert (added.structured, added.data) == ({"result": 5}, 5)
    assert (repr(point.data), point.data.x, point.data.y) == ("Point(x=1, y=2)", 1, 2)
    assert repr(path.data) == (
        "Path(name='p', points=[Point(x=0, y=0), Point(x=1, y=2)], closed=None)"
    )
    assert plain(path.data) == {
        "name": "p",
        "points": [{"x": 0, "y": 0}, {"x": 1, "y": 2}],
        "closed": None,
    }
    assert listed.structured == {"result": [{"x": 0, "y": 0}, {"x": 3, "y": 4}]}
    assert repr(listed.data) == "[Point(x=0, y=0), Point(x=3, y=4)]"
    assert typed.data == [Point(0, 0), Point(3, 4)]
