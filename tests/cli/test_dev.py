"""plainmcp dev: restarts on a change with the host's session kept (stdio, driven by the official
SDK client as a host drives it) or on the same port (HTTP), the last good version kept when an
edit does not import, calls in flight answered with an error, and --inspector."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import ToolListChangedNotification

from plainmcp import Client
from plainmcp.cli import main
from plainmcp.cli.dev import find_inspector, inspector_args
from plainmcp.cli.dev_child import source_files
from tests.cli.lines import Lines
from tests.http_server import free_port, oversized_head
from tests.interop.tools import inspector_json, requires_interop_tools

pytestmark = pytest.mark.anyio

TIMING = r"plainmcp dev: method=tools/call target={} duration_ms=\d+\.\d+ outcome=ok"

FIRST = """
from plainmcp import Server
import helper

app = Server("reloading", continuation=None)

@app.tool
def first() -> str:
    return helper.WORD

@app.tool
async def block() -> str:
    import sys, anyio
    print("block started", file=sys.stderr, flush=True)
    await anyio.sleep_forever()
    return "never"
"""

SECOND = """
from plainmcp import Server
import helper

app = Server("reloading", continuation=None)

@app.tool
def second(x: int) -> int:
    return x * 2
"""

BROKEN = SECOND + "\ndef broken(:\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write(path: Path, source: str) -> None:
    path.write_text(textwrap.dedent(source))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path / "helper.py", "WORD = 'one'\n")
    write(tmp_path / "server.py", FIRST)
    return tmp_path


async def wait(lines: Lines, text: str) -> str:
    return await anyio.to_thread.run_sync(lines.wait_for, text)


async def test_stdio_restart_keeps_the_session_and_the_last_good_version(project: Path) -> None:
    server = project / "server.py"
    lines, errlog = Lines.pipe()
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "plainmcp", "dev", str(server)], cwd=str(project)
    )
    with errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, send),
            ClientSession(read, send, message_handler=on_message) as session,
        ):
            init = await session.initialize()
            assert init.server_info.name == "reloading"
            listed = await session.list_tools()
            assert [t.name for t in listed.tools] == ["first", "block"]
            assert (await session.call_tool("first", {})).content[0].text == "one"  # type: ignore[union-attr]
            await wait(lines, "watching 2 files for changes")  # server.py and helper.py

            failure: list[BaseException] = []

            async def call_block() -> None:
                try:
                    await session.call_tool("block", {})
                except MCPError as exc:
                    failure.append(exc)

            with anyio.fail_after(30):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(call_block)
                    await wait(lines, "block started")
                    write(server, SECOND)
                    await changed.wait()
            assert str(failure[0]) == (
                "plainmcp dev restarted the server (server.py changed) while it served this"
                " tools/call; send it again"
            )
            await wait(lines, "server.py changed; restarting")
            await wait(lines, "restarted in")
            listed = await session.list_tools()
            assert [t.name for t in listed.tools] == ["second"]
            result = await session.call_tool("second", {"x": 21})
            assert result.structured_content == {"result": 42}
            assert re.fullmatch(TIMING.format("second"), await wait(lines, "target=second"))

            changed = anyio.Event()
            write(project / "helper.py", "WORD = 'two'\n")  # an imported module counts too
            with anyio.fail_after(30):
                await changed.wait()
            await wait(lines, "helper.py changed; restarting")

            write(server, BROKEN)
            await wait(lines, "SyntaxError: invalid syntax")
            await wait(lines, "failed to load (see above); still serving the last good version")
            result = await session.call_tool("second", {"x": 5})
            assert result.structured_content == {"result": 10}
            assert [t.name for t in (await session.list_tools()).tools] == ["second"]

            write(server, SECOND.replace("x * 2", "x * 3"))
            changed = anyio.Event()
            with anyio.fail_after(30):
                await changed.wait()
            result = await session.call_tool("second", {"x": 5})
            assert result.structured_content == {"result": 15}


async def test_http_restarts_on_the_same_port(project: Path) -> None:
    server = project / "server.py"
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "plainmcp", "dev", str(server), "--http", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
    )
    assert proc.stderr is not None
    lines = Lines(proc.stderr)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        await wait(lines, f"plainmcp dev: serving {url}")
        await wait(lines, "watching 2 files for changes")
        async with Client.http(url) as client:
            assert [t.name for t in await client.list_tools()] == ["first", "block"]
            assert (await client.call_tool("first")).text == "one"
        assert await anyio.to_thread.run_sync(oversized_head, port) == (
            "HTTP/1.1 431 Request Header Fields Too Large",
            b"Request Header Fields Too Large: the request line and headers exceed 16384 bytes",
        )
        assert re.fullmatch(TIMING.format("first"), await wait(lines, "target=first"))

        write(server, SECOND)
        await wait(lines, "restarted in")
        async with Client.http(url) as client:
            assert [t.name for t in await client.list_tools()] == ["second"]
            assert (await client.call_tool("second", {"x": 4})).data == 8

        write(server, BROKEN)
        await wait(lines, "still serving the last good version")
        async with Client.http(url) as client:
            assert [t.name for t in await client.list_tools()] == ["second"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def children(pid: int) -> list[int]:
    """The processes `pid` started (Linux: /proc/PID/task/*/children)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(n) for n in (task / "children").read_text().split()]
    return found


def exited(pid: int, timeout: float) -> bool:
    """Wait for a process that is not ours to end (a pidfd turns readable when it does)."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and uses pidfds")
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
async def test_the_http_server_ends_with_dev_however_dev_ends(project: Path, how: str) -> None:
    import signal

    port = free_port()
    command = [sys.executable, "-m", "plainmcp", "dev", "server.py", "--http", "--port", str(port)]
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=project
    )
    assert proc.stderr is not None
    lines = Lines(proc.stderr)
    try:
        await wait(lines, f"plainmcp dev: serving http://127.0.0.1:{port}/mcp")
        (child,) = children(proc.pid)
        proc.send_signal(getattr(signal, how))
        assert proc.wait(timeout=30) == -getattr(signal, how)
        # Before, the server went on serving the port, an orphan, until killed by hand.
        assert await anyio.to_thread.run_sync(exited, child, 30)
    finally:
        proc.kill()
        proc.wait(timeout=30)


# --- usage errors and exit codes --------------------------------------------------------------


def dev(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", "dev", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def test_a_file_that_fails_at_the_start_exits_1(tmp_path: Path) -> None:
    write(tmp_path / "server.py", BROKEN)
    proc = dev("server.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert "SyntaxError" in proc.stderr
    assert proc.stderr.endswith(
        "plainmcp dev: server.py failed to load (see above); fix it and run plainmcp dev again\n"
    )
    assert proc.stdout == ""


def test_the_end_of_stdin_ends_it_with_0(project: Path) -> None:
    proc = dev("server.py", cwd=project)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert "exited" not in proc.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    proc = dev("missing.py", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "plainmcp dev: missing.py does not exist\n")
    write(tmp_path / "server.py", SECOND)
    proc = dev("server.py", "--port", "9000", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "plainmcp dev: --port needs --http\n")


def test_without_watchfiles_it_says_how_to_install_it(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "watchfiles", None)
    assert main(["dev", str(project / "server.py")]) == 2
    assert capsys.readouterr().err == (
        "plainmcp dev: dev needs watchfiles, which is not installed:"
        " pip install 'plainmcp[watch]'\n"
    )


def test_source_files_are_the_users_own(project: Path) -> None:
    import json as stdlib_module

    import plainmcp

    class Module:
        def __init__(self, file: str) -> None:
            self.__file__ = file

    found = source_files(
        {
            "json": stdlib_module,
            "plainmcp": plainmcp,
            "pytest": pytest,
            "helper": Module(str(project / "helper.py")),
            "compiled": Module(str(project / "fast.so")),
        }
    )
    assert found == [str(project / "helper.py")]


# --- the Inspector ------------------------------------------------------------------------------


def fake_inspector(folder: Path) -> Path:
    """An `mcp-inspector` that writes the arguments it got to args.txt and exits 3."""
    folder.mkdir()
    script = folder / "mcp-inspector"
    script.write_text(
        f"#!{sys.executable}\nimport sys, pathlib\n"
        f"pathlib.Path({str(folder / 'args.txt')!r}).write_text('\\n'.join(sys.argv[1:]))\n"
        "sys.exit(3)\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


def test_inspector_missing_says_how_to_install_it(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(project / "empty"))
    monkeypatch.chdir(project)
    assert find_inspector(project) is None
    assert main(["dev", "server.py", "--inspector"]) == 2
    assert capsys.readouterr().err == (
        "plainmcp dev: --inspector needs the MCP Inspector (Node.js 22+), which was not found:"
        " npm install -g @modelcontextprotocol/inspector"
        "  (or run `npx @modelcontextprotocol/inspector` yourself)\n"
    )


def test_inspector_is_found_in_node_modules_above(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(project / "empty"))
    (project / "node_modules").mkdir()
    bin_folder = fake_inspector(project / "node_modules" / ".bin")
    (project / "deep").mkdir()
    assert find_inspector(project / "deep") == str(bin_folder / "mcp-inspector")


def test_inspector_starts_this_dev_server_over_stdio(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = fake_inspector(project / "bin")
    monkeypatch.setenv("PATH", str(folder) + os.pathsep + os.environ["PATH"])
    monkeypatch.chdir(project)
    assert main(["dev", "server.py", "--inspector"]) == 3  # the Inspector's own exit code
    assert (folder / "args.txt").read_text().splitlines() == [
        "--web",
        "--",
        sys.executable,
        "-m",
        "plainmcp",
        "dev",
        str(project / "server.py"),
    ]


def test_inspector_args_for_http() -> None:
    assert inspector_args("/x/server.py", "http://127.0.0.1:9000/mcp") == [
        "--web",
        "--transport",
        "http",
        "--server-url",
        "http://127.0.0.1:9000/mcp",
    ]


@requires_interop_tools()
def test_the_real_inspector_lists_tools_through_the_command_it_is_given(project: Path) -> None:
    command = inspector_args(str(project / "server.py"), None)[2:]  # after "--web --"
    code, result, error = inspector_json(command, ["--method", "tools/list"], cwd=project)
    assert (code, error) == (0, None)
    assert result is not None
    assert [t["name"] for t in result["tools"]] == ["first", "block"]
