"""text_fallback: the text block sent with a structured value, server-wide and per tool, at a
handshake revision and at 2026-07-28 (every message checked against its revision's schema)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from plainmcp import ResultOptions, Server, ToolResult
from plainmcp.middleware import Timing
from plainmcp.model.options import TextFallback
from plainmcp.wire.render import STRUCTURED_ELSEWHERE
from tests.conftest import Session

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"
META_2026 = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


@dataclass
class Row:
    id: int
    name: str


@dataclass
class Report:
    rows: list[Row]
    total: int


REPORT = Report([Row(i, f"row {i}") for i in range(300)], 300)
REPORT_WIRE = {"rows": [{"id": i, "name": f"row {i}"} for i in range(300)], "total": 300}
REPORT_JSON = json.dumps(REPORT_WIRE, separators=(",", ":"))
REPORT_SUMMARY = "\n".join(
    [
        # 300 rows of 21 characters plus their digits (790), 299 commas, the brackets and the
        # 21 characters around them
        "Summary of the structured result (8,202 characters of JSON in structuredContent):",
        "$: an object with 2 keys: rows, total",
        "$.rows: an array of 300 objects",
        "$.total: 300",
        '$.rows[0]: {"id":0,"name":"row 0"}',
        '$.rows[1]: {"id":1,"name":"row 1"}',
        '$.rows[2]: {"id":2,"name":"row 2"}',
        "$.rows: … and 297 more objects",
    ]
)
NUMBERS_SUMMARY = (
    "Summary of the structured result (1,891 characters of JSON in structuredContent):\n"
    "$: an array of 500 numbers: 0, 1, 2, …"
)


def make_server(
    options: ResultOptions | None = None, tool_mode: TextFallback | None = None, **server: Any
) -> Server:
    app = Server("modes", options=options, **server)

    @app.tool(text_fallback=tool_mode)
    def report() -> Report:
        return REPORT

    @app.tool(text_fallback=tool_mode)
    def numbers() -> list[int]:
        return list(range(500))

    @app.tool(text_fallback=tool_mode)
    def five() -> int:
        return 5

    @app.tool(text_fallback=tool_mode)
    def own_text() -> ToolResult:
        return ToolResult("300 rows", structured={"total": 300})

    return app


async def call(app: Server, revision: str, name: str) -> dict[str, Any]:
    async with Session(app, revision_hint=revision) as s:
        if revision == MODERN:
            return await s.result("tools/call", {"name": name, "arguments": {}, "_meta": META_2026})
        await s.initialize(revision)
        return await s.call(name, {})


def text_of(result: dict[str, Any]) -> str:
    assert [b["type"] for b in result["content"]] == ["text"]
    text: str = result["content"][0]["text"]
    return text


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
@pytest.mark.parametrize(
    ("mode", "report_text", "numbers_text"),
    [
        ("json", REPORT_JSON, json.dumps(list(range(500)), separators=(",", ":"))),
        ("summary", REPORT_SUMMARY, NUMBERS_SUMMARY),
        ("pointer", STRUCTURED_ELSEWHERE, STRUCTURED_ELSEWHERE),
    ],
)
async def test_each_mode_server_wide(
    revision: str, mode: str, report_text: str, numbers_text: str
) -> None:
    app = make_server(ResultOptions(text_fallback=mode))  # type: ignore[arg-type]
    report = await call(app, revision, "report")
    assert text_of(report) == report_text
    assert report["structuredContent"] == REPORT_WIRE
    assert report["isError"] is False
    numbers = await call(app, revision, "numbers")
    assert text_of(numbers) == numbers_text
    # The summary describes the value, not the {"result": ...} wrapper of 2025-11-25.
    wrapped = list(range(500)) if revision == MODERN else {"result": list(range(500))}
    assert numbers["structuredContent"] == wrapped


async def test_the_exact_summary_result_at_both_eras() -> None:
    app = make_server(ResultOptions(text_fallback="summary"))
    assert await call(app, "2025-11-25", "five") == {
        "content": [{"type": "text", "text": "5"}],  # a short value is its own JSON text
        "structuredContent": {"result": 5},
        "isError": False,
    }
    modern = await call(app, MODERN, "five")
    assert modern["content"] == [{"type": "text", "text": "5"}]
    assert modern["structuredContent"] == 5
    assert modern["resultType"] == "complete"


@pytest.mark.parametrize("mode", ["summary", "pointer"])
async def test_a_client_without_structured_content_always_gets_the_json(mode: str) -> None:
    app = make_server(ResultOptions(text_fallback=mode))  # type: ignore[arg-type]
    result = await call(app, "2025-03-26", "report")
    assert result == {"content": [{"type": "text", "text": REPORT_JSON}], "isError": False}
    # Nor does a non-object value under compat="strict" at 2025-11-25.
    strict = make_server(ResultOptions(text_fallback=mode, compat="strict"))  # type: ignore[arg-type]
    numbers = await call(strict, "2025-11-25", "numbers")
    assert numbers == {
        "content": [{"type": "text", "text": json.dumps(list(range(500)), separators=(",", ":"))}],
        "isError": False,
    }


@pytest.mark.parametrize("revision", ["2025-11-25", MODERN])
async def test_a_tools_own_mode_wins_over_the_servers(revision: str) -> None:
    pointer_server = make_server(ResultOptions(text_fallback="pointer"), tool_mode="summary")
    assert text_of(await call(pointer_server, revision, "report")) == REPORT_SUMMARY
    summary_server = make_server(ResultOptions(text_fallback="summary"), tool_mode="json")
    assert text_of(await call(summary_server, revision, "report")) == REPORT_JSON
    default_server = make_server(tool_mode="pointer")
    assert text_of(await call(default_server, revision, "report")) == STRUCTURED_ELSEWHERE


async def test_the_tools_mode_applies_through_middleware() -> None:
    app = make_server(tool_mode="summary", middleware=[Timing()])
    assert text_of(await call(app, "2025-11-25", "report")) == REPORT_SUMMARY


@pytest.mark.parametrize("mode", ["json", "summary", "pointer"])
async def test_a_tool_result_with_its_own_text_keeps_it(mode: str) -> None:
    app = make_server(tool_mode=mode)  # type: ignore[arg-type]
    result = await call(app, "2025-11-25", "own_text")
    assert result == {
        "content": [{"type": "text", "text": "300 rows"}],
        "structuredContent": {"total": 300},
        "isError": False,
    }


async def test_true_and_false_are_json_and_pointer() -> None:
    assert (
        ResultOptions(text_fallback=True) == ResultOptions() == ResultOptions(text_fallback="json")
    )
    assert ResultOptions(text_fallback=False).text_fallback == "pointer"
    assert ResultOptions(text_fallback=False).text_mode == "pointer"
    assert text_of(await call(make_server(tool_mode=False), "2025-11-25", "report")) == (
        STRUCTURED_ELSEWHERE
    )
    off = make_server(ResultOptions(text_fallback=False), tool_mode=True)
    assert text_of(await call(off, "2025-11-25", "report")) == REPORT_JSON
    assert make_server(tool_mode=False).tools["report"].text_fallback == "pointer"
    assert make_server().tools["report"].text_fallback is None  # the server's options decide


def test_mode_names_are_checked() -> None:
    with pytest.raises(ValueError) as server_wide:
        ResultOptions(text_fallback="full")  # type: ignore[arg-type]
    assert str(server_wide.value) == (
        'text_fallback must be "json", "summary" or "pointer" (or True for "json", False for'
        " \"pointer\"), not 'full'"
    )
    app = Server("x")
    with pytest.raises(ValueError) as per_tool:
        app.add_tool(lambda: 1, name="one", text_fallback="Summary")
    assert str(per_tool.value) == (
        'tool \'one\': text_fallback must be "json", "summary" or "pointer" (or True for "json",'
        " False for \"pointer\"), not 'Summary'"
    )
    with pytest.raises(ValueError, match=r"not 1$"):
        ResultOptions(text_fallback=1)  # type: ignore[arg-type]
    assert "one" not in app.tools
