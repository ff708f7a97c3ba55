"""plainmcp dev over stdio with 2026-07-28 clients: their subscriptions/listen stream stays open
across restarts and hears tools/list_changed once per change (a body edit, a new signature, a
new tool), from plainmcp's own Client at its default revision and from the TypeScript SDK's.

The dev server's stderr reaches the test through a FIFO, so the test waits for "watching ..."
and "restarted in ..." lines instead of sleeping."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from plainmcp import Client
from plainmcp.client import McpError
from tests.cli.lines import Lines
from tests.interop.tools import ensure_ts_client, node22_bin, requires_interop_tools

pytestmark = pytest.mark.anyio

BODY = """
from plainmcp import Server

app = Server("reloading", continuation=None)


@app.tool
def greet(name: str) -> str:
    \"\"\"Greet someone.\"\"\"
    return f"hello {name}"
"""
EDITS = {
    "body": BODY.replace('f"hello {name}"', 'f"hi {name}"'),
    "signature": BODY.replace("(name: str)", "(name: str, times: int = 1)").replace(
        'f"hello {name}"', '" ".join([f"hi {name}"] * times)'
    ),
}
EDITS["new tool"] = EDITS["signature"] + textwrap.dedent(
    """

    @app.tool
    def shout(text: str) -> str:
        \"\"\"Upper-case the text.\"\"\"
        return text.upper()
    """
)
GREET = {"name": {"type": "string"}}
DEV = [sys.executable, "-m", "plainmcp", "dev"]
TIMES = {"times": {"type": "integer", "default": 1}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def dev_command(folder: Path, stderr: Path) -> list[str]:
    """The command that starts `plainmcp dev folder/server.py` with its stderr on `stderr`."""
    return ["sh", "-c", 'exec "$@" 2>"$0"', str(stderr), *DEV, str(folder / "server.py")]


@contextlib.contextmanager
def dev_stderr(folder: Path) -> Iterator[tuple[Lines, list[str]]]:
    """The lines `plainmcp dev` writes to stderr, and the command that starts it so."""
    fifo = folder / "stderr.fifo"
    with Lines.fifo(fifo) as lines:
        yield lines, dev_command(folder, fifo)


async def wait(lines: Lines, text: str) -> str:
    return await anyio.to_thread.run_sync(lines.wait_for, text)


def schemas(tools: list[Any]) -> dict[str, dict[str, Any]]:
    return {tool.name: tool.input_schema["properties"] for tool in tools}


async def test_plainmcp_s_client_at_its_default_revision_hears_each_change_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "server.py").write_text(BODY)
    heard: list[str] = []
    arrived = anyio.Event()

    async def on_list_changed(feature: str) -> None:
        nonlocal arrived
        heard.append(feature)
        arrived.set()

    with dev_stderr(tmp_path) as (lines, command):
        async with Client.stdio(*command, on_list_changed=on_list_changed) as client:
            assert client.protocol_version == "2026-07-28"
            assert schemas(await client.list_tools()) == {"greet": GREET}
            assert (await client.call_tool("greet", {"name": "ada"})).text == "hello ada"
            await wait(lines, "watching 1 file for changes")

            for count, (edit, source) in enumerate(EDITS.items(), start=1):
                arrived = anyio.Event()
                (tmp_path / "server.py").write_text(source)
                with anyio.fail_after(30):
                    await arrived.wait()
                await wait(lines, "restarted in")
                tools = await client.list_tools()
                # once per change, no more: tools, and resources (offered too, so asked for)
                assert Counter(heard) == {"tools": count, "resources": count}, edit
                if edit == "body":
                    assert schemas(tools) == {"greet": GREET}
                    assert (await client.call_tool("greet", {"name": "ada"})).text == "hi ada"
                elif edit == "signature":
                    assert schemas(tools) == {"greet": {**GREET, **TIMES}}
                    result = await client.call_tool("greet", {"name": "ada", "times": 2})
                    assert result.text == "hi ada hi ada"
                else:
                    assert schemas(tools) == {
                        "greet": {**GREET, **TIMES},
                        "shout": {"text": {"type": "string"}},
                    }
                    assert (await client.call_tool("shout", {"text": "hey"})).text == "HEY"
            assert Counter(heard) == {"tools": 3, "resources": 3}


CRASHES = BODY + textwrap.dedent(
    """

    @app.tool
    def crash() -> str:
        \"\"\"End the server process.\"\"\"
        import os

        os._exit(3)
    """
)


async def test_a_listen_outlives_a_crash_and_hears_the_fixed_version(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(CRASHES)
    heard: list[str] = []
    arrived = anyio.Event()

    async def on_list_changed(feature: str) -> None:
        heard.append(feature)
        arrived.set()

    with dev_stderr(tmp_path) as (lines, command):
        async with Client.stdio(*command, cwd=tmp_path, on_list_changed=on_list_changed) as client:
            await wait(lines, "watching 1 file for changes")
            with pytest.raises(McpError) as crashed:
                await client.call_tool("crash")
            assert str(crashed.value) == (
                "the server is not running (it exited with code 3); plainmcp dev starts it"
                " again when you save server.py (code -32603)"
            )
            await wait(lines, "the server exited (code 3)")
            (tmp_path / "server.py").write_text(BODY)
            with anyio.fail_after(30):
                await arrived.wait()
            await wait(lines, "restarted in")
            assert schemas(await client.list_tools()) == {"greet": GREET}
            assert Counter(heard) == {"tools": 1, "resources": 1}


WITH_A_RESOURCE = BODY + textwrap.dedent(
    """

    @app.resource("notes://today")
    def today() -> str:
        \"\"\"Today's note.\"\"\"
        return "nothing yet"
    """
)


async def test_a_listen_the_client_replaced_is_not_kept(tmp_path: Path) -> None:
    # Subscribing reopens the client's listen with the URI: the relay forgets the cancelled
    # one, so a restart sends each notification once, on the stream that is open.
    (tmp_path / "server.py").write_text(WITH_A_RESOURCE)
    heard: list[str] = []
    arrived = anyio.Event()

    async def on_list_changed(feature: str) -> None:
        heard.append(feature)
        arrived.set()

    with dev_stderr(tmp_path) as (lines, command):
        async with Client.stdio(*command, on_list_changed=on_list_changed) as client:
            await client.subscribe("notes://today")
            await wait(lines, "watching 1 file for changes")
            (tmp_path / "server.py").write_text(WITH_A_RESOURCE.replace("nothing yet", "a walk"))
            with anyio.fail_after(30):
                await arrived.wait()
            await wait(lines, "restarted in")
            assert (await client.read_resource("notes://today")).text == "a walk"
            assert Counter(heard) == {"tools": 1, "resources": 1}


TS_CLIENT = Path(__file__).resolve().parents[1] / "interop" / "ts_stdio_listen.mjs"


class Records:
    """The JSON lines a client program prints, waited for by kind."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines

    async def next(self, kind: str) -> dict[str, Any]:
        line = await wait(self.lines, f'{{"kind":"{kind}"')
        record: dict[str, Any] = json.loads(line)
        return record

    def count(self, kind: str) -> int:
        return sum(1 for line in self.lines.lines if line.startswith(f'{{"kind":"{kind}"'))


@requires_interop_tools()
async def test_the_typescript_sdk_client_hears_each_change_once_and_lists_again(
    tmp_path: Path,
) -> None:
    ensure_ts_client()
    (tmp_path / "server.py").write_text(BODY)
    with dev_stderr(tmp_path) as (lines, command):
        job = {"command": command[0], "args": command[1:], "cwd": str(tmp_path)}
        node = subprocess.Popen(
            [str(node22_bin()), str(TS_CLIENT), json.dumps(job)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=TS_CLIENT.parent,
        )
        assert node.stdin is not None and node.stdout is not None
        records = Records(Lines(node.stdout))

        def send(command: dict[str, Any]) -> None:
            assert node.stdin is not None
            node.stdin.write(json.dumps(command) + "\n")
            node.stdin.flush()

        try:
            assert await records.next("connected") == {
                "kind": "connected",
                "protocolVersion": "2026-07-28",
                "era": "modern",
                "listening": {"toolsListChanged": True},
            }
            assert (await records.next("tools"))["tools"] == {"greet": GREET}
            await wait(lines, "watching 1 file for changes")
            expected = {
                "body": ({"greet": GREET}, ("greet", {"name": "ada"}), "hi ada"),
                "signature": (
                    {"greet": {**GREET, **TIMES}},
                    ("greet", {"name": "ada", "times": 2}),
                    "hi ada hi ada",
                ),
                "new tool": (
                    {"greet": {**GREET, **TIMES}, "shout": {"text": {"type": "string"}}},
                    ("shout", {"text": "hey"}),
                    "HEY",
                ),
            }
            for count, (edit, source) in enumerate(EDITS.items(), start=1):
                tools, (name, arguments), text = expected[edit]
                (tmp_path / "server.py").write_text(source)
                changed = await records.next("changed")  # the SDK listed the tools again
                assert changed == {"kind": "changed", "tools": tools}, edit
                await wait(lines, "restarted in")
                send({"call": name, "arguments": arguments})
                assert await records.next("call") == {"kind": "call", "text": text}
                assert records.count("changed") == count, edit  # once per change, no more
            send({"list": True})
            assert (await records.next("tools"))["tools"] == expected["new tool"][0]
            node.stdin.close()
            assert await records.next("done") == {"kind": "done"}
            assert node.wait(30) == 0
            assert records.count("changed") == 3
        finally:
            if node.poll() is None:
                node.kill()
                node.wait()
