"""The return-value table of docs/results.md, a test per row, through the real pipeline.

Each row runs `tools.make_tool(fn)` + `tools.call_tool(...)` + `render.call_result(...)` and
asserts the exact CallToolResult a client receives; every result is also validated against the
official schema of its revision. `test_docs_table_matches` checks that docs/results.md shows
exactly these results, so the page cannot drift from the code.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import io
import json
import math
import re
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import matplotlib
import orjson
import pytest
from matplotlib.figure import Figure
from PIL import Image as PILImage
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from plainmcp import Audio, Image, ResourceLink, ResultOptions, Text, ToolError, ToolResult
from plainmcp.model.blocks import content_uri
from plainmcp.tools import Tool, call_tool, make_tool
from plainmcp.wire import definitions, render
from plainmcp.wire.revisions import REVISIONS
from tests.mcp_schemas import validate_definition
from tests.test_mime import pdf_bytes, png_bytes, wav_bytes

matplotlib.use("Agg")  # no display, no GUI toolkit: figures are only ever drawn to PNG here


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


pytestmark = pytest.mark.anyio

LATEST = "2025-11-25"
DEFAULT = ResultOptions()
DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"

PNG = png_bytes()
WAV = wav_bytes()
PDF = pdf_bytes()
PNG64 = base64.b64encode(PNG).decode()
WAV64 = base64.b64encode(WAV).decode()


@pytest.fixture(autouse=True)
def paris(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The server's local time zone is Paris (UTC+1 in January) for every test here."""
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def wire(rendered: dict[str, Any], revision: str) -> dict[str, Any]:
    """What the client parses (big integers kept exact), validated against its revision."""
    parsed: dict[str, Any] = json.loads(orjson.dumps(rendered))
    validate_definition(parsed, revision, "CallToolResult")
    return parsed


async def run(
    fn: Callable[..., Any],
    *,
    revision: str = LATEST,
    options: ResultOptions = DEFAULT,
    arguments: dict[str, Any] | None = None,
    mask_errors: bool = False,
    **tool_settings: Any,
) -> dict[str, Any]:
    tool = make_tool(fn, **tool_settings)
    result = await call_tool(tool, arguments or {}, options, mask_errors=mask_errors)
    rendered = render.call_result(result, REVISIONS[revision], options, tool.output_schema)
    return wire(rendered, revision)


def definition(tool: Tool, revision: str, options: ResultOptions = DEFAULT) -> dict[str, Any]:
    out = definitions.tool(tool, REVISIONS[revision], options)
    validate_definition(out, revision, "Tool")
    return out


def text(value: str, *, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def structured(value_text: str, value: Any) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": value_text}],
        "structuredContent": value,
        "isError": False,
    }


# --- the values of the table ----------------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: int


class User(BaseModel):
    user_name: str = Field(alias="userName")
    admin: bool = False


class Movie(TypedDict):  # typing_extensions.TypedDict: pydantic needs it on Python 3.11
    title: str
    year: int


class Color(enum.Enum):
    RED = "red"


REPORT = ResourceLink(
    uri="file:///srv/reports/q1.pdf", name="q1.pdf", mime_type="application/pdf", size=48213
)
REPORT_WIRE = {
    "type": "resource_link",
    "uri": "file:///srv/reports/q1.pdf",
    "name": "q1.pdf",
    "mimeType": "application/pdf",
    "size": 48213,
}
IMAGE_WIRE = {"type": "image", "data": PNG64, "mimeType": "image/png"}
AUDIO_WIRE = {"type": "audio", "data": WAV64, "mimeType": "audio/wav"}
PDF_WIRE = {
    "type": "resource",
    "resource": {
        "uri": content_uri(PDF),
        "mimeType": "application/pdf",
        "blob": base64.b64encode(PDF).decode(),
    },
}


@dataclasses.dataclass
class Chart:
    caption: str
    png: bytes


DRAWN = "…"
"""The data of an image block drawn by PIL or matplotlib: their PNG encoders differ between
versions, so the table shows this in its place and the row checks the picture instead."""


def pil_image() -> PILImage.Image:
    return PILImage.new("RGB", (2, 1), "red")


def figure() -> Figure:
    fig = Figure(figsize=(1, 1), dpi=20)
    fig.subplots().plot([1, 2, 3])
    return fig


@dataclasses.dataclass(frozen=True)
class Row:
    """One row of the table: a return value, what a 2025-11-25 client gets for it, and what it
    gets when the tool is annotated with `annotation` (None: the annotation gives no schema, so
    the result is the same). `drawn`: the (width, height) of the PNG of each image block whose
    data is DRAWN."""

    value: Callable[[], Any]
    expected: dict[str, Any]
    annotation: Any = None
    expected_structured: dict[str, Any] | None = None
    name: str = "tool"
    drawn: tuple[int, int] | None = None


def _error(name: str, message: str) -> dict[str, Any]:
    return text(f"Tool '{name}' returned a value that {message}", error=True)


ROWS: dict[str, Row] = {
    "`str`": Row(lambda: "Sunny, 21 °C", text("Sunny, 21 °C"), str),
    "`None`": Row(lambda: None, text("null"), None),
    "`bool`": Row(lambda: True, text("true"), bool, structured("true", {"result": True})),
    "`int`": Row(lambda: 5, text("5"), int, structured("5", {"result": 5})),
    "`int` beyond 64 bits": Row(
        lambda: 2**70,
        text("1180591620717411303424"),
        int,
        structured("1180591620717411303424", {"result": 2**70}),
    ),
    "`float`": Row(lambda: 0.1, text("0.1"), float, structured("0.1", {"result": 0.1})),
    "`float` NaN or ±Infinity": Row(
        lambda: math.nan,
        text("null"),
        float,
        _error(
            "measure",
            "does not match its output schema:\n"
            "- (return value): Input should be a valid number, got null",
        ),
        name="measure",
    ),
    "`dict`": Row(
        lambda: {"sunny": 3, "rainy": 4},
        text('{"sunny":3,"rainy":4}'),
        dict[str, int],
        structured('{"sunny":3,"rainy":4}', {"sunny": 3, "rainy": 4}),
    ),
    "`list`": Row(
        lambda: [1, 2, 3], text("[1,2,3]"), list[int], structured("[1,2,3]", {"result": [1, 2, 3]})
    ),
    "`tuple`": Row(
        lambda: (1, "a"),
        text('[1,"a"]'),
        tuple[int, str],
        structured('[1,"a"]', {"result": [1, "a"]}),
    ),
    "`set`, `frozenset`": Row(
        lambda: {3, 1, 2}, text("[1,2,3]"), set[int], structured("[1,2,3]", {"result": [1, 2, 3]})
    ),
    "an iterator, a generator": Row(
        lambda: iter([1, 2, 3]),
        structured("[1,2,3]", {"result": [1, 2, 3]}),
        Iterator[int],
        structured("[1,2,3]", {"result": [1, 2, 3]}),
    ),
    "dataclass": Row(
        lambda: Point(1, 2),
        text('{"x":1,"y":2}'),
        Point,
        structured('{"x":1,"y":2}', {"x": 1, "y": 2}),
    ),
    "pydantic model": Row(
        lambda: User(userName="ann"),
        text('{"userName":"ann","admin":false}'),
        User,
        structured('{"userName":"ann","admin":false}', {"userName": "ann", "admin": False}),
    ),
    "`TypedDict`": Row(
        lambda: Movie(title="Up", year=2009),
        text('{"title":"Up","year":2009}'),
        Movie,
        structured('{"title":"Up","year":2009}', {"title": "Up", "year": 2009}),
    ),
    "`datetime`": Row(
        lambda: datetime(2025, 1, 2, 9, 30, tzinfo=UTC),
        text("2025-01-02T09:30:00+00:00"),
        datetime,
        structured("2025-01-02T09:30:00+00:00", {"result": "2025-01-02T09:30:00+00:00"}),
    ),
    "naive `datetime` (server in Paris)": Row(
        lambda: datetime(2025, 1, 2, 9, 30),
        text("2025-01-02T09:30:00+01:00"),
        datetime,
        structured("2025-01-02T09:30:00+01:00", {"result": "2025-01-02T09:30:00+01:00"}),
    ),
    "`date`": Row(
        lambda: date(2025, 1, 2),
        text("2025-01-02"),
        date,
        structured("2025-01-02", {"result": "2025-01-02"}),
    ),
    "`Decimal`": Row(
        lambda: Decimal("19.90"), text("19.90"), Decimal, structured("19.90", {"result": "19.90"})
    ),
    "`UUID`": Row(
        lambda: uuid.UUID("12345678-1234-5678-1234-567812345678"),
        text("12345678-1234-5678-1234-567812345678"),
        uuid.UUID,
        structured(
            "12345678-1234-5678-1234-567812345678",
            {"result": "12345678-1234-5678-1234-567812345678"},
        ),
    ),
    "`Enum`": Row(lambda: Color.RED, text("red"), Color, structured("red", {"result": "red"})),
    "`Path`": Row(lambda: Path("/srv/reports/q1.pdf"), text("/srv/reports/q1.pdf"), Path),
    "`bytes`: an image": Row(lambda: PNG, {"content": [IMAGE_WIRE], "isError": False}, bytes),
    "`bytes`: audio": Row(lambda: WAV, {"content": [AUDIO_WIRE], "isError": False}, bytes),
    "`bytes`: anything else": Row(lambda: PDF, {"content": [PDF_WIRE], "isError": False}, bytes),
    "a content block": Row(
        lambda: REPORT, {"content": [REPORT_WIRE], "isError": False}, ResourceLink
    ),
    "a list of blocks": Row(
        lambda: [Text("Q1 sales"), Image(PNG)],
        {"content": [{"type": "text", "text": "Q1 sales"}, IMAGE_WIRE], "isError": False},
        list,
    ),
    "a mixed list": Row(
        lambda: ["Chart for EU", {"total": 3}, [Image(PNG)]],
        {
            "content": [
                {"type": "text", "text": "Chart for EU"},
                {"type": "text", "text": '{"total":3}'},
                IMAGE_WIRE,
            ],
            "isError": False,
        },
        list,
    ),
    "a dict holding blocks": Row(
        lambda: {"caption": "EU sales", "chart": Image(PNG)},
        {
            "content": [
                {"type": "text", "text": '{"caption":"EU sales","chart":"<image block 2>"}'},
                IMAGE_WIRE,
            ],
            "isError": False,
        },
        dict,
    ),
    "bytes in a list: an image": Row(
        lambda: ["EU sales", PNG],
        {"content": [{"type": "text", "text": "EU sales"}, IMAGE_WIRE], "isError": False},
        list,
    ),
    "bytes in a list: audio": Row(
        lambda: ["Your clip", WAV],
        {"content": [{"type": "text", "text": "Your clip"}, AUDIO_WIRE], "isError": False},
        list,
    ),
    "bytes in a list: anything else": Row(
        lambda: ["Q1 report", PDF],
        {"content": [{"type": "text", "text": "Q1 report"}, PDF_WIRE], "isError": False},
        list,
    ),
    "bytes in a dict": Row(
        lambda: {"caption": "EU sales", "chart": PNG},
        {
            "content": [
                {"type": "text", "text": '{"caption":"EU sales","chart":"<image block 2>"}'},
                IMAGE_WIRE,
            ],
            "isError": False,
        },
        dict[str, Any],
        {
            "content": [
                {"type": "text", "text": '{"caption":"EU sales","chart":"<image block 2>"}'},
                IMAGE_WIRE,
            ],
            "structuredContent": {"caption": "EU sales", "chart": "<image block 2>"},
            "isError": False,
        },
    ),
    "bytes in a dict: audio, anything else": Row(
        lambda: {"clip": WAV, "report": PDF},
        {
            "content": [
                {
                    "type": "text",
                    "text": '{"clip":"<audio block 2>","report":"<resource block 3>"}',
                },
                AUDIO_WIRE,
                PDF_WIRE,
            ],
            "isError": False,
        },
        dict,
    ),
    "bytes in a dataclass": Row(
        lambda: Chart(caption="EU sales", png=PNG),
        {
            "content": [
                {"type": "text", "text": '{"caption":"EU sales","png":"<image block 2>"}'},
                IMAGE_WIRE,
            ],
            "isError": False,
        },
        Chart,
        {
            "content": [
                {"type": "text", "text": '{"caption":"EU sales","png":"<image block 2>"}'},
                IMAGE_WIRE,
            ],
            "structuredContent": {"caption": "EU sales", "png": "<image block 2>"},
            "isError": False,
        },
    ),
    "a PIL image": Row(
        pil_image,
        {"content": [{"type": "image", "data": DRAWN, "mimeType": "image/png"}], "isError": False},
        PILImage.Image,
        drawn=(2, 1),
    ),
    "a matplotlib `Figure`": Row(
        figure,
        {"content": [{"type": "image", "data": DRAWN, "mimeType": "image/png"}], "isError": False},
        Figure,
        drawn=(20, 20),
    ),
    "a figure in a list": Row(
        lambda: ["Sales by month", figure()],
        {
            "content": [
                {"type": "text", "text": "Sales by month"},
                {"type": "image", "data": DRAWN, "mimeType": "image/png"},
            ],
            "isError": False,
        },
        list,
        drawn=(20, 20),
    ),
    "`ToolResult`": Row(
        lambda: ToolResult("Found 2 files", structured={"count": 2}, meta={"source": "cache"}),
        {
            "content": [{"type": "text", "text": "Found 2 files"}],
            "structuredContent": {"count": 2},
            "isError": False,
            "_meta": {"source": "cache"},
        },
        ToolResult,
    ),
    "an unserializable object": Row(
        lambda: object(),
        _error(
            "lookup",
            "cannot be sent: a value of type object cannot be converted to JSON; return a str,"
            " JSON-able data (dict, list, dataclass, pydantic model), bytes, or a content block"
            " such as Image(data=png_bytes) or File(data=..., mime_type=...)",
        ),
        name="lookup",
    ),
}


def undrawn(result: dict[str, Any], size: tuple[int, int] | None) -> dict[str, Any]:
    """`result` with the data of its PNG image blocks replaced by DRAWN, once each is checked
    to be a PNG of `size` (width, height); unchanged when `size` is None."""
    if size is None:
        return result
    blocks = []
    for block in result["content"]:
        if block["type"] == "image" and block["mimeType"] == "image/png":
            with PILImage.open(io.BytesIO(base64.b64decode(block["data"]))) as picture:
                assert (picture.format, picture.size) == ("PNG", size)
            block = {**block, "data": DRAWN}
        blocks.append(block)
    return {**result, "content": blocks}


def _fn(row: Row, annotated: bool) -> Callable[..., Any]:
    def fn() -> Any:
        return row.value()

    fn.__annotations__ = {"return": row.annotation} if annotated else {}
    return fn


@pytest.mark.parametrize("label", list(ROWS))
async def test_row(label: str) -> None:
    row = ROWS[label]
    out = await run(_fn(row, annotated=False), name=row.name)
    assert undrawn(out, row.drawn) == row.expected


@pytest.mark.parametrize("label", list(ROWS))
async def test_row_with_annotation(label: str) -> None:
    """The structured column: the annotated tool gets an output schema, or gives the same result."""
    row = ROWS[label]
    fn = _fn(row, annotated=True)
    tool = make_tool(fn, name=row.name)
    out = undrawn(await run(fn, name=row.name), row.drawn)
    if row.expected_structured is None:
        assert tool.output_schema is None
        assert out == row.expected
    else:
        assert tool.output_schema is not None
        assert out == row.expected_structured


@pytest.mark.parametrize("revision", list(REVISIONS))
@pytest.mark.parametrize("label", list(ROWS))
async def test_every_row_is_valid_on_every_revision(label: str, revision: str) -> None:
    row = ROWS[label]
    for annotated in (False, True):
        fn = _fn(row, annotated)
        tool = make_tool(fn, name=row.name)
        await run(fn, name=row.name, revision=revision)
        definition(tool, revision)


def _doc_rows() -> dict[str, list[Any]]:
    """The mapping table of docs/results.md: label -> the JSON results shown in its row."""
    section = DOCS.read_text(encoding="utf-8").split("## The mapping", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[Any]] = {}
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith(("| Return", "|---")):
            continue
        label = line.split(" | ", 1)[0][2:].strip()
        rows[label] = [
            json.loads(m) for m in re.findall(r"`(\{\"content\".*?\})`(?= |$|<br>|;)", line)
        ]
    return rows


def test_docs_table_matches() -> None:
    shown = _doc_rows()
    assert list(shown) == list(ROWS), "docs/results.md rows differ from ROWS (names or order)"
    for label, row in ROWS.items():
        expected = [row.expected]
        if row.expected_structured is not None:
            expected.append(row.expected_structured)
        assert shown[label] == expected, f"docs/results.md row {label!r} is stale"


# --- per revision ---------------------------------------------------------------------------


def five() -> int:
    return 5


async def test_structured_int_on_every_revision() -> None:
    assert await run(five, revision="2024-11-05") == text("5")
    assert await run(five, revision="2025-03-26") == text("5")
    assert await run(five, revision="2025-06-18") == structured("5", {"result": 5})
    assert await run(five, revision="2025-11-25") == structured("5", {"result": 5})
    assert await run(five, revision="2026-07-28") == {
        **structured("5", 5),
        "resultType": "complete",
    }


async def test_output_schema_per_revision() -> None:
    tool = make_tool(five)
    wrapped = {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert "outputSchema" not in definition(tool, "2024-11-05")
    assert "outputSchema" not in definition(tool, "2025-03-26")
    assert definition(tool, "2025-06-18")["outputSchema"] == wrapped
    assert definition(tool, "2025-11-25")["outputSchema"] == wrapped
    assert definition(tool, "2026-07-28")["outputSchema"] == {"type": "integer"}


async def test_object_values_are_not_wrapped() -> None:
    def point() -> Point:
        return Point(1, 2)

    for revision in ("2025-06-18", "2025-11-25", "2026-07-28"):
        out = await run(point, revision=revision)
        assert out["structuredContent"] == {"x": 1, "y": 2}
    schema = definition(make_tool(point), "2025-06-18")["outputSchema"]
    assert schema["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer"}}


async def test_big_integer_is_exact_on_the_wire() -> None:
    def big() -> int:
        return 2**70

    tool = make_tool(big)
    result = await call_tool(tool, {}, DEFAULT)
    raw = orjson.dumps(
        render.call_result(result, REVISIONS["2026-07-28"], DEFAULT, tool.output_schema)
    )
    assert b'"structuredContent":1180591620717411303424' in raw


async def test_audio_for_2024_11_05_is_an_embedded_blob() -> None:
    assert await run(lambda: WAV, name="clip", revision="2024-11-05") == {
        "content": [
            {
                "type": "resource",
                "resource": {"uri": content_uri(WAV), "mimeType": "audio/wav", "blob": WAV64},
            }
        ],
        "isError": False,
    }


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26"])
async def test_resource_link_before_2025_06_18_is_text(revision: str) -> None:
    assert await run(lambda: REPORT, name="report", revision=revision) == text(
        "Resource link: file:///srv/reports/q1.pdf\nname: q1.pdf\ntype: application/pdf"
        "\nsize: 48213 bytes"
    )


async def test_content_is_never_empty() -> None:
    assert await run(lambda: [], name="empty") == text("[]")
    assert await run(lambda: "", name="empty") == text("")
    assert await run(lambda: ToolResult(), name="empty") == text("")
    assert await run(lambda: ToolResult(structured={"a": 1}), name="only") == structured(
        '{"a":1}', {"a": 1}
    )


async def test_structured_tool_returning_blocks_is_an_error() -> None:
    def chart() -> list[int]:
        return [Image(PNG)]  # type: ignore[list-item]

    assert await run(chart) == text(
        "Tool 'chart' declares structured output but returned content blocks;"
        " return ToolResult(content=..., structured=...) to send both",
        error=True,
    )


async def test_tool_result_with_schema_is_validated() -> None:
    def count() -> ToolResult:
        return ToolResult("two", structured={"n": "two"})

    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert await run(count, output_schema=schema) == text(
        "Tool 'count' returned a value that does not match its output schema:\n"
        "- n: 'two' is not of type 'integer'",
        error=True,
    )

    def nothing() -> ToolResult:
        return ToolResult("no value")

    assert await run(nothing, output_schema=schema) == text(
        "Tool 'nothing' declares an output schema but returned no structured value", error=True
    )

    def failed() -> ToolResult:
        return ToolResult("quota exceeded", is_error=True)

    assert await run(failed, output_schema=schema) == text("quota exceeded", error=True)


# --- errors (docs/results.md, "Errors") -----------------------------------------------------


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        raise ToolError("Cannot divide by zero")
    return a / b


def average(values: list[float]) -> float:
    return sum(values) / len(values)


async def test_tool_error() -> None:
    out = await run(divide, arguments={"a": 1, "b": 0})
    assert out == text("Cannot divide by zero", error=True)
    _shown_in_docs(out)


async def test_invalid_arguments() -> None:
    out = await run(divide, arguments={"a": "one"})
    assert out == text(
        "Invalid arguments for tool 'divide':\n"
        '- a: Input should be a valid number, got "one"\n'
        "- b: Field required",
        error=True,
    )
    _shown_in_docs(out)


async def test_unexpected_exception() -> None:
    out = await run(average, arguments={"values": []})
    assert out == text("Tool 'average' failed: ZeroDivisionError: division by zero", error=True)
    _shown_in_docs(out)


async def test_masked_exception() -> None:
    out = await run(average, arguments={"values": []}, mask_errors=True)
    message = out["content"][0]["text"]
    assert re.fullmatch(
        r"Tool 'average' failed unexpectedly \(error id [0-9a-f]{12}\);"
        r" the details are in the server log\.",
        message,
    )
    shown = re.sub(r"[0-9a-f]{12}", "9f86d081884c", message)
    _shown_in_docs(text(shown, error=True))


async def test_structured_mismatch() -> None:
    def weather() -> Movie:
        return {"title": "Up", "year": "last year"}  # type: ignore[typeddict-item]

    out = await run(weather)
    assert out == text(
        "Tool 'weather' returned a value that does not match its output schema:\n"
        '- year: Input should be a valid integer, got "last year"',
        error=True,
    )


def _shown_in_docs(result: dict[str, Any]) -> None:
    compact = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    assert compact in DOCS.read_text(encoding="utf-8"), f"docs/results.md does not show {compact}"


# --- ResultOptions --------------------------------------------------------------------------


def weather_dict() -> dict[str, int]:
    return {"sunny": 3, "rainy": 4}


async def test_text_fallback_off() -> None:
    off = ResultOptions(text_fallback=False)
    elsewhere = "The result is in structuredContent."
    assert await run(five, options=off) == structured(elsewhere, {"result": 5})
    assert await run(weather_dict, options=off) == structured(elsewhere, {"sunny": 3, "rainy": 4})
    assert await run(five, options=off, revision="2026-07-28") == {
        **structured(elsewhere, 5),
        "resultType": "complete",
    }
    # Revisions that cannot carry the value get it as JSON text regardless.
    assert await run(five, options=off, revision="2025-03-26") == text("5")
    assert await run(weather_dict, options=off, revision="2024-11-05") == text(
        '{"sunny":3,"rainy":4}'
    )
    strict_off = ResultOptions(text_fallback=False, compat="strict")
    assert await run(five, options=strict_off, revision="2025-06-18") == text("5")
    # Plain values without a schema are unaffected.
    assert await run(lambda: [1], name="plain", options=off) == text("[1]")


async def test_json_indent() -> None:
    two = ResultOptions(json_indent=2)
    indented = '{\n  "sunny": 3,\n  "rainy": 4\n}'
    assert await run(lambda: {"sunny": 3, "rainy": 4}, name="plain", options=two) == text(indented)
    assert await run(weather_dict, options=two) == structured(indented, {"sunny": 3, "rainy": 4})
    four = ResultOptions(json_indent=4)
    assert await run(lambda: {"a": [1]}, name="plain", options=four) == text(
        '{\n    "a": [\n        1\n    ]\n}'
    )
    with pytest.raises(ValueError, match="json_indent must be None or >= 0"):
        ResultOptions(json_indent=-1)


async def test_non_finite() -> None:
    value = lambda: [1.5, math.nan, -math.inf]  # noqa: E731
    assert await run(value, name="m") == text("[1.5,null,null]")
    assert await run(value, name="m", options=ResultOptions(non_finite="string")) == text(
        '[1.5,"NaN","-Infinity"]'
    )
    assert await run(value, name="m", options=ResultOptions(non_finite="error")) == text(
        "Tool 'm' returned a value that cannot be sent: the result contains nan, which JSON"
        " cannot carry (set ResultOptions.non_finite to 'null' or 'string' to allow it)",
        error=True,
    )


async def test_datetimes() -> None:
    naive = lambda: datetime(2025, 1, 2, 9, 30)  # noqa: E731
    assert await run(naive, name="now") == text("2025-01-02T09:30:00+01:00")
    utc = ResultOptions(datetimes="utc")
    assert await run(naive, name="now", options=utc) == text("2025-01-02T08:30:00+00:00")
    assert await run(lambda: {"at": datetime(2025, 7, 1, 12, 0)}, name="now", options=utc) == text(
        '{"at":"2025-07-01T10:00:00+00:00"}'
    )


async def test_bytes_as() -> None:
    blob = {
        "content": [
            {
                "type": "resource",
                "resource": {"uri": content_uri(PNG), "mimeType": "image/png", "blob": PNG64},
            }
        ],
        "isError": False,
    }
    assert await run(lambda: PNG, name="b") == {"content": [IMAGE_WIRE], "isError": False}
    assert await run(lambda: PNG, name="b", options=ResultOptions(bytes_as="blob")) == blob
    assert await run(lambda: PNG, name="b", options=ResultOptions(bytes_as="base64_text")) == text(
        PNG64
    )
    unknown = await run(lambda: b"\x00\x01", name="b", options=ResultOptions(bytes_as="blob"))
    assert unknown["content"][0]["resource"]["mimeType"] == "application/octet-stream"


async def test_compat_audio_at_2024_11_05() -> None:
    strict = ResultOptions(compat="strict")
    clip = lambda: ["Your clip", Audio(WAV)]  # noqa: E731
    assert await run(clip, name="clip", revision="2024-11-05") == {
        "content": [
            {"type": "text", "text": "Your clip"},
            {
                "type": "resource",
                "resource": {"uri": content_uri(WAV), "mimeType": "audio/wav", "blob": WAV64},
            },
        ],
        "isError": False,
    }
    assert await run(clip, name="clip", revision="2024-11-05", options=strict) == text(
        "This result holds audio content, which protocol revision 2024-11-05 cannot carry;"
        " upgrade the client to see it.",
        error=True,
    )
    # 2025-03-26 has audio: strict changes nothing there.
    assert await run(clip, name="clip", revision="2025-03-26", options=strict) == {
        "content": [{"type": "text", "text": "Your clip"}, AUDIO_WIRE],
        "isError": False,
    }


async def test_compat_resource_link_at_2025_03_26() -> None:
    strict = ResultOptions(compat="strict")
    assert await run(lambda: REPORT, name="report", revision="2025-03-26", options=strict) == text(
        "This result holds resource_link content, which protocol revision 2025-03-26 cannot"
        " carry; upgrade the client to see it.",
        error=True,
    )
    assert await run(lambda: REPORT, name="report", revision="2025-06-18", options=strict) == {
        "content": [REPORT_WIRE],
        "isError": False,
    }


async def test_compat_structured_at_2025_06_18() -> None:
    strict = ResultOptions(compat="strict")
    tool = make_tool(five)
    assert definition(tool, "2025-06-18")["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    }
    assert await run(five, revision="2025-06-18") == structured("5", {"result": 5})
    assert "outputSchema" not in definition(tool, "2025-06-18", strict)
    assert await run(five, revision="2025-06-18", options=strict) == text("5")
    # Object values and the 2026 wire are the same under both policies.
    assert definition(make_tool(weather_dict), "2025-06-18", strict)["outputSchema"] == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }
    assert await run(five, revision="2026-07-28", options=strict) == {
        **structured("5", 5),
        "resultType": "complete",
    }


# --- lifted blocks, bugs ------------------------------------------------------------------------


async def test_lifted_block_references_name_their_position() -> None:
    # A list with a block directly in it is mixed: each item maps on its own, in order.
    out = await run(lambda: ["EU sales", Image(PNG), {"clips": [Audio(WAV)]}], name="t")
    assert out == {
        "content": [
            {"type": "text", "text": "EU sales"},
            IMAGE_WIRE,
            {"type": "text", "text": '{"clips":["<audio block 4>"]}'},
            AUDIO_WIRE,
        ],
        "isError": False,
    }
    # Blocks only inside dicts: the whole list is one JSON value with references.
    out = await run(lambda: [{"a": Text("x")}], name="t")
    assert out == {
        "content": [
            {"type": "text", "text": '[{"a":"<text block 2>"}]'},
            {"type": "text", "text": "x"},
        ],
        "isError": False,
    }


async def test_indented_fallback_keeps_big_integers() -> None:
    def big() -> int:
        return 2**70

    out = await run(big, options=ResultOptions(json_indent=2))
    assert out == structured("1180591620717411303424", {"result": 2**70})


# --- bytes and image objects inside values (docs/results.md, notes on the table) --------------


class Photo(BaseModel):
    title: str
    jpeg: bytes


@dataclasses.dataclass
class Box:
    content: Any


async def test_nested_bytes_follow_bytes_as() -> None:
    blob = ResultOptions(bytes_as="blob")
    png_blob = {
        "type": "resource",
        "resource": {"uri": content_uri(PNG), "mimeType": "image/png", "blob": PNG64},
    }
    assert await run(lambda: ["EU sales", PNG], name="b", options=blob) == {
        "content": [{"type": "text", "text": "EU sales"}, png_blob],
        "isError": False,
    }
    assert await run(lambda: {"chart": PNG}, name="b", options=blob) == {
        "content": [{"type": "text", "text": '{"chart":"<resource block 2>"}'}, png_blob],
        "isError": False,
    }
    # base64_text: the base64 stays in place, nothing is lifted out.
    as_text = ResultOptions(bytes_as="base64_text")
    assert await run(lambda: ["EU sales", PNG], name="b", options=as_text) == text(
        f'["EU sales","{PNG64}"]'
    )
    assert await run(lambda: {"chart": PNG}, name="b", options=as_text) == text(
        f'{{"chart":"{PNG64}"}}'
    )
    # ...but image objects and blocks are not bytes: they still become blocks.
    assert await run(lambda: ["EU sales", Image(PNG), PNG], name="b", options=as_text) == {
        "content": [
            {"type": "text", "text": "EU sales"},
            IMAGE_WIRE,
            {"type": "text", "text": PNG64},
        ],
        "isError": False,
    }


async def test_every_kind_of_bytes_and_container_is_lifted() -> None:
    # bytearray and memoryview, in a model, in a dataclass in a dict, and on the slow encoding
    # path (an integer wider than 64 bits sends the whole value through the complete walk).
    out = await run(
        lambda: {
            "big": 2**70,
            "photo": Photo(title="cat", jpeg=bytearray(PNG)),
            "box": Box(memoryview(WAV)),
            "same": [PNG, PNG],
        },
        name="t",
    )
    assert out == {
        "content": [
            {
                "type": "text",
                "text": '{"big":1180591620717411303424,"photo":{"title":"cat",'
                '"jpeg":"<image block 2>"},"box":{"content":"<audio block 3>"},'
                '"same":["<image block 4>","<image block 5>"]}',
            },
            IMAGE_WIRE,
            AUDIO_WIRE,
            IMAGE_WIRE,
            IMAGE_WIRE,
        ],
        "isError": False,
    }


async def test_media_after_rows_of_one_class_is_found() -> None:
    """Rows are skipped by their class (cached); a later item of another class still counts,
    and so does a list subclass holding media."""

    class Pages(list[Any]):
        pass

    out = await run(lambda: [Point(1, 2), Point(3, 4), Pages([PNG])], name="rows")
    assert out == {
        "content": [
            {"type": "text", "text": '{"x":1,"y":2}'},
            {"type": "text", "text": '{"x":3,"y":4}'},
            IMAGE_WIRE,
        ],
        "isError": False,
    }
    assert await run(lambda: [Point(1, 2), Point(3, 4)], name="rows") == text(
        '[{"x":1,"y":2},{"x":3,"y":4}]'
    )


async def test_a_block_in_a_dataclass_in_a_dict_is_lifted() -> None:
    # Once an isError whose reason was empty: the lifting walk did not enter dataclasses.
    out = await run(lambda: {"r": Box(Image(PNG))}, name="t")
    assert out == {
        "content": [{"type": "text", "text": '{"r":{"content":"<image block 2>"}}'}, IMAGE_WIRE],
        "isError": False,
    }


async def test_image_objects_in_lists_and_dicts() -> None:
    out = await run(
        lambda: ["Two charts", pil_image(), {"detail": figure(), "n": 3}], name="charts"
    )
    assert out["content"][0] == {"type": "text", "text": "Two charts"}
    assert [b["type"] for b in out["content"]] == ["text", "image", "text", "image"]
    assert out["content"][2] == {"type": "text", "text": '{"detail":"<image block 4>","n":3}'}
    with PILImage.open(io.BytesIO(base64.b64decode(out["content"][1]["data"]))) as first:
        assert first.size == (2, 1)
    with PILImage.open(io.BytesIO(base64.b64decode(out["content"][3]["data"]))) as second:
        assert second.size == (20, 20)
    # A pyplot-style Axes (what seaborn returns) is drawn as its figure.
    fig = figure()
    assert (
        undrawn(await run(lambda: fig.axes[0], name="ax"), (20, 20))
        == ROWS["a matplotlib `Figure`"].expected
    )


async def test_an_image_object_that_cannot_be_drawn_is_an_error() -> None:
    class Broken:
        mode = "RGB"
        size = (1, 1)

        def save(self, fp: Any, format: str | None = None) -> None:
            raise OSError("no space left on device")

    Broken.__module__ = "PIL.Image"
    expected = text(
        "Tool 'draw' returned a value that cannot be sent: cannot draw this Broken as a PNG:"
        " no space left on device",
        error=True,
    )
    assert await run(lambda: Broken(), name="draw") == expected
    assert await run(lambda: {"chart": Broken()}, name="draw") == expected


async def test_unserializable_values_say_how_to_return_them() -> None:
    hint = (
        "; return a str, JSON-able data (dict, list, dataclass, pydantic model), bytes, or a"
        " content block such as Image(data=png_bytes) or File(data=..., mime_type=...)"
    )

    class Socket:
        pass

    assert await run(lambda: {"conn": Socket(), "n": 1}, name="open") == text(
        "Tool 'open' returned a value that cannot be sent: a value of type"
        " test_unserializable_values_say_how_to_return_them.<locals>.Socket cannot be converted"
        " to JSON" + hint,
        error=True,
    )
    # NaN under non_finite="error" has its own advice, and no hint about return types.
    assert (await run(lambda: math.nan, name="m", options=ResultOptions(non_finite="error")))[
        "content"
    ][0]["text"].endswith("(set ResultOptions.non_finite to 'null' or 'string' to allow it)")


async def test_a_block_in_tool_result_structured_is_named() -> None:
    assert await run(lambda: ToolResult("chart", structured={"png": Image(PNG)}), name="t") == (
        text(
            "Tool 't' returned a value that cannot be sent: ToolResult.structured holds a content"
            " block; put blocks in content=",
            error=True,
        )
    )


# --- bytes inside a structured value ---------------------------------------------------------


def chart() -> Chart:
    return Chart(caption="EU sales", png=PNG)


async def test_structured_value_with_bytes_on_every_revision() -> None:
    reference = '{"caption":"EU sales","png":"<image block 2>"}'
    with_text = [{"type": "text", "text": reference}, IMAGE_WIRE]
    for revision in ("2024-11-05", "2025-03-26"):  # no structuredContent: the JSON text only
        assert await run(chart, revision=revision) == {"content": with_text, "isError": False}
    structured_value = {"caption": "EU sales", "png": "<image block 2>"}
    assert await run(chart, revision="2025-06-18") == {
        "content": with_text,
        "structuredContent": structured_value,
        "isError": False,
    }
    assert await run(chart, revision="2026-07-28") == {
        "content": with_text,
        "structuredContent": structured_value,
        "isError": False,
        "resultType": "complete",
    }
    off = ResultOptions(text_fallback=False)
    assert await run(chart, options=off) == {
        "content": [{"type": "text", "text": "The result is in structuredContent."}, IMAGE_WIRE],
        "structuredContent": structured_value,
        "isError": False,
    }
    # A client whose revision cannot carry the value still gets its JSON text, then the block.
    assert await run(chart, options=off, revision="2025-03-26") == {
        "content": with_text,
        "isError": False,
    }


async def test_structured_value_with_bytes_is_still_validated() -> None:
    def wrong() -> Chart:
        return Chart(caption=7, png=PNG)  # type: ignore[arg-type]

    assert await run(wrong) == text(
        "Tool 'wrong' returned a value that does not match its output schema:\n"
        "- caption: Input should be a valid string, got 7",
        error=True,
    )


async def test_structured_tool_returning_bytes_or_images_is_an_error() -> None:
    def pngs() -> list[bytes]:
        return [PNG]

    def picture() -> Chart:
        return pil_image()  # type: ignore[return-value]

    for fn in (pngs, picture):
        assert await run(fn) == text(
            f"Tool '{fn.__name__}' declares structured output but returned content blocks;"
            " return ToolResult(content=..., structured=...) to send both",
            error=True,
        )


async def test_image_annotations_give_no_output_schema() -> None:
    def plot() -> Figure:
        return figure()

    def photo() -> PILImage.Image:
        return pil_image()

    assert make_tool(plot).output_schema is None
    assert make_tool(photo).output_schema is None
