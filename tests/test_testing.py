"""plainmcp.testing: the helpers users call from their own tests."""

from __future__ import annotations

import base64
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from plainmcp import Image, Principal, Server, ToolError
from plainmcp.client import ToolCallError
from plainmcp.context import Context
from plainmcp.testing import call, connect, list_tools, render_all
from tests.servers_client.blocks import PNG

app = Server("under-test", continuation=None)


@app.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool
def fail(arguments: str = "") -> str:
    """Always fails."""
    raise ToolError(f"failed with {arguments!r}")


@app.tool
def picture() -> Image:
    """A PNG."""
    return Image(PNG)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_call_with_keywords() -> None:
    result = call(app, "add", a=1, b=2)
    assert result.text == "3"
    assert result.structured == {"result": 3}
    assert not result.is_error


def test_call_with_a_dict_and_a_revision() -> None:
    result = call(app, "add", {"a": 1, "b": 2}, protocol="2024-11-05")
    assert result.text == "3"
    assert result.structured is None  # 2024-11-05 has no structured content


def test_call_gives_the_unwrapped_value_as_data() -> None:
    assert call(app, "add", a=1, b=2).data == 3
    assert call(app, "add", a=1, b=2, result_type=float).data == 3.0


def test_call_raises_on_error_when_asked() -> None:
    with pytest.raises(ToolCallError, match="failed with 'x'"):
        call(app, "fail", arguments="x", raise_on_error=True)


@app.tool
def whoami(ctx: Context) -> str:
    """Who the session is authenticated as."""
    return ctx.principal.subject if ctx.principal else "nobody"


def test_options_pass_through_to_the_client() -> None:
    alice = Principal(subject="alice")
    assert call(app, "whoami", principal=alice).text == "alice"
    assert call(app, "whoami").text == "nobody"


def test_render_all_shows_one_call_in_every_revision() -> None:
    assert render_all(app, "add", a=1, b=2) == {
        "2024-11-05": {"content": [{"type": "text", "text": "3"}], "isError": False},
        "2025-03-26": {"content": [{"type": "text", "text": "3"}], "isError": False},
        "2025-06-18": {
            "content": [{"type": "text", "text": "3"}],
            "structuredContent": {"result": 3},
            "isError": False,
        },
        "2025-11-25": {
            "content": [{"type": "text", "text": "3"}],
            "structuredContent": {"result": 3},
            "isError": False,
        },
        "2026-07-28": {
            "content": [{"type": "text", "text": "3"}],
            "structuredContent": 3,
            "isError": False,
            "resultType": "complete",
            "_meta": {
                "io.modelcontextprotocol/serverInfo": {"name": "under-test", "version": "0.1.0"}
            },
        },
    }
    assert render_all(app, "picture", revisions=["2024-11-05"]) == {
        "2024-11-05": {
            "content": [
                {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"}
            ],
            "isError": False,
        }
    }


def test_call_tool_errors_and_argument_names() -> None:
    # A tool parameter may share a name with call()'s own positional-only parameters.
    result = call(app, "fail", arguments="x")
    assert result.is_error
    assert result.text == "failed with 'x'"


def test_call_typed_content() -> None:
    (block,) = call(app, "picture").content
    assert block == Image(PNG)


def test_list_tools() -> None:
    assert [t.name for t in list_tools(app)] == ["add", "fail", "picture", "whoami"]


@pytest.mark.anyio
async def test_connect() -> None:
    async with connect(app) as client:
        assert client.server_info.name == "under-test"
        assert (await client.call_tool("add", {"a": 2, "b": 2})).text == "4"


# --- the pytest plugin -------------------------------------------------------------------------

PLUGIN_TESTS = textwrap.dedent(
    """
    import asyncio

    import anyio

    from plainmcp import Server
    from plainmcp.testing import connect

    app = Server("plugged")


    @app.tool
    def add(a: int, b: int) -> int:
        return a + b


    async def test_unmarked_async_test_runs_on_asyncio():
        asyncio.get_running_loop()  # raises outside a running asyncio loop
        async with connect(app) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2})).data == 3


    async def test_a_failing_async_test_fails():
        await anyio.sleep(0)
        assert 1 == 2


    def test_sync_tests_are_left_alone():
        assert True
    """
)


def run_pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_plugged.py").write_text(PLUGIN_TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, "-rA"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def summary(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(
        line.split(" - ")[0]
        for line in proc.stdout.splitlines()
        if line.startswith(("PASSED", "FAILED", "SKIPPED", "ERROR"))
    )


def test_the_plugin_runs_unmarked_async_tests(tmp_path: Path) -> None:
    proc = run_pytest(tmp_path, "-p", "plainmcp.pytest_plugin")
    assert summary(proc) == [
        "FAILED test_plugged.py::test_a_failing_async_test_fails",
        "PASSED test_plugged.py::test_sync_tests_are_left_alone",
        "PASSED test_plugged.py::test_unmarked_async_test_runs_on_asyncio",
    ], proc.stdout + proc.stderr
    assert "assert 1 == 2" in proc.stdout


def test_without_the_plugin_async_tests_do_not_run(tmp_path: Path) -> None:
    proc = run_pytest(tmp_path)
    assert summary(proc) == [
        "FAILED test_plugged.py::test_a_failing_async_test_fails",
        "FAILED test_plugged.py::test_unmarked_async_test_runs_on_asyncio",
        "PASSED test_plugged.py::test_sync_tests_are_left_alone",
    ], proc.stdout + proc.stderr
    assert "async def functions are not natively supported" in proc.stdout
