"""The MCP Inspector CLI against examples/demo_server.py served over Streamable HTTP.

One `plainmcp run examples/demo_server.py --http` serves the whole module; the Inspector's target
is its URL. Each tool is called once per protocol era: `--protocol-era legacy` (the initialize
handshake and an Mcp-Session-Id session, 2025-11-25) and `--protocol-era modern` (stateless
2026-07-28 requests). Every Inspector run is a node process, so all of them start at once in a
module fixture (a few at a time) and the tests assert on their outputs: the raw JSON result, which
must match the table in conftest.py exactly, and the exit code (5 for isError results).
The stdio counterpart is test_inspector.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.http_server import HttpServer, http_server
from tests.interop.conftest import (
    ADD_INPUT_SCHEMA,
    CALLS,
    DEMO,
    OUTPUT_SCHEMAS,
    READ_ONLY,
    TOOL_NAMES,
    Call,
)
from tests.interop.test_demo_sdk_2026 import NATURAL_SCHEMAS, natural
from tests.interop.test_inspector import call_args
from tests.interop.tools import inspector_json, requires_interop_tools

pytestmark = requires_interop_tools()

ERAS = ["legacy", "modern"]
Run = tuple[int, dict[str, Any] | None, dict[str, Any] | None]


def expected(call: Call, era: str) -> Call:
    """The table's call as the Inspector prints it in `era`.

    modern: the 2026-07-28 result (the server's `_meta`, a wrapped structured value as itself),
    minus resultType, which the Inspector's SDK consumes and does not print.
    """
    if era == "legacy":
        return call
    modern = natural(call)
    assert modern.expected.pop("resultType") == "complete"
    return modern


@pytest.fixture(scope="module")
def demo_http() -> Iterator[HttpServer]:
    with http_server(DEMO) as server:
        yield server


@pytest.fixture(scope="module")
def runs(demo_http: HttpServer) -> dict[tuple[str, str], Run]:
    """Every Inspector invocation of this module, run concurrently: (era, id) -> (exit, result,
    error)."""
    jobs: dict[tuple[str, str], list[str]] = {}
    for era in ERAS:
        era_args = ["--protocol-era", era]
        for call in CALLS:
            jobs[era, call.id] = [*call_args(call), *era_args]
        # --strict also lints the schemas for portability across hosts (exit 6 on findings).
        jobs[era, "list"] = ["--method", "tools/list", "--strict", *era_args]
        jobs[era, "unknown-tool"] = [
            *("--method", "tools/call", "--tool-name", "no_such_tool"),
            *era_args,
        ]
    with ThreadPoolExecutor(max_workers=6) as pool:
        futures = {
            key: pool.submit(inspector_json, [demo_http.url], args, timeout=60)
            for key, args in jobs.items()
        }
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("era", ERAS)
def test_list_tools(runs: dict[tuple[str, str], Run], era: str) -> None:
    code, result, error = runs[era, "list"]
    assert (code, error) == (0, None)
    assert result is not None
    assert list(result) == ["tools"]  # the Inspector prints the (aggregated) tools only
    tools = {tool["name"]: tool for tool in result["tools"]}
    assert [tool["name"] for tool in result["tools"]] == TOOL_NAMES
    assert tools["add"]["description"] == "Add two integers."
    assert tools["add"]["inputSchema"] == ADD_INPUT_SCHEMA
    # The output schemas tell the eras apart: 2026-07-28 has the natural (unwrapped) ones.
    schemas = OUTPUT_SCHEMAS if era == "legacy" else NATURAL_SCHEMAS
    for name, tool in tools.items():
        assert tool.get("outputSchema") == schemas.get(name), name
        hints = {"readOnlyHint": True, "openWorldHint": True} if name == "fetch" else READ_ONLY
        assert tool["annotations"] == hints, name


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
def test_call(runs: dict[tuple[str, str], Run], call: Call, era: str) -> None:
    code, result, error = runs[era, call.id]
    expected(call, era).check(result)
    if call.expected["isError"]:
        assert code == 5, call.id
        assert error is not None and error["code"] == "tool_is_error", call.id
    else:
        assert (code, error) == (0, None), call.id


@pytest.mark.parametrize("era", ERAS)
def test_unknown_tool(runs: dict[tuple[str, str], Run], era: str) -> None:
    code, result, error = runs[era, "unknown-tool"]
    assert code == 5
    assert result is None
    assert error == {
        "code": "tool_not_found",
        "message": "Tool 'no_such_tool' not found on server.",
    }
