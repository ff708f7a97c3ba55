"""`plainmcp list | call | read | prompt` against a server file (stdio, through `plainmcp run`)
and the URL of a running server: plainmcp's own over HTTP and the official SDK's. Output is
exact: the same server gives the same text through either."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.fixtures.try_server import LOGO, PHOTO, long_text
from tests.cli.terminal import Terminal
from tests.http_server import HttpServer, http_server

HERE = Path(__file__).resolve().parent
TRY = str(HERE / "fixtures" / "try_server.py")
SDK_TOOLS = HERE.parent / "client" / "servers" / "sdk_tools.py"
RETURNS_INT = (
    '{"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}'
)
NO_TERMINAL = (
    "plainmcp call: the server asked a question ('{}') and stdin is not a terminal, so nobody"
    " can answer it; run the command in a terminal, or pass the value as a tool argument\n"
)


def plainmcp(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def served() -> Iterator[HttpServer]:
    with http_server(TRY) as server:
        yield server


@pytest.fixture(scope="module")
def sdk() -> Iterator[HttpServer]:
    with http_server(SDK_TOOLS, script=True) as server:
        yield server


@pytest.fixture(params=["file", "url"])
def target(request: pytest.FixtureRequest) -> str:
    """The try server as a file, and as the URL of the same file served over HTTP."""
    if request.param == "file":
        return TRY
    server: HttpServer = request.getfixturevalue("served")
    return server.url


# --- list ------------------------------------------------------------------------------------


def test_list_shows_tools_resources_templates_and_prompts(target: str) -> None:
    proc = plainmcp("list", target)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == textwrap.dedent(
        """\
        tools (7):
          add: Add two integers.
            a (integer, required)
            b (integer, required)
          count: Count to n, reporting progress and logging each step.
            n (integer, required)
          greet: Ask the user for a name and an age.
            (no parameters)
          log: The whole log: 150,000 characters, more than one result holds.
            (no parameters)
          rows: Ten thousand rows, more than one result holds.
            (no parameters)
          photo: A photo too large to send inline.
            (no parameters)
          read_more: Read the next part of a result too large to send whole, with the ref that result gives; each part gives the ref of the next until none is left.
            ref (string, required): The ref, exactly as the result gave it.

        resources (2):
          notes://all  all_notes [text/plain]: Every note, one per line.
          files://logo.png  logo [image/png]: The logo.

        resource templates (1):
          notes://{id}  note [text/plain]: One note.

        prompts (1):
          summarize: Summarize the notes about a topic.
            topic (required)
            style (optional)
        """  # noqa: E501
    )


def test_list_json_is_what_the_server_sent(target: str) -> None:
    proc = plainmcp("list", target, "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    listed = json.loads(proc.stdout)
    assert list(listed) == [
        "serverInfo",
        "protocolVersion",
        "tools",
        "resources",
        "resourceTemplates",
        "prompts",
    ]
    assert (listed["serverInfo"], listed["protocolVersion"]) == (
        {"name": "try", "version": "1.0.0"},
        "2025-11-25",
    )
    assert listed["tools"][0] == {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "outputSchema": json.loads(RETURNS_INT),
    }
    assert [t["name"] for t in listed["tools"]] == [
        "add",
        "count",
        "greet",
        "log",
        "rows",
        "photo",
        "read_more",
    ]
    assert listed["resources"] == [
        {
            "uri": "notes://all",
            "name": "all_notes",
            "description": "Every note, one per line.",
            "mimeType": "text/plain",
        },
        {
            "uri": "files://logo.png",
            "name": "logo",
            "description": "The logo.",
            "mimeType": "image/png",
        },
    ]
    assert listed["resourceTemplates"] == [
        {
            "uriTemplate": "notes://{id}",
            "name": "note",
            "description": "One note.",
            "mimeType": "text/plain",
        }
    ]
    assert listed["prompts"] == [
        {
            "name": "summarize",
            "description": "Summarize the notes about a topic.",
            "arguments": [
                {"name": "topic", "required": True},
                {"name": "style", "required": False},
            ],
        }
    ]


def test_list_of_an_official_sdk_server(sdk: HttpServer) -> None:
    proc = plainmcp("list", sdk.url)
    assert (proc.returncode, proc.stderr) == (0, "")

    assert proc.stdout == textwrap.dedent(
        """\
        tools (5):
          add: Add two integers.
            a (integer, required)
            b (integer, required)
          count: Count to n, reporting progress and logging each step.
            n (integer, required)
          greet: Ask the user for a name.
            (no parameters)
          ask_model: Ask the client's model.
            prompt (string, required)
          roots: The client's roots.
            (no parameters)

        resources (0):

        resource templates (0):

        prompts (0):
        """
    )


# --- call ------------------------------------------------------------------------------------


def test_call_prints_progress_and_log_messages_on_stderr(target: str) -> None:
    proc = plainmcp("call", target, "count", "n=3")
    assert (proc.returncode, proc.stdout) == (0, "counted to 3\n")
    assert proc.stderr == (
        "progress 1/3: step 1\n[info] counted 1\n"
        "progress 2/3: step 2\n[info] counted 2\n"
        "progress 3/3: step 3\n[info] counted 3\n"
    )


def test_call_of_an_official_sdk_server(sdk: HttpServer) -> None:
    proc = plainmcp("call", sdk.url, "count", "n=2")
    assert proc.returncode == 0
    assert proc.stdout == "counted to 2\n"  # its {"result": text} is the text, shown once
    assert proc.stderr == (
        "progress 1/2: step 1\n[info] counted 1\nprogress 2/2: step 2\n[info] counted 2\n"
    )
    proc = plainmcp("call", sdk.url, "add", "a=2", "b=40", "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout) == {
        "content": [{"type": "text", "text": "42"}],
        "structuredContent": {"result": 42},
        "isError": False,
    }


def test_call_json_prints_the_result_as_sent(target: str) -> None:
    proc = plainmcp("call", target, "add", "a=2", "b=3", "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout) == {
        "content": [{"type": "text", "text": "5"}],
        "structuredContent": {"result": 5},
        "isError": False,
    }


def test_call_all_rebuilds_a_150000_character_text_exactly(target: str) -> None:
    cut = plainmcp("call", target, "log")
    assert cut.returncode == 0
    assert len(cut.stdout) < 50_000
    assert 'call the tool read_more with arguments {"ref":"' in cut.stdout

    proc = plainmcp("call", target, "log", "--all")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == long_text() + "\n"
    proc = plainmcp("call", target, "log", "--all", "--json")
    assert json.loads(proc.stdout) == {
        "content": [{"type": "text", "text": long_text()}],
        "isError": False,
    }


def test_call_all_rebuilds_a_cut_list_exactly(target: str) -> None:
    proc = plainmcp("call", target, "rows", "--all", "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    whole = json.loads(proc.stdout)
    rows = [{"id": i, "square": i * i} for i in range(10_000)]
    assert whole["structuredContent"] == {"result": rows}
    assert [json.loads(b["text"]) for b in whole["content"]] == [{"result": rows}]
    assert "_meta" not in whole


def test_call_all_reads_an_offloaded_image_back(target: str, tmp_path: Path) -> None:
    proc = plainmcp("call", target, "photo")
    assert proc.returncode == 0
    assert re.fullmatch(
        r"\[resource link\] plainmcp://blob/[A-Za-z0-9_-]+ image-1\.png"
        r" \[image/png, 2097152 bytes\]\n",
        proc.stdout,
    )
    proc = plainmcp("call", target, "photo", "--all", "--out", str(tmp_path))
    assert (proc.returncode, proc.stderr) == (0, "")
    image = tmp_path / "photo-1.png"
    assert proc.stdout == f"[image] {image} (image/png, 2097152 bytes)\n"
    assert image.read_bytes() == PHOTO


def test_call_asks_elicitation_on_the_terminal(target: str) -> None:
    term = Terminal(["call", target, "greet"])
    term.wait_for("Who are you?\nName: ")
    term.type("Ada")
    term.wait_for("Age: ")
    term.type("thirty-six")
    term.wait_for("  a whole number, e.g. 3\nAge: ")
    term.type("36")
    term.wait_for("colour (red/blue, default red): ")
    term.type("")
    assert term.finish() == (0, "Hello, Ada (36, red)!\n")


def test_call_ends_the_questions_with_cancel_at_end_of_input(target: str) -> None:
    term = Terminal(["call", target, "greet"])
    term.wait_for("Name: ")
    term.type("\x04")  # Ctrl-D on an empty line: end of input
    assert term.finish() == (0, "no answer (cancel)\n")


def test_call_fails_clearly_when_it_cannot_ask(target: str) -> None:
    proc = plainmcp("call", target, "greet")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.endswith(NO_TERMINAL.format("Who are you?"))


def test_call_of_an_sdk_server_that_asks_without_a_terminal(sdk: HttpServer) -> None:
    proc = plainmcp("call", sdk.url, "greet")
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", NO_TERMINAL.format("Your name?"))


def test_call_an_unknown_tool_names_the_list_command(target: str) -> None:
    proc = plainmcp("call", target, "nope")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "plainmcp call: no tool named 'nope' (tools: add, count, greet, log, rows, photo,"
        " read_more;"
        f" `plainmcp list {target}` lists them)\n"
    )


def test_arguments_the_server_rejects_exit_2_alike_for_a_file_and_a_url(target: str) -> None:
    proc = plainmcp("call", target, "add", "a=x", "b=1")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "plainmcp call: Invalid arguments for tool 'add':\n"
        '- a: Input should be a valid integer, got "x"\n'
        f"(`plainmcp list {target}` shows the parameters)\n"
    )


def test_arguments_an_sdk_server_rejects_exit_2_checked_by_the_tools_schema(
    sdk: HttpServer,
) -> None:
    """Another server's wording: the arguments fail the schema it listed, so it is a rejection."""
    proc = plainmcp("call", sdk.url, "add", "a=x", "b=1")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "plainmcp call: Invalid arguments for tool 'add':\n"
        "- a: 'x' is not of type 'integer'\n"
        "(by the tool's input schema; the server said: Error executing tool add: 1 validation"
        " error for addArguments a Input should be a valid integer, unable to parse string as an"
        " integer [type=int_parsing, input_value='x', input_type=str] For further information"
        " visit https://errors.pydantic.dev/2.14/v/int_parsing)\n"
        f"(`plainmcp list {sdk.url}` shows the parameters)\n"
    )


PICKY = """
from plainmcp import Server, ToolResult
from plainmcp.middleware import Middleware
from plainmcp.wire.jsonrpc import INVALID_PARAMS, RpcError


class Picky(Middleware):
    async def on_request(self, request, call_next):
        if request.method == "tools/call" and request.params["arguments"].get("a", 0) < 0:
            raise RpcError(INVALID_PARAMS, "a must not be negative")
        return await call_next(request)


app = Server("picky", middleware=[Picky()])


@app.tool
def half(a: int) -> float:
    \"\"\"Half of a.\"\"\"
    return a / 2


@app.tool
def check(n: int) -> ToolResult:
    \"\"\"Fails in words that look like a rejection, for arguments its schema takes.\"\"\"
    return ToolResult("Invalid arguments for tool 'other': n", is_error=True)
"""


def test_an_invalid_params_error_exits_2_alike_for_a_file_and_a_url(tmp_path: Path) -> None:
    """A server that answers bad arguments with the JSON-RPC error -32602, not an isError."""
    path = tmp_path / "picky.py"
    path.write_text(PICKY)
    with http_server(path) as server:
        for target in (str(path), server.url):
            proc = plainmcp("call", target, "half", "a=-1")
            assert (proc.returncode, proc.stdout) == (2, "")
            assert proc.stderr == (
                "plainmcp call: error -32602: a must not be negative\n"
                f"(`plainmcp list {target}` shows the parameters)\n"
            )
            assert plainmcp("call", target, "half", "a=3").stdout == "1.5\n"
            proc = plainmcp("call", target, "check", "n=1")
            assert (proc.returncode, proc.stdout) == (1, "")
            assert proc.stderr == "error: Invalid arguments for tool 'other': n\n"


# --- read ------------------------------------------------------------------------------------


def test_read_writes_text_to_stdout(target: str) -> None:
    proc = plainmcp("read", target, "notes://all")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "first note\nsecond note\n", "")
    proc = plainmcp("read", target, "notes://7")
    assert (proc.returncode, proc.stdout) == (0, "note 7")


def test_read_writes_bytes_to_a_file(target: str, tmp_path: Path) -> None:
    out = tmp_path / "logo.png"
    proc = plainmcp("read", target, "files://logo.png", "--out", str(out))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == f"files://logo.png -> {out} (1024 bytes)\n"
    assert out.read_bytes() == LOGO

    proc = plainmcp("read", target, "files://logo.png")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "plainmcp read: files://logo.png is binary (image/png, 1024 bytes): write it to a file"
        " with --out FILE\n"
    )


def test_read_json_and_an_unknown_uri(target: str) -> None:
    proc = plainmcp("read", target, "notes://all", "--json")
    assert json.loads(proc.stdout) == {
        "contents": [
            {"uri": "notes://all", "mimeType": "text/plain", "text": "first note\nsecond note\n"}
        ]
    }
    proc = plainmcp("read", target, "nowhere://x")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "plainmcp read: error -32002: Resource not found: nowhere://x\n"


# --- prompt ----------------------------------------------------------------------------------


def test_prompt_prints_the_messages(target: str) -> None:
    proc = plainmcp("prompt", target, "summarize", "topic=mcp", "style=long")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == (
        "# Summarize the notes about a topic.\n\n[user]\nSummarize my notes about mcp, long.\n"
    )
    proc = plainmcp("prompt", target, "summarize", "topic=mcp", "--json")
    assert json.loads(proc.stdout) == {
        "description": "Summarize the notes about a topic.",
        "messages": [
            {
                "role": "user",
                "content": {"type": "text", "text": "Summarize my notes about mcp, short."},
            }
        ],
    }


def test_prompt_errors(target: str) -> None:
    proc = plainmcp("prompt", target, "nope")
    assert (proc.returncode, proc.stderr) == (
        1,
        "plainmcp prompt: error -32602: Unknown prompt: nope\n",
    )
    proc = plainmcp("prompt", target, "summarize", "topic")
    assert (proc.returncode, proc.stderr) == (
        2,
        "plainmcp prompt: prompt arguments are key=value, not 'topic'\n",
    )


# --- reaching a URL --------------------------------------------------------------------------


DEPLOY = """
from plainmcp import BearerAuth, Principal, Server

app = Server("deploy")


@app.tool
def ping() -> str:
    return "pong"


def verify(token: str) -> Principal | None:
    return Principal("alice") if token == "s3cret" else None


web = app.http_app(auth=BearerAuth(verify, ["https://auth.example.com"]))
"""


def test_bearer_and_headers_reach_the_server(tmp_path: Path) -> None:
    deploy = tmp_path / "deploy.py"
    deploy.write_text(DEPLOY)
    with http_server(deploy) as server:
        proc = plainmcp("call", server.url, "ping", "--bearer", "s3cret")
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "pong\n", "")
        proc = plainmcp("call", server.url, "ping", "--header", "Authorization: Bearer s3cret")
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "pong\n", "")
        proc = plainmcp("call", server.url, "ping")
        assert (proc.returncode, proc.stdout) == (1, "")
        # Without a token the CLI logs in: this server's authorization server is not there.
        assert proc.stderr == (
            "plainmcp call: OAuth: no authorization server metadata for https://auth.example.com"
            " (or give a token: --bearer TOKEN)\n"
        )


def test_an_unreachable_url_exits_1_asking_whether_it_runs() -> None:
    from tests.http_server import free_port

    url = f"http://127.0.0.1:{free_port()}/mcp"
    proc = plainmcp("list", url)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr.startswith(f"plainmcp list: HTTP POST to {url} failed: ")
    assert proc.stderr.endswith("; is the server running, at that address?\n")


def test_a_wrong_path_names_the_endpoint(served: HttpServer) -> None:
    url = served.url.replace("/mcp", "/nope")
    proc = plainmcp("list", url)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == (
        "plainmcp list: HTTP 404: Not Found (is the URL's path the server's endpoint, often"
        " /mcp?)\n"
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["list", TRY, "--bearer", "x"],
            "plainmcp list: --header and --bearer are for a URL; a file is started over stdio,"
            " where whoever starts it is the client\n",
        ),
        (
            ["list", "http://127.0.0.1:9/mcp", "--header", "nocolon"],
            "plainmcp list: --header takes NAME:VALUE (e.g. --header 'X-Team: web'), not"
            " 'nocolon'\n",
        ),
    ],
)
def test_usage_errors_exit_2(args: list[str], error: str) -> None:
    proc = plainmcp(*args)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", error)


def test_call_on_a_terminal_draws_a_bar_instead_of_progress_lines() -> None:
    term = Terminal(["call", TRY, "count", "n=3"])
    term.wait_for("[info] counted 1")
    term.wait_for("[info] counted 3")
    assert term.finish() == (0, "counted to 3\n")
    assert "progress 1/3" not in term.screen  # rich's bar took the plain lines' place
