"""The plainmcp command: run (stdout guarded), list, call, demo, and their error exits."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from plainmcp import __version__, demo
from plainmcp.cli import (
    Files,
    UsageError,
    describe_tool,
    load_server,
    load_target,
    main,
    parse_arguments,
    render_result,
    sample_arguments,
    split_target,
)
from plainmcp.client import CallToolResult, ToolInfo, parse_call_result
from plainmcp.model.blocks import ResourceLink, Text
from plainmcp.server import Server
from plainmcp.transports.http.app import HttpApp
from tests.http_server import http_server
from tests.servers_client.blocks import PNG, WAV

HERE = Path(__file__).parent
BLOCKS = str(HERE / "servers_client" / "blocks.py")
NOISY = str(HERE / "servers_client" / "noisy.py")
ROOT = HERE.parent
DEMO = ROOT / "src" / "plainmcp" / "demo.py"


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
        ("{blocks}:nothing", "{blocks} has no object named 'nothing'"),
        ("{blocks}:PNG", "{blocks}:PNG is a bytes, not a plainmcp.Server or HttpApp"),
    ],
)
@pytest.mark.parametrize("command", [["run"], ["list"], ["call", "{target}", "add"]])
def test_bad_target_exits_2_naming_the_command(
    command: list[str], target: str, message: str
) -> None:
    target = target.format(blocks=BLOCKS)
    words = [w.format(target=target) for w in command]
    proc = plainmcp(*words, *([] if len(words) > 1 else [target]))
    assert proc.returncode == 2
    assert proc.stderr == f"plainmcp {command[0]}: {message.format(blocks=BLOCKS)}\n"
    assert proc.stdout == ""


def test_file_without_a_server(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.py", "x = 1\n")
    proc = plainmcp("run", path)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"plainmcp run: {path} defines no plainmcp.Server (e.g. app = Server('name'))\n"
    )


def test_import_error_exits_1_with_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.py", "raise RuntimeError('boom at import')\n")
    proc = plainmcp("run", path)
    assert proc.returncode == 1
    assert "RuntimeError: boom at import" in proc.stderr
    assert proc.stderr.endswith(f"plainmcp run: importing {path} failed (see above)\n")
    assert proc.stdout == ""


RAISES_AT_IMPORT = """\
from plainmcp import Server

app = Server("broken")


def helper() -> int:
    return 1 / 0


VALUE = helper()
"""
IMPORT_FAILURES = {
    "raises": (
        RAISES_AT_IMPORT,
        ["Traceback (most recent call last):", '  File "{path}", line 10, in <module>'],
    ),
    # plainmcp's own frames after the user's line stay: they say why the tool was refused
    "a tool plainmcp refuses": (
        "from plainmcp import Server\n\napp = Server('bad')\n\n\n@app.tool\n"
        "def add(*numbers: int) -> int:\n    return sum(numbers)\n",
        ["Traceback (most recent call last):", '  File "{path}", line 6, in <module>'],
    ),
    "SyntaxError": ("from plainmcp import Server\n\ndef (:\n", ['  File "{path}", line 3']),
}
IMPORTING_COMMANDS = {
    "run": ["run", "{path}"],
    "run --http": ["run", "{path}", "--http"],
    "list": ["list", "{path}"],
    "call": ["call", "{path}", "tool"],
    "inspect": ["inspect", "{path}"],
    "install": ["install", "claude-desktop", "{path}", "--config", "{config}"],
    "dev": ["dev", "{path}"],
}


@pytest.mark.parametrize("failure", list(IMPORT_FAILURES))
@pytest.mark.parametrize("command", list(IMPORTING_COMMANDS))
def test_an_import_failure_shows_the_traceback_from_the_user_s_code_as_python_would(
    tmp_path: Path, command: str, failure: str
) -> None:
    source, first_lines = IMPORT_FAILURES[failure]
    path = write(tmp_path, "broken.py", source)
    as_python = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=60)
    shown = as_python.stderr.splitlines()
    assert shown[: len(first_lines)] == [line.format(path=path) for line in first_lines]
    config = str(tmp_path / "config.json")
    words = [w.format(path=path, config=config) for w in IMPORTING_COMMANDS[command]]
    proc = plainmcp(*words)
    if command in ("list", "call"):  # clients of a `plainmcp run` child: their own exit codes
        assert proc.returncode != 0
    else:
        assert proc.returncode == 1
    name = words[0]
    assert proc.stderr.splitlines()[: len(shown) + 1] == [
        *shown,
        f"plainmcp {name}: importing {path} failed (see above)",
    ]


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
    assert proc.stderr == "plainmcp call: arguments are key=value, not 'a'\n"
    proc = plainmcp("frobnicate")
    assert proc.returncode == 2
    assert proc.stderr.endswith(
        "plainmcp: error: argument COMMAND: invalid choice: 'frobnicate'"
        " (choose from 'run', 'list', 'call', 'task', 'read', 'prompt', 'demo', 'check',"
        " 'install', 'uninstall', 'inspect', 'dev', 'proxy', 'login', 'logout')\n"
    )


def test_version_flag() -> None:
    proc = plainmcp("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        f"plainmcp {__version__}\n",
        "",
    )


# --- run: HTTP -------------------------------------------------------------------------------

DEPLOY = """
from plainmcp import BearerAuth, Principal, Server

app = Server("deploy", version="9.9.9")


@app.tool
def ping() -> str:
    return "pong"


def verify(token: str) -> Principal | None:
    return Principal("alice") if token == "s3cret" else None


web = app.http_app(auth=BearerAuth(verify, ["https://auth.example.com"]))
"""


def post_initialize(port: int, headers: dict[str, str]) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        body = json.dumps(INITIALIZE).encode()
        sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        conn.request("POST", "/mcp", body, {**sent, **headers})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def server_name(body: bytes) -> str:
    name: str = json.loads(body)["result"]["serverInfo"]["name"]
    return name


@pytest.mark.parametrize("suffix", [":web", ""])
def test_run_http_serves_an_http_app_with_its_auth(tmp_path: Path, suffix: str) -> None:
    """deploy.py:web, and deploy.py alone (its only HttpApp), keep the app's bearer auth."""
    deploy = write(tmp_path, "deploy.py", DEPLOY)
    with http_server(deploy + suffix) as server:
        status, body = post_initialize(server.port, {})
        assert (status, json.loads(body)["error"]) == (401, "invalid_request")
        status, body = post_initialize(server.port, {"Authorization": "Bearer wrong"})
        assert (status, json.loads(body)["error"]) == (401, "invalid_token")
        status, body = post_initialize(server.port, {"Authorization": "Bearer s3cret"})
        assert (status, server_name(body)) == (200, "deploy")


def test_run_http_allowed_host_and_origin_flags(tmp_path: Path) -> None:
    flags = ["--allowed-host", "example.test", "--allowed-origin", "https://app.example.test"]
    with http_server(BLOCKS, *flags) as server:
        assert post_initialize(server.port, {"Host": "example.test"})[0] == 200
        assert post_initialize(server.port, {"Host": "other.test"})[0] == 421
        origin = {"Origin": "https://app.example.test"}
        status, body = post_initialize(server.port, origin)
        assert (status, server_name(body)) == (200, "blocks")
        assert post_initialize(server.port, {"Origin": "https://evil.test"})[0] == 403
    with http_server(BLOCKS) as server:
        assert post_initialize(server.port, {"Host": "example.test"})[0] == 421
        assert post_initialize(server.port, {"Origin": "https://app.example.test"})[0] == 403


def test_run_http_without_uvicorn_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` raises ImportError
    assert main(["run", NOISY, "--http", "--port", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "plainmcp run: --http needs uvicorn, which is not installed: pip install 'plainmcp[http]'\n"
    )
    assert captured.out == ""  # noisy.py prints when imported: it was not


def test_run_http_flags_without_http(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", BLOCKS, "--port", "1", "--allowed-host", "example.test"]) == 2
    assert capsys.readouterr().err == "plainmcp run: --port, --allowed-host need --http\n"


def test_run_http_app_refuses_the_flags_it_already_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deploy = write(tmp_path, "deploy.py", DEPLOY)
    argv = ["run", deploy, "--http", "--allowed-origin", "https://a.test", "--path", "/x"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"plainmcp run: {deploy}:web is an HttpApp with its own path, allowed hosts, origins"
        " and sessions; set them in http_app(...), not with --path, --allowed-origin\n"
    )
    assert main(["run", deploy, "--http", "--sessions", "none"]) == 2
    assert capsys.readouterr().err.endswith("set them in http_app(...), not with --sessions\n")


def test_run_workers_refuse_an_http_app_with_in_memory_sessions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deploy = write(tmp_path, "deploy.py", DEPLOY)
    assert main(["run", f"{deploy}:web", "--http", "--workers", "2"]) == 2
    assert capsys.readouterr().err == (
        "plainmcp run: --workers 2 with handshake sessions (2024-11-05 to 2025-11-25) in each"
        " worker's memory: a session's next request would reach another worker and get 404."
        " make it with http_app(sessions='redis://HOST:6379/0') or sessions=None (the"
        " stateless handshake mode; docs/deploy.md)\n"
    )


def test_load_target_finds_http_apps(tmp_path: Path) -> None:
    deploy = write(tmp_path, "deploy.py", DEPLOY)
    name, web = load_target(f"{deploy}:web")
    assert name == "web" and isinstance(web, HttpApp) and web.auth is not None
    name, found = load_target(deploy, http=True)
    assert name == "web" and isinstance(found, HttpApp) and found.auth is not None
    name, server = load_target(deploy)  # each load imports the file anew
    assert name == "app" and isinstance(server, Server) and server.name == "deploy"
    assert load_server(f"{deploy}:web").name == "deploy"  # stdio serves the app's server
    two = write(
        tmp_path,
        "two_apps.py",
        "from plainmcp import Server\napp = Server('x')\na = app.http_app()\nb = app.http_app()\n",
    )
    with pytest.raises(UsageError) as raised:
        load_target(two, http=True)
    assert str(raised.value) == f"{two} defines several HttpApps (a, b); pick one with {two}:NAME"


def test_stdio_commands_use_an_http_apps_server(tmp_path: Path) -> None:
    deploy = write(tmp_path, "deploy.py", DEPLOY)
    proc = plainmcp("call", f"{deploy}:web", "ping")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "pong\n", "")


# --- list ------------------------------------------------------------------------------------


def test_list_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "small.py",
        '''
        from typing import Literal
        from plainmcp import Server

        app = Server("small", continuation=None)

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
        tools (3):
          add (Adder): Add two integers.
            a (integer, required): The first number.
            b (integer, default 2): The second number.
          pick: Pick one.
            colour ("red" | "blue", required)
            tags (array of string | null, default null)
          nothing
            (no parameters)

        resources (0):

        resource templates (0):

        prompts (0):
        """
    )


# --- call ------------------------------------------------------------------------------------


def test_call_prints_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "add", "a=2", "b=3"]) == 0
    assert capsys.readouterr().out == "5\n"
    assert main(["call", BLOCKS, "echo", "--args", '{"text": "ab", "times": 2}']) == 0
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
    assert capsys.readouterr().err.startswith(
        "plainmcp call: no tool named 'nope' (tools: add, divide, echo,"
    )


def test_call_invalid_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", BLOCKS, "add", "a=x", "c=1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "plainmcp call: Invalid arguments for tool 'add':\n"
        '- a: Input should be a valid integer, got "x"\n'
        "- b: Field required\n"
        "- c: Unexpected argument\n"
        f"(`plainmcp list {BLOCKS}` shows the parameters)\n"
    )


def test_a_tool_error_that_mentions_invalid_arguments_is_still_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        "picky.py",
        """
        from plainmcp import Server, ToolError
        app = Server("picky")

        @app.tool
        def check(n: int) -> int:
            raise ToolError("Invalid arguments for tool 'other': n")
        """,
    )
    assert main(["call", path, "check", "n=1"]) == 1
    assert capsys.readouterr().err == "error: Invalid arguments for tool 'other': n\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["--out", "{out}", "{file}", "chart", "region=north"],
        ["{file}", "--out", "{out}", "chart", "region=north"],
        ["{file}", "chart", "--out", "{out}", "region=north"],
        ["{file}", "chart", "region=north", "--out", "{out}"],
        ["{file}", "chart", "--out={out}", "--protocol", "2025-03-26", "region=north"],
    ],
)
def test_call_options_anywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    words = [w.format(out=tmp_path, file=DEMO) for w in argv]
    assert main(["call", *words]) == 0
    png = demo.bar_chart_png(demo.SALES["north"])
    assert capsys.readouterr().out == (
        f"Sales chart for north\n[image] {tmp_path / 'chart-2.png'} (image/png, {len(png)} bytes)\n"
    )
    assert (tmp_path / "chart-2.png").read_bytes() == png


REVISION = """
from plainmcp import Context, Server
app = Server("revision")

@app.tool
def show(ctx: Context, a: int, tag: str = "") -> str:
    return f"{a} {tag} {ctx.revision}"
"""


@pytest.mark.parametrize(
    ("argv", "out"),
    [
        (["a=-1", "--protocol", "2024-11-05", "tag=-x"], "-1 -x 2024-11-05\n"),
        (["--args", '{"a": -2}', "tag=--y"], "-2 --y 2025-11-25\n"),
        (["tag=-", "--protocol=2025-06-18", "--args", '{"a": 3, "tag": "z"}'], "3 - 2025-06-18\n"),
        (["a=-1.5e0", "tag=-1"], None),
    ],
)
def test_call_values_starting_with_a_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], out: str | None
) -> None:
    path = write(tmp_path, "revision.py", REVISION)
    if out is None:  # -1.5 is not an integer: the tool's schema says so, exit 2
        assert main(["call", path, "show", *argv]) == 2
        assert capsys.readouterr().err.startswith(
            "plainmcp call: Invalid arguments for tool 'show':\n"
            "- a: Input should be a valid integer, got -1.5\n"
        )
        return
    assert main(["call", path, "show", *argv]) == 0
    assert capsys.readouterr().out == out


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

    with pytest.raises(UsageError, match="--args"):
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
        "Started src/plainmcp/demo.py over stdio and completed the initialize handshake.",
        "Server: plainmcp-demo 0.1.0, protocol revision 2025-11-25",
        "$ plainmcp call src/plainmcp/demo.py add a=2 b=3\n5\n",
        "$ plainmcp call src/plainmcp/demo.py divide a=1 b=0\nerror: Cannot divide by zero\n",
        "$ plainmcp call src/plainmcp/demo.py chart region=north\nSales chart for north\n"
        f"[image] {tmp_path / 'chart-2.png'} (image/png,",
        "error: Only http and https URLs can be fetched",
        f"Binary content was written to {tmp_path}",
        "Done: 12 tools called.",
    ]:
        assert expected in out
    assert (tmp_path / "chart-2.png").read_bytes() == demo.bar_chart_png(demo.SALES["north"])


def test_demo_from_another_folder_runs_the_packaged_demo(tmp_path: Path) -> None:
    proc = plainmcp("demo", "--out", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Started {DEMO} over stdio")


def test_examples_demo_server_is_the_packaged_demo() -> None:
    proc = plainmcp("call", str(ROOT / "examples" / "demo_server.py"), "add", "a=2", "b=3")
    assert (proc.returncode, proc.stdout) == (0, "5\n")


def test_demo_missing_file(tmp_path: Path) -> None:
    proc = plainmcp("demo", str(tmp_path / "nope.py"))
    assert proc.returncode == 2
    assert proc.stderr == f"plainmcp demo: {tmp_path / 'nope.py'} does not exist\n"


def test_demo_runs_from_an_installed_wheel(tmp_path: Path) -> None:
    """The wheel, installed in a fresh venv (its dependencies seen through a .pth line to this
    venv's site-packages, plainmcp itself only from the wheel), run outside the checkout."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    dist = tmp_path / "dist"
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)]
    subprocess.run(build, check=True, capture_output=True, timeout=120)
    (wheel,) = dist.glob("plainmcp-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(install, check=True, capture_output=True, timeout=120)
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "outer_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    proc = subprocess.run(
        [str(venv / "bin" / "plainmcp"), "demo", "--out", str(work / "out")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    packaged = site / "plainmcp" / "demo.py"
    assert proc.stdout.startswith(
        f"Started {packaged} over stdio and completed the initialize handshake.\n"
    )
    png = demo.bar_chart_png(demo.SALES["north"])
    chart = work / "out" / "chart-2.png"
    assert (
        f"$ plainmcp call {packaged} chart region=north\nSales chart for north\n"
        f"[image] {chart} (image/png, {len(png)} bytes)\n"
    ) in proc.stdout
    assert proc.stdout.endswith("Done: 12 tools called.\n")
    assert chart.read_bytes() == png


# --- every command: --help examples and exit codes ----------------------------------------------

EVERY_COMMAND = (
    "run",
    "list",
    "call",
    "task",
    "read",
    "prompt",
    "demo",
    "check",
    "install",
    "uninstall",
    "inspect",
    "dev",
    "proxy",
    "login",
    "logout",
)


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_every_command_help_has_an_example_and_the_exit_codes(command: str) -> None:
    from plainmcp.cli import COMMANDS, EXAMPLES

    assert tuple(COMMANDS) == EVERY_COMMAND
    proc = plainmcp(command, "--help")
    assert (proc.returncode, proc.stderr) == (0, "")
    examples = proc.stdout.split("examples:\n", 1)[1]
    for line, _ in EXAMPLES[command]:
        assert f"  {line}  " in examples
    assert examples.endswith(
        "exit codes: 0 done; 1 an isError result, a protocol error or a failed import;\n"
        "  2 a usage error (the message names the fix)\n"
    )


def test_top_level_help_lists_every_command() -> None:
    proc = plainmcp("--help")
    assert proc.returncode == 0
    for command in EVERY_COMMAND:
        assert f"\n  {command:<7} " in proc.stdout


@pytest.mark.parametrize(
    "command", [c for c in EVERY_COMMAND if c not in ("uninstall", "login", "logout", "proxy")]
)
def test_every_command_exits_2_for_a_missing_file_and_1_for_a_failed_import(
    command: str, tmp_path: Path
) -> None:
    # uninstall takes a server's name, not a file, login and logout a URL (tests/cli/
    # test_login.py), proxy a URL or a command (tests/e2e/test_proxy_cli.py); install takes
    # the host first.
    before = ["json"] if command == "install" else []
    extra = {"call": ["add"], "task": ["t-1"], "read": ["notes://all"], "prompt": ["greet"]}.get(
        command, []
    )
    proc = plainmcp(command, *before, "missing.py", *extra, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.endswith(f"plainmcp {command}: missing.py does not exist\n")
    write(tmp_path, "broken.py", "def broken(:\n")
    proc = plainmcp(command, *before, "broken.py", *extra, cwd=tmp_path)
    assert proc.returncode == 1
    # check reports the failed import as one of its problems, on stdout; the others on stderr.
    assert "SyntaxError" in (proc.stdout if command == "check" else proc.stderr)


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_every_command_exits_2_for_an_unknown_option(command: str) -> None:
    proc = plainmcp(command, "--frobnicate")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"usage: plainmcp {command} ")
