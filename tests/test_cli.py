"""The plainmcp command: run (stdout guarded), list, call, demo, and their error exits."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from plainmcp.cli import (
    Files,
    describe_tool,
    load_server,
    main,
    parse_arguments,
    render_result,
    sample_arguments,
    split_target,
)
from plainmcp.client import CallToolResult, ToolInfo, parse_call_result
from plainmcp.content import ResourceLink, Text
from tests.servers_client.blocks import PNG, WAV

HERE = Path(__file__).parent
BLOCKS = str(HERE / "servers_client" / "blocks.py")
NOISY = str(HERE / "servers_client" / "noisy.py")
ROOT = HERE.parent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def plainmcp(
    *args: str, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


# --- run -------------------------------------------------------------------------------------


def lines(*messages: dict[str, object]) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_run_keeps_stdout_for_the_protocol() -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "shout", "arguments": {"text": "hey"}},
    }
    proc = plainmcp("run", NOISY, stdin=lines(INITIALIZE, INITIALIZED, call))
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert out[0]["id"] == 1
    assert out[0]["result"]["protocolVersion"] == "2025-06-18"
    assert out[0]["result"]["serverInfo"]["name"] == "noisy"
    assert out[1] == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"content": [{"type": "text", "text": "HEY"}], "isError": False},
    }
    assert len(out) == 2
    assert "imported noisy" in proc.stderr  # the print at import
    assert "shouting hey" in proc.stderr  # the print in the tool


def test_run_with_object_name(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "two.py",
        """
        from plainmcp import Server
        first = Server("first")
        second = Server("second")
        """,
    )
    proc = plainmcp("run", f"{path}:second", stdin=lines(INITIALIZE))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "second"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.py", "missing.py does not exist"),
        (".", ". is a directory, not a Python file"),
        ("{blocks}:nothing", "has no object named 'nothing'"),
        ("{blocks}:PNG", ":PNG is a bytes, not a plainmcp.Server"),
    ],
)
@pytest.mark.parametrize("command", ["run", "list"])
def test_bad_target_exits_2(command: str, target: str, message: str) -> None:
    proc = plainmcp(command, target.format(blocks=BLOCKS))
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""


def test_file_without_a_server(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.py", "x = 1\n")
    proc = plainmcp("run", path)
    assert proc.returncode == 2
    assert "defines no plainmcp.Server" in proc.stderr


def test_import_error_exits_1_with_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.py", "raise RuntimeError('boom at import')\n")
    proc = plainmcp("run", path)
    assert proc.returncode == 1
    assert "RuntimeError: boom at import" in proc.stderr
    assert proc.stdout == ""


def test_load_server_choices(tmp_path: Path) -> None:
    only = write(tmp_path, "only.py", "from plainmcp import Server\nthing = Server('only')\n")
    assert load_server(only).name == "only"
    several = write(
        tmp_path,
        "several.py",
        "from plainmcp import Server\nother = Server('other')\nmcp = Server('named')\n",
    )
    assert load_server(several).name == "named"


def test_split_target() -> None:
    assert split_target("server.py") == ("server.py", None)
    assert split_target("dir/server.py:app") == ("dir/server.py", "app")
    assert split_target("C:\\server.py") == ("C:\\server.py", None)


def test_usage_error_exits_2() -> None:
    proc = plainmcp("call", BLOCKS, "add", "a")
    assert proc.returncode == 2
    assert "arguments are key=value, not 'a'" in proc.stderr
    proc = plainmcp("frobnicate")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


# --- list ------------------------------------------------------------------------------------


def test_list_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "small.py",
        '''
        from typing import Literal
        from plainmcp import Server

        app = Server("small")

        @app.tool(title="Adder")
        def add(a: int, b: int = 2) -> int:
            """Add two integers.

            More words here.

            Args:
                a: The first number.
                b: The second number.
            """
            return a + b

        @app.tool
        def pick(colour: Literal["red", "blue"], tags: list[str] | None = None) -> str:
            """Pick one."""
            return colour

        @app.tool
        def nothing() -> str:
            return ""
        ''',
    )
    assert main(["list", path]) == 0
    assert capsys.readouterr().out == textwrap.dedent(
        """\
        add (Adder): Add two integers.
          a (integer, required): The first number.
          b (integer, default 2): The second number.

        pick: Pick one.
          colour ("red" | "blue", required)
          tags (array of string | null, default null)

        nothing
          (no parameters)
        """
    )


# --- call ------------------------------------------------------------------------------------


def test_call_prints_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "add", "a=2", "b=3"]) == 0
    assert capsys.readouterr().out == "5\n"
    assert main(["call", BLOCKS, "echo", "--json", '{"text": "ab", "times": 2}']) == 0
    assert capsys.readouterr().out == "abab\n"


def test_call_structured_pretty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "everything"]) == 0
    assert capsys.readouterr().out == (
        'summary\nstructured content:\n{\n  "count": 2,\n  "items": [\n    "a",\n    "b"\n  ]\n}\n'
    )


def test_call_writes_binary_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "image", "--out", str(tmp_path)]) == 0
    image = tmp_path / "image-2.png"
    assert capsys.readouterr().out == (
        f"A red pixel\n[image] {image} (image/png, {len(PNG)} bytes)\n"
    )
    assert image.read_bytes() == PNG

    assert main(["call", BLOCKS, "audio", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "audio-1.wav").read_bytes() == WAV

    assert main(["call", BLOCKS, "resources", "--out", str(tmp_path)]) == 0
    blob = tmp_path / "resources-2.bin"
    assert capsys.readouterr().out.endswith(
        "[resource] file:///notes.txt (text/plain)\nhello\n"
        f"[resource] file:///data.bin -> {blob} (application/octet-stream, 3 bytes)\n"
    )
    assert blob.read_bytes() == b"\x00\x01\x02"


def test_call_resource_link(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "link"]) == 0
    assert capsys.readouterr().out == (
        "[resource link] https://example.com/report.pdf report.pdf (Report)"
        " [application/pdf, 1234 bytes]\n"
    )


def test_call_is_error_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "divide", "a=1", "b=0"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "error: Cannot divide by zero\n"


def test_call_unknown_tool_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "nope"]) == 2
    assert "no tool named 'nope' (tools: add, divide," in capsys.readouterr().err


def test_call_as_a_process(tmp_path: Path) -> None:
    proc = plainmcp("call", BLOCKS, "add", "a=2", "b=40")
    assert (proc.returncode, proc.stdout) == (0, "42\n")
    proc = plainmcp("call", BLOCKS, "divide", "a=1", "b=0")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert "error: Cannot divide by zero" in proc.stderr
    proc = plainmcp("call", str(tmp_path / "gone.py"), "add")
    assert proc.returncode == 2
    assert "gone.py does not exist" in proc.stderr


def test_parse_arguments() -> None:
    assert parse_arguments(
        ["a=2", "flag=true", "items=[1,2]", "name=bob", "x=", "eq=a=b", 's="2"', "n=null"], None
    ) == {
        "a": 2,
        "flag": True,
        "items": [1, 2],
        "name": "bob",
        "x": "",
        "eq": "a=b",
        "s": "2",
        "n": None,
    }
    assert parse_arguments(["b=3"], '{"a": 1, "b": 2}') == {"a": 1, "b": 3}


@pytest.mark.parametrize("bad", ['{"a":', "[1]"])
def test_parse_arguments_bad_json(bad: str) -> None:
    from plainmcp.cli import UsageError

    with pytest.raises(UsageError, match="--json"):
        parse_arguments([], bad)


def test_render_structured_only_once(tmp_path: Path) -> None:
    def render(result: CallToolResult) -> str:
        return render_result(result, Files(str(tmp_path)), "t")

    wrapped = parse_call_result(
        {"content": [{"type": "text", "text": "5"}], "structuredContent": {"result": 5}}
    )
    assert render(wrapped) == "5"
    natural = CallToolResult([Text('{"a":1}')], structured={"a": 1}, raw={"structuredContent": 1})
    assert render(natural) == '{\n  "a": 1\n}'
    link = CallToolResult([ResourceLink(uri="x:/y", name="y")])
    assert render(link) == "[resource link] x:/y y"


def test_sample_arguments_fallback() -> None:
    tool = ToolInfo(
        name="made_up",
        input_schema={
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "n": {"type": "integer", "minimum": 5},
                "e": {"enum": ["x", "y"]},
                "ex": {"type": "string", "examples": ["hello"]},
                "items": {"type": "array", "items": {"type": "number"}, "minItems": 2},
                "opt": {"type": "string"},
            },
            "required": ["s", "n", "e", "ex", "items"],
        },
    )
    assert sample_arguments(tool) == {
        "s": "example",
        "n": 5,
        "e": "x",
        "ex": "hello",
        "items": [1.5, 1.5],
    }
    assert describe_tool(tool).splitlines()[0] == "made_up"


# --- demo ------------------------------------------------------------------------------------


def test_demo_end_to_end(tmp_path: Path) -> None:
    proc = plainmcp("demo", "--out", str(tmp_path), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for expected in [
        "Started examples/demo_server.py over stdio and completed the initialize handshake.",
        "Server: plainmcp-demo 0.1.0, protocol revision 2025-11-25",
        "$ plainmcp call examples/demo_server.py add a=2 b=3\n5\n",
        "$ plainmcp call examples/demo_server.py divide a=1 b=0\nerror: Cannot divide by zero\n",
        "$ plainmcp call examples/demo_server.py chart region=north\nSales chart for north\n"
        f"[image] {tmp_path / 'chart-2.png'} (image/png,",
        "error: Only http and https URLs can be fetched",
        f"Binary content was written to {tmp_path}",
        "tools called.",
    ]:
        assert expected in out
    assert (tmp_path / "chart-2.png").read_bytes().startswith(b"\x89PNG")


def test_demo_from_another_folder_finds_the_repo_copy(tmp_path: Path) -> None:
    proc = plainmcp("demo", "--out", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"Started {ROOT / 'examples' / 'demo_server.py'} over stdio" in proc.stdout


def test_demo_missing_file(tmp_path: Path) -> None:
    proc = plainmcp("demo", str(tmp_path / "nope.py"))
    assert proc.returncode == 2
    assert "nope.py does not exist" in proc.stderr
