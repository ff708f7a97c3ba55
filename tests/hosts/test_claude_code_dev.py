"""Claude Code 2.1.328 on `plainmcp dev` over stdio: a tool added while it runs reaches its model.

Claude Code speaks 2026-07-28 and hears list changes on a subscriptions/listen stream. The
scripted model's first call makes the server add a tool to its own file; `plainmcp dev`
restarts it and tells the listen stream the tools changed; Claude Code lists them again, and
the model's next turn offers the new tool, which it calls. The model's turns wait on what the
relay records (a FIFO, tests/interop/relay.py) and on plainmcp dev's stderr, never on a sleep.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.cli.lines import Lines
from tests.hosts.claude_code import RELAY, ensure_claude, run_claude
from tests.hosts.scripts import Part, ToolUse, text_of
from tests.mcp_schemas import validate_relay_record

SERVER = '''
from pathlib import Path

from plainmcp import Server

app = Server("dev", continuation=None)


@app.tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"


@app.tool
def rewrite() -> str:
    """Add a tool to this server's own file."""
    path = Path(__file__)
    path.write_text(path.read_text().replace("# more" + " tools", ADDED))
    return "rewritten"


ADDED = """
@app.tool
def added() -> str:
    \\"\\"\\"A tool added while the host ran.\\"\\"\\"
    return "added here"
"""

# more tools
'''


@pytest.fixture
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="plainmcp-cc-dev-") as tmp:
        yield Path(tmp)


def mcp_tools(turn: dict[str, object]) -> list[str]:
    tools = turn["tools"]
    assert isinstance(tools, list)
    return sorted(t["name"] for t in tools if t["name"].startswith("mcp__"))


def test_claude_code_lists_the_tools_again_when_plainmcp_dev_restarts(folder: Path) -> None:
    ensure_claude()
    (folder / "server.py").write_text(SERVER)
    with (
        Lines.fifo(folder / "record.fifo") as record,
        Lines.fifo(folder / "stderr.fifo") as stderr,
    ):

        def script(results: Sequence[Sequence[Part]]) -> ToolUse | None:
            if not results:
                stderr.wait_for("watching 1 file for changes")
                return ToolUse("mcp__dev__rewrite")
            if len(results) == 1:
                # plainmcp dev restarted the server and told the listen stream; Claude Code
                # asked for the tools again and got the new list
                record.wait_for('"notifications/tools/list_changed"', timeout=60)
                asked = json.loads(record.wait_for('"method":"tools/list"')[2:])
                record.wait_for(f'S {{"jsonrpc":"2.0","id":{json.dumps(asked["id"])},"result"')
                return ToolUse("mcp__dev__greet", {"name": "ada"})
            if len(results) == 2:
                return ToolUse("mcp__dev__added")
            return None

        dev = [sys.executable, "-m", "plainmcp", "dev", str(folder / "server.py")]
        wrapped = ["sh", "-c", 'exec "$@" 2>"$0"', str(folder / "stderr.fifo"), *dev]
        entry = {
            "type": "stdio",
            "command": sys.executable,
            "args": [str(RELAY), str(folder / "record.fifo"), *wrapped],
        }
        run = run_claude({"dev": entry}, script, timeout=300)
    assert mcp_tools(run.turns[0]) == ["mcp__dev__greet", "mcp__dev__rewrite"]
    assert mcp_tools(run.turns[2]) == ["mcp__dev__added", "mcp__dev__greet", "mcp__dev__rewrite"]
    assert [text_of(parts) for parts in run.parts] == ["rewritten", "hello ada", "added here"]
    lines = record.lines
    assert lines[0].startswith('C {"jsonrpc":"2.0","id":"server-discover-probe-1"')
    listens = [json.loads(line[2:]) for line in lines if '"subscriptions/listen"' in line]
    assert [m["params"]["notifications"] for m in listens] == [
        {"toolsListChanged": True, "resourcesListChanged": True}
    ]
    changed = [line for line in lines if '"notifications/tools/list_changed"' in line]
    assert [json.loads(line[2:]) for line in changed] == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": listens[0]["id"]}},
        }
    ]
    saved = folder / "record.stdio"
    saved.write_text("".join(line + "\n" for line in lines))
    assert validate_relay_record(saved, "2026-07-28") >= 8
