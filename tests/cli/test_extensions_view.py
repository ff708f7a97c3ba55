"""`plainmcp list` and `plainmcp inspect` show a server's extensions (id and settings), each
tool's task support and, where the server offers the skills extension, its skills
(plainmcp.cli.extensions_view). Exact output, on both eras: a plainmcp server with extensions
(as a file over stdio and as a URL over HTTP: a vendor extension from 2026-07-28, plainmcp's
skills from 2025-11-25), and a server written by hand whose tools/list carries
`execution.taskSupport` (2025-11-25), which plainmcp's tools do not declare yet."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from plainmcp.cli.extensions_view import extension_lines, skill_lines, task_support
from tests.http_server import HttpServer, http_server

HERE = Path(__file__).resolve().parent
EXTENDED = str(HERE / "fixtures" / "extended_server.py")
BY_HAND = HERE / "fixtures" / "task_tools_server.py"
SKILL_MD = (
    b'---\nname: git-workflow\ndescription: "Branch, commit and review the way this team does."'
    b"\n---\n\nOne branch per change; squash on merge.\n"
)
"""The SKILL.md the fixture's skill is served as (plainmcp.skills writes it from its fields)."""
DIGEST = "sha256:" + hashlib.sha256(SKILL_MD).hexdigest()

LISTS = textwrap.dedent(
    """\
    tools (2):
      build: Build a target.
        target (string, required)
      read_more: Read the next part of a result too large to send whole, with the ref that result gives; each part gives the ref of the next until none is left.
        ref (string, required): The ref, exactly as the result gave it.

    resources (1):
      skill://git-workflow/SKILL.md  git-workflow [text/markdown]: Branch, commit and review the way this team does.

    resource templates (0):

    prompts (0):
    """  # noqa: E501
)
SKILLS_LINE = (
    '  io.modelcontextprotocol/skills {"directoryRead": true}: the server\'s skills, by'
    " skills/list and skills/get\n"
)
EXTENSIONS = (
    "extensions (2):\n"
    '  com.example/widgets {"colors": ["red", "blue"], "maxWidgets": 3}\n' + SKILLS_LINE + "\n"
)
EXTENSIONS_2025 = "extensions (1):\n" + SKILLS_LINE + "\n"
"""At 2025-11-25 the skills extension alone (the vendor one is offered from 2026-07-28)."""
SKILLS = textwrap.dedent(
    """
    skills (1):
      skill://git-workflow/SKILL.md  git-workflow: Branch, commit and review the way this team does. (1 file)
    """  # noqa: E501
)


def plainmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def served() -> Iterator[HttpServer]:
    with http_server(EXTENDED) as server:
        yield server


@pytest.fixture(params=["file", "url"])
def target(request: pytest.FixtureRequest) -> str:
    if request.param == "file":
        return EXTENDED
    server: HttpServer = request.getfixturevalue("served")
    return server.url


# --- plainmcp list ---------------------------------------------------------------------------


def test_list_shows_extensions_and_skills_at_2026_07_28(target: str) -> None:
    proc = plainmcp("list", target, "--protocol", "2026-07-28")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == EXTENSIONS + LISTS + SKILLS


def test_list_at_2025_11_25_shows_what_that_revision_is_offered(target: str) -> None:
    proc = plainmcp("list", target)  # the skills extension only: the other's since is 2026-07-28
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == EXTENSIONS_2025 + LISTS + SKILLS


def test_list_before_2025_11_25_shows_no_extension_and_no_skills(target: str) -> None:
    proc = plainmcp("list", target, "--protocol", "2025-06-18")  # skills/list: -32601
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == LISTS


def test_skills_not_served_to_a_handshake_client_are_not_listed(tmp_path: Path) -> None:
    """A server that serves skills only to a client that declared the extension at initialize
    (the seam's default refusal), which plainmcp's client does not: -32601, so no skills
    section."""
    early = tmp_path / "early.py"
    early.write_text(
        "from plainmcp import Server\n"
        "from plainmcp.extensions import Extension\n"
        "from plainmcp.skills import Skills\n\n"
        "class Gated(Skills):\n    refusal = Extension.refusal\n\n"
        "skills = Gated()\n"
        "skills.add('notes', description='Take notes.', body='')\n"
        "app = Server('early', version='1.0.0', extensions=[skills])\n"
    )
    proc = plainmcp("list", str(early))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.startswith(EXTENSIONS_2025 + "tools (1):\n")
    assert "skills (" not in proc.stdout


def test_list_json_adds_the_extensions_and_skills_as_sent() -> None:
    proc = plainmcp("list", EXTENDED, "--protocol", "2026-07-28", "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    listed = json.loads(proc.stdout)
    assert listed["extensions"] == {
        "com.example/widgets": {"maxWidgets": 3, "colors": ["red", "blue"]},
        "io.modelcontextprotocol/skills": {"directoryRead": True},
    }
    entry = {"uri": "skill://git-workflow/SKILL.md", "digest": DIGEST, "size": len(SKILL_MD)}
    assert listed["skills"] == [
        {
            "uri": "skill://git-workflow/SKILL.md",
            "frontmatter": {
                "name": "git-workflow",
                "description": "Branch, commit and review the way this team does.",
            },
            "resources": [entry],
        }
    ]
    handshake = json.loads(plainmcp("list", EXTENDED, "--json").stdout)
    assert handshake["extensions"] == {"io.modelcontextprotocol/skills": {"directoryRead": True}}
    assert handshake["skills"] == listed["skills"]
    older = json.loads(plainmcp("list", EXTENDED, "--protocol", "2025-06-18", "--json").stdout)
    assert "extensions" not in older and "skills" not in older


def test_list_shows_each_tools_task_support_at_2025_11_25() -> None:
    with http_server(BY_HAND, script=True) as server:
        proc = plainmcp("list", server.url)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == textwrap.dedent(
        """\
        tools (3):
          crawl: Crawl a site.
            url (string, required)
            runs as a task: optional
          report: Build the yearly report of a site.
            url (string, required)
            runs as a task: required
          ping: Whether a site answers.
            url (string, required)

        resources (0):

        resource templates (0):

        prompts (0):
        """
    )


# --- plainmcp inspect ------------------------------------------------------------------------

HEAD = "extended 1.0.0, as revision {} sees it\ncapabilities: {}\n"
CAPABILITIES = "logging, tools (listChanged), resources (subscribe, listChanged)"


def test_inspect_shows_extensions_and_skills_at_2026_07_28() -> None:
    proc = plainmcp("inspect", EXTENDED, "--revision", "2026-07-28")
    assert (proc.returncode, proc.stderr) == (0, "")
    head = HEAD.format("2026-07-28", CAPABILITIES + ", extensions")
    assert proc.stdout == head + "\n" + EXTENSIONS + LISTS + SKILLS


def test_inspect_at_2025_11_25_shows_the_skills_extension_only() -> None:
    proc = plainmcp("inspect", EXTENDED)
    assert (proc.returncode, proc.stderr) == (0, "")
    head = HEAD.format("2025-11-25", CAPABILITIES + ", extensions")
    assert proc.stdout == head + "\n" + EXTENSIONS_2025 + LISTS + SKILLS


def test_inspect_before_2025_11_25_shows_no_extension() -> None:
    proc = plainmcp("inspect", EXTENDED, "--revision", "2025-06-18")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == HEAD.format("2025-06-18", CAPABILITIES) + "\n" + LISTS


def test_inspect_json_lists_skills_only_where_offered() -> None:
    proc = plainmcp("inspect", EXTENDED, "--json")
    assert (proc.returncode, proc.stderr) == (0, "")
    revisions = json.loads(proc.stdout)["revisions"]
    assert [v for v, got in revisions.items() if "skills" in got] == ["2025-11-25", "2026-07-28"]
    for version in ("2025-11-25", "2026-07-28"):
        assert [s["uri"] for s in revisions[version]["skills"]] == ["skill://git-workflow/SKILL.md"]
    assert revisions["2025-11-25"]["capabilities"]["extensions"] == {
        "io.modelcontextprotocol/skills": {"directoryRead": True},
    }
    assert revisions["2026-07-28"]["capabilities"]["extensions"] == {
        "com.example/widgets": {"maxWidgets": 3, "colors": ["red", "blue"]},
        "io.modelcontextprotocol/skills": {"directoryRead": True},
    }


# --- the lines themselves --------------------------------------------------------------------


def test_the_official_extensions_say_what_they_mean() -> None:
    assert extension_lines({"io.modelcontextprotocol/tasks": {}, "a.b/c": {"x": 1}}) == [
        "extensions (2):",
        "  io.modelcontextprotocol/tasks {}: a tool call may become a task; the server decides"
        " per call",
        '  a.b/c {"x": 1}',
    ]


@pytest.mark.parametrize(
    ("execution", "line"),
    [
        ({"taskSupport": "optional"}, "    runs as a task: optional"),
        ({"taskSupport": "required"}, "    runs as a task: required"),
        ({"taskSupport": "forbidden"}, None),
        ({}, None),
        ("required", None),
    ],
)
def test_task_support_is_shown_when_a_tool_may_run_as_a_task(
    execution: object, line: str | None
) -> None:
    assert task_support({"name": "t", "execution": execution}) == line


def test_a_dynamic_skill_and_a_skill_of_many_files() -> None:
    front = {"name": "n", "description": "D."}
    files = [{"uri": "skill://n/SKILL.md"}, {"uri": "skill://n/a.md"}]
    assert skill_lines(
        [
            {"uri": "skill://n/SKILL.md", "frontmatter": front, "resources": "dynamic"},
            {"uri": "skill://n/SKILL.md", "frontmatter": front, "resources": files},
        ]
    ) == [
        "skills (2):",
        "  skill://n/SKILL.md  n: D. (dynamic)",
        "  skill://n/SKILL.md  n: D. (2 files)",
    ]
