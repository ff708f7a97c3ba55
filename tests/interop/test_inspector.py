"""The MCP Inspector CLI against examples/demo_server.py over stdio.

Each Inspector run spawns node and the demo server, so all runs start at once in a module
fixture (a few at a time) and the tests assert on their outputs: the raw JSON result, which
must match the table in conftest.py exactly, and the exit code (5 for isError results).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.interop.conftest import (
    ADD_INPUT_SCHEMA,
    CALLS,
    OUTPUT_SCHEMAS,
    READ_ONLY,
    SERVER_COMMAND,
    TOOL_NAMES,
    Call,
    Site,
    check_png,
    fetch_calls,
)
from tests.interop.tools import inspector_json, requires_interop_tools

pytestmark = requires_interop_tools()

Run = tuple[int, dict[str, Any] | None, dict[str, Any] | None]


def call_args(call: Call) -> list[str]:
    return [
        "--method",
        "tools/call",
        "--tool-name",
        call.tool,
        "--tool-args-json",
        json.dumps(call.arguments),
    ]


@pytest.fixture(scope="module")
def runs(site: Site) -> dict[str, Run]:
    """Every Inspector invocation of this module, run concurrently: id -> (exit, result, error)."""
    jobs: dict[str, list[str]] = {call.id: call_args(call) for call in CALLS + fetch_calls(site)}
    # --strict also lints the schemas for portability across hosts (exit 6 on findings).
    jobs["list"] = ["--method", "tools/list", "--strict"]
    # --tool-arg coerces "2" to the number 2, as a user typing at a terminal would expect.
    jobs["add-tool-arg"] = ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2"]
    jobs["add-tool-arg"] += ["b=40"]
    jobs["unknown-tool"] = ["--method", "tools/call", "--tool-name", "no_such_tool"]
    with ThreadPoolExecutor(max_workers=6) as pool:
        futures = {
            key: pool.submit(inspector_json, SERVER_COMMAND, args, timeout=60)
            for key, args in jobs.items()
        }
        return {key: future.result() for key, future in futures.items()}


def test_list_tools(runs: dict[str, Run]) -> None:
    code, result, error = runs["list"]
    assert (code, error) == (0, None)
    assert result is not None and "nextCursor" not in result
    tools = {tool["name"]: tool for tool in result["tools"]}
    assert [tool["name"] for tool in result["tools"]] == TOOL_NAMES
    assert tools["add"]["description"] == "Add two integers."
    assert tools["add"]["inputSchema"] == ADD_INPUT_SCHEMA
    for name, tool in tools.items():
        assert tool.get("outputSchema") == OUTPUT_SCHEMAS.get(name), name
        hints = {"readOnlyHint": True, "openWorldHint": True} if name == "fetch" else READ_ONLY
        assert tool["annotations"] == hints, name


@pytest.mark.parametrize("call", CALLS, ids=[call.id for call in CALLS])
def test_call(runs: dict[str, Run], call: Call) -> None:
    assert_run(runs[call.id], call)


def test_fetch(runs: dict[str, Run], site: Site) -> None:
    for call in fetch_calls(site):
        assert_run(runs[call.id], call)


def assert_run(run: Run, call: Call) -> None:
    code, result, error = run
    call.check(result)
    if call.expected["isError"]:
        assert code == 5, call.id
        assert error is not None and error["code"] == "tool_is_error", call.id
    else:
        assert (code, error) == (0, None), call.id


def test_tool_arg_coercion(runs: dict[str, Run]) -> None:
    code, result, _ = runs["add-tool-arg"]
    assert code == 0
    assert result == {
        "content": [{"type": "text", "text": "42"}],
        "structuredContent": {"result": 42},
        "isError": False,
    }


def test_chart_is_a_png(runs: dict[str, Run]) -> None:
    _, result, _ = runs["chart"]
    assert result is not None
    assert check_png(result["content"][1]["data"])[:2] == (136, 96)


def test_unknown_tool(runs: dict[str, Run]) -> None:
    code, result, error = runs["unknown-tool"]
    assert code == 5
    assert result is None
    assert error is not None and error["code"] == "tool_not_found"
