"""plainmcp inspect: what each revision's client is offered, read from the Server itself.

The snapshot of examples/everything_server.py is tests/snapshots/inspect_everything.json. After a
deliberate change to what the server offers, update it with

    python -m plainmcp inspect examples/everything_server.py --json \
        > tests/snapshots/inspect_everything.json

and review the diff.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from plainmcp.cli.inspect import offer
from plainmcp.cli.target import load_server
from plainmcp.wire.revisions import HANDSHAKE_VERSIONS, REVISIONS
from tests.conftest import Session

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / "examples" / "everything_server.py"
SNAPSHOT = ROOT / "tests" / "snapshots" / "inspect_everything.json"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def inspect(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", "inspect", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def test_everything_server_matches_the_snapshot() -> None:
    proc = inspect(str(EVERYTHING), "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == SNAPSHOT.read_text(), (
        "inspect --json changed: update the snapshot as this module's docstring says"
    )


async def listed(session: Session, method: str, key: str) -> list[Any]:
    items: list[Any] = []
    cursor = None
    while True:
        page = await session.result(method, {"cursor": cursor} if cursor else None)
        items += page[key]
        cursor = page.get("nextCursor")
        if not cursor:
            return items


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_the_offer_is_what_a_client_of_the_revision_gets(version: str) -> None:
    server = load_server(str(EVERYTHING))
    expected = offer(server, REVISIONS[version])
    async with Session(server) as session:
        init = await session.initialize(version)
        got = {
            "serverInfo": init["serverInfo"],
            "capabilities": init["capabilities"],
            "tools": await listed(session, "tools/list", "tools"),
            "resources": await listed(session, "resources/list", "resources"),
            "resourceTemplates": await listed(
                session, "resources/templates/list", "resourceTemplates"
            ),
            "prompts": await listed(session, "prompts/list", "prompts"),
        }
    assert got == expected
    assert init["instructions"] == server.instructions


SMALL = """
from plainmcp import Server

print("imported")  # must not reach the report
app = Server("small", version="2.0.0", title="Small", instructions="Be brief.", continuation=None)

@app.tool
def add(a: int, b: int = 1) -> int:
    \"\"\"Add two integers.

    More text that the summary leaves out.\"\"\"
    return a + b

@app.resource("note://today", mime_type="text/plain")
def today() -> str:
    \"\"\"Today's note.\"\"\"
    return "hi"

@app.resource("note://{day}")
def note(day: str) -> str:
    return day

@app.prompt
def review(code: str, style: str = "short") -> str:
    \"\"\"Review some code.\"\"\"
    return code
"""


def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.py"
    path.write_text(textwrap.dedent(SMALL))
    return path


def test_human_output(tmp_path: Path) -> None:
    proc = inspect(str(small(tmp_path)))
    assert (proc.returncode, proc.stderr) == (0, "imported\n")
    assert proc.stdout == textwrap.dedent(
        """\
        small 2.0.0 (Small), as revision 2025-11-25 sees it
        instructions: Be brief.
        capabilities: logging, tools (listChanged), resources (subscribe, listChanged), \
prompts (listChanged), completions

        tools (1):
          add: Add two integers.
            a (integer, required)
            b (integer, default 1)
            returns: {"type": "object", "properties": {"result": {"type": "integer"}}, \
"required": ["result"]}

        resources (1):
          note://today  today [text/plain]: Today's note.

        resource templates (1):
          note://{day}  note

        prompts (1):
          review: Review some code.
            code (required)
            style (optional)
        """
    )


def test_human_output_of_an_older_revision(tmp_path: Path) -> None:
    proc = inspect(str(small(tmp_path)), "--revision", "2024-11-05")
    assert proc.returncode == 0
    head, tools = proc.stdout.split("\n\n")[:2]
    assert head == (
        "small 2.0.0, as revision 2024-11-05 sees it\ninstructions: Be brief.\n"
        "capabilities: logging, tools (listChanged), resources (subscribe, listChanged),"
        " prompts (listChanged)"
    )
    assert "returns:" not in tools  # 2024-11-05 has no output schemas


def test_json_of_one_revision(tmp_path: Path) -> None:
    path = small(tmp_path)
    proc = inspect(str(path), "--json", "--revision", "2025-03-26")
    assert (proc.returncode, proc.stderr) == (0, "imported\n")
    report = json.loads(proc.stdout)
    assert list(report["revisions"]) == ["2025-03-26"]
    assert report["instructions"] == "Be brief."
    assert report["revisions"]["2025-03-26"]["tools"] == [
        {
            "name": "add",
            "description": "Add two integers.\n\nMore text that the summary leaves out.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "integer", "default": 1},
                },
                "required": ["a"],
                "additionalProperties": False,
            },
        }
    ]


def test_exit_codes(tmp_path: Path) -> None:
    proc = inspect(str(tmp_path / "missing.py"))
    assert (proc.returncode, proc.stderr) == (
        2,
        f"plainmcp inspect: {tmp_path}/missing.py does not exist\n",
    )
    broken = tmp_path / "broken.py"
    broken.write_text("def broken(:\n")
    proc = inspect(str(broken), "--json")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.endswith(f"plainmcp inspect: importing {broken} failed (see above)\n")
    proc = inspect(str(small(tmp_path)), "--revision", "1999-01-01")
    assert proc.returncode == 2
    assert "argument --revision: invalid choice: '1999-01-01'" in proc.stderr
