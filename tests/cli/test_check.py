"""`plainmcp check`: the examples pass, the planted server fails with each problem named, and the
command's usage errors exit 2."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from plainmcp.cli.check import run_check
from plainmcp.hosts.profiles import GENERIC, PROFILES, Cell
from tests.mcp_schemas import schemas_dir

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "examples" / "demo_server.py")
EVERYTHING = str(ROOT / "examples" / "everything_server.py")
PLANTED = str(Path(__file__).parent / "fixtures" / "planted_server.py")
EVERY = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
LONG = "summarize_every_open_ticket_of_the_support_queue_by_priority"

# The conformance suite fixes these names and this schema (examples/everything_server.py).
EVERYTHING_IGNORES = [
    "--ignore=name-rejected",
    "--ignore=schema-ref:tool json_schema_2020_12_tool",
    "--ignore=missing-description:tool json_schema_2020_12_tool",
]


@pytest.fixture(autouse=True)
def _every_connection_is_validated() -> None:
    """Not here: the planted server writes invalid definitions on purpose (check reports them)."""


def check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command, with the schemas from $PLAINMCP_MCP_SCHEMAS (tests/conftest.py sets it)."""
    return subprocess.run(
        [sys.executable, "-m", "plainmcp", "check", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )


def report(*args: str, config: bool = False) -> tuple[int, dict[str, Any]]:
    """The JSON report for the generic profile (the table's rows come and go), without the
    project's own [tool.plainmcp.check] unless `config` (it would hide planted problems)."""
    done = check(*args, "--json", "--host", "generic", *([] if config else ["--no-config"]))
    return done.returncode, json.loads(done.stdout)


def named(
    problems: list[dict[str, Any]],
) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
    return [
        (p["code"], p["subject"], tuple(p.get("revisions", ())), tuple(p.get("hosts", ())))
        for p in problems
    ]


def test_the_demo_server_passes_with_its_examples_called() -> None:
    code, found = report(DEMO)
    assert code == 0
    assert found == {
        "target": DEMO,
        "server": "plainmcp-demo",
        "counts": {"prompts": 0, "resourceTemplates": 0, "resources": 0, "tools": 12},
        "revisions": EVERY,
        "hosts": ["generic"],
        "samples": [
            {"tool": "add", "arguments": {"a": 2, "b": 3}, "from": "example 1"},
            {"tool": "stats", "arguments": {"numbers": [1, 2, 3.5]}, "from": "example 1"},
        ],
        "problems": [],
        "ignored": 0,
        "ok": True,
        "schema_validation": {"run": True},
    }


def test_the_demo_server_in_plain_text_with_the_import_time() -> None:
    done = check(DEMO, "--call", "greet", "name=Ada", "--host", "generic")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"plainmcp check {DEMO}: server 'plainmcp-demo', 12 tools, 0 prompts, 0 resources,"
        " 0 resource templates"
    )
    assert lines[1] == (
        "checked at 5 revisions (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)"
        " for 1 host profile (generic), 3 sample calls"
    )
    assert re.fullmatch(
        r"import took \d+\.\d\d s; heaviest: plainmcp\.demo \d+\.\d\d s.*", lines[2]
    )
    assert lines[3:] == ["no problems found"]
    assert done.stderr == ""


def test_without_host_every_profile_is_checked() -> None:
    done = check(DEMO, "--json")
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["hosts"] == [p.key for p in PROFILES]


def test_the_everything_server_passes_but_for_what_the_conformance_suite_fixes() -> None:
    code, found = report(EVERYTHING)
    assert code == 1
    assert named(found["problems"]) == [
        ("schema-ref", "tool json_schema_2020_12_tool", (), ()),
        ("missing-description", "tool json_schema_2020_12_tool parameter address", (), ()),
        ("missing-description", "tool json_schema_2020_12_tool parameter name", (), ()),
        ("name-rejected", "tool test_input_required_result_capabilities", (), ()),
        ("name-rejected", "tool test_input_required_result_multiple_inputs", (), ()),
        ("name-rejected", "tool test_input_required_result_multiple_inputs", (), ()),
        ("name-rejected", "tool test_input_required_result_request_state", (), ()),
        ("name-rejected", "tool test_input_required_result_tampered_state", (), ()),
        ("name-rejected", "tool test_input_required_result_tampered_state", (), ()),
    ]
    code, found = report(EVERYTHING, *EVERYTHING_IGNORES)
    assert (code, found["problems"], found["ignored"], found["ok"]) == (0, [], 9, True)
    # The project's pyproject.toml lists the same in [tool.plainmcp.check].
    code, found = report(EVERYTHING, config=True)
    assert (code, found["problems"], found["ignored"]) == (0, [], 9)
    assert found["counts"] == {"prompts": 5, "resourceTemplates": 1, "resources": 5, "tools": 35}


def test_every_example_passes_with_the_projects_config() -> None:
    for example in sorted((ROOT / "examples").glob("*.py")):
        if example.name.startswith("conformance_"):
            continue  # the conformance suite's client and its scenarios: a client, no server
        done = check(str(example))
        assert done.returncode == 0, (example.name, done.stdout, done.stderr)


IGNORED_BY_CONFIG = ("stdout-at-import", "missing-description")


def test_a_config_ignore_list_is_read_from_the_nearest_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.plainmcp.check]\nignore = ["stdout-at-import", "missing-description"]\n'
    )
    shutil.copy(PLANTED, tmp_path / "planted.py")
    _, everything = report(str(tmp_path / "planted.py"))
    left_out = [p for p in everything["problems"] if p["code"] in IGNORED_BY_CONFIG]
    assert len(left_out) == 4  # the stdout write, a tool and two parameters undescribed
    code, found = report(str(tmp_path / "planted.py"), config=True)
    assert code == 1
    assert found["problems"] == [p for p in everything["problems"] if p not in left_out]
    assert found["ignored"] == 4
    (tmp_path / "pyproject.toml").write_text("[tool.plainmcp.check]\nignore = 'all'\n")
    done = check(str(tmp_path / "planted.py"))
    assert done.returncode == 2
    assert done.stderr.endswith(
        f"{tmp_path / 'pyproject.toml'}: [tool.plainmcp.check] ignore must be a list of strings"
        " ('CODE' or 'CODE:SUBJECT')\n"
    )


def test_the_planted_server_fails_naming_each_problem_and_its_fix() -> None:
    code, found = report(PLANTED)
    assert code == 1
    assert named(found["problems"]) == [
        ("never-run", "module", (), ()),
        ("stdout-at-import", "module", (), ()),
        ("call-error", "tool asks call {}", ("2026-07-28",), ()),
        ("schema-invalid", "tool bad_icon", ("2025-11-25", "2026-07-28"), ()),
        ("example-invalid", 'tool big call {"n":"three"}', tuple(EVERY), ()),
        ("schema-ref", "tool count_nodes", (), ()),
        ("rest-lost", "tool cut call {}", tuple(EVERY), ("generic",)),
        ("untyped-parameter", "tool echo parameter value", (), ()),
        ("name-rejected", f"tool {LONG}", (), ()),
        ("name-rejected", f"tool {LONG}", (), ()),
        ("missing-description", "tool undocumented", (), ()),
        ("missing-description", "tool undocumented parameter count", (), ()),
        ("schema-ref", "tool with_ref", (), ()),
        ("missing-description", "tool with_ref parameter point", (), ()),
    ]
    undescribed = (
        "the parameter has no description and the tool's description does not name it;"
        " describe it in the docstring's Args: section ({}: what it is), with"
        ' Annotated[..., "what it is"], or name it in the tool\'s description'
    )
    not_resolved = "many clients do not resolve $ref, so their model sees the pointer"
    assert [p["message"] for p in found["problems"]] == [
        f"`python {PLANTED}` would exit at once: nothing in the file serves app when it is run as"
        ' a script; end it with `if __name__ == "__main__": app.run()`, or have the host start it'
        f" with `plainmcp run {PLANTED}`",
        "27 characters written to stdout at import (first line: 'loading the planted server');"
        " a stdio server's stdout is its protocol stream: print to stderr (print(...,"
        " file=sys.stderr)) or log with logging",
        'error {"code": -32021, "data": {"requiredCapabilities": {"elicitation": {}}},'
        ' "message": "the client did not declare the \'elicitation\' capability, so'
        ' elicitation/create cannot be sent to it"}; check answers no questions: leave a tool'
        " that asks the client out of its samples",
        "at $.icons[0].theme: 'bright' is not one of ['dark', 'light']; change what the server"
        " sends there (the definition Tool of the official schema says what it may hold)",
        "Invalid arguments for tool 'big': - n: Input should be a valid integer, got \"three\";"
        " fix example 1 in @app.tool(examples=[...]) to match the parameters",
        "inputSchema has a $ref to #/$defs/Tree at $.properties.tree.properties.children.items,"
        f" $.$defs.Tree.properties.children.items; {not_resolved}: the type refers to itself, so"
        " it cannot be inlined: give it a fixed depth (a type whose children are another type,"
        " without children)",
        "the result was cut and the rest is only at plainmcp://blob/abc123; the host cannot (or"
        " is not known to) read resources, and no text it shows says which tool call returns the"
        " rest; say it in the text (`call the tool NAME with arguments {...}.`), as plainmcp's"
        " own cuts do while its continuation tool is on (read_more, the default)",
        "the parameter's schema has no type, so the model is told it takes any value (`plainmcp"
        ' list` shows it as any); annotate it (value: int, say), or give it a "type" in a'
        " hand-written input schema",
        f"{LONG!r} is 67 characters as Cursor names it (planted{LONG}), over its 59; rename the"
        " tool with @app.tool(name=...), or install the server under a shorter name (plainmcp"
        " install --name). Source: https://github.com/ComposioHQ/composio/issues/2788 (Cursor"
        " filters out a tool whose server name and tool name together reach 60 characters)",
        f"{LONG!r} is 74 characters as Claude Code names it (mcp__planted__{LONG}), over its 64;"
        " rename the tool with @app.tool(name=...), or install the server under a shorter name"
        " (plainmcp install --name). Source: https://github.com/anthropics/claude-code/issues/"
        "19882 (the Anthropic API refuses a tool name over 64 characters, and Claude Code"
        " prefixes mcp__SERVER__)",
        "the tool has no description; give the function a docstring (its first paragraph is the"
        " description the model reads) or @app.tool(description=...)",
        undescribed.format("count"),
        f"inputSchema has a $ref to #/$defs/point at $.properties.point; {not_resolved}: inline"
        " the definition in the schema (plainmcp inlines the schemas it derives from"
        " annotations; this one was written by hand)",
        undescribed.format("point"),
    ]


def test_the_readmes_quickstart_passes(tmp_path: Path) -> None:
    """README.md's server.py, as a reader copies it: its parameters are named in the tools'
    descriptions ("Divide a by b."), and it ends by running the server."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    source = readme.split("<!-- snippet: file=server.py -->\n```python\n", 1)[1].split("```")[0]
    (tmp_path / "server.py").write_text(source, encoding="utf-8")
    code, found = report(str(tmp_path / "server.py"))
    assert (code, found["problems"], found["ignored"]) == (0, [], 0)
    assert found["counts"] == {"prompts": 1, "resourceTemplates": 1, "resources": 0, "tools": 4}


STRICT = GENERIC._replace(
    key="strict",
    title="Strict host",
    reads=Cell("structured", "this test"),
    error_blocks=Cell("first", "this test"),
    images=Cell("dropped", "this test"),
    limit=Cell(2500, "this test"),
    reads_resources=Cell(False, "this test"),
)


def test_sample_calls_are_read_the_way_each_host_profile_reads_them() -> None:
    found = run_check(PLANTED, profiles=[STRICT], cost=False)
    assert found.hosts == ("strict",)
    by_host = [(p.code, p.subject, p.revisions, p.message) for p in found.problems if p.hosts]
    structured = ("2025-06-18", "2025-11-25", "2026-07-28")
    assert by_host == [
        (
            "over-limit",
            'tool big call {"n":3}',
            tuple(EVERY),
            "3000 characters reach the model, about 750 tokens (characters/4), over Strict"
            " host's limit of 2500 characters (about 625 tokens); return less, or hold the tool"
            " to the host's limit (@app.tool(limits=PayloadLimits(text_result=2500))) so that"
            " plainmcp cuts it and the model reads the rest with read_more",
        ),
        (
            "rest-lost",
            "tool cut call {}",
            tuple(EVERY),
            "the result was cut and the rest is only at plainmcp://blob/abc123; the host cannot"
            " (or is not known to) read resources, and no text it shows says which tool call"
            " returns the rest; say it in the text (`call the tool NAME with arguments {...}.`),"
            " as plainmcp's own cuts do while its continuation tool is on (read_more, the"
            " default)",
        ),
        (
            "text-differs",
            "tool disagree call {}",
            structured,
            "the text and structuredContent differ; the host hands its model only the"
            " structuredContent, so what only the text says is lost; put every fact in both, or"
            " return the value alone and let plainmcp write the text",
        ),
        (
            "image-only",
            "tool picture call {}",
            tuple(EVERY),
            "the result is image content with no text, which the host drops: its model gets"
            " nothing; add a text block that describes it",
        ),
        (
            "first-block-only",
            "tool two_block_error call {}",
            tuple(EVERY),
            "the error has 2 content blocks; the host hands its model only the first: say"
            " everything the model needs in one block (raise ToolError with the whole message)",
        ),
    ]
    assert all(p.hosts == ("strict",) for p in found.problems if p.hosts)


def test_call_runs_a_sample_and_an_unknown_tool_is_a_usage_error() -> None:
    code, found = report(PLANTED, "--call", "big", "n=1", "--ignore=example-invalid")
    assert code == 1
    assert found["samples"][0] == {"tool": "big", "arguments": {"n": 1}, "from": "--call"}
    assert found["ignored"] == 1
    done = check(PLANTED, "--call", "nope")
    assert done.returncode == 2
    assert done.stderr.startswith("plainmcp check: --call: no tool named 'nope' (tools: ")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["--host", "nobody"],
            "plainmcp check: --host: no host profile 'nobody' (known:"
            f" {', '.join(p.key for p in PROFILES)})",
        ),
        (["--ignore", "typo"], "plainmcp check: --ignore: no problem code 'typo' (codes: "),
    ],
)
def test_usage_errors_exit_2(args: list[str], error: str) -> None:
    done = check(DEMO, *args)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(error)


def test_a_module_that_fails_to_import_is_a_problem(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text(
        "from plainmcp import Server\napp = Server('b')\nraise RuntimeError('no db')\n"
    )
    code, found = report(str(broken))
    assert code == 1
    assert found["problems"] == [
        {
            "code": "import-failed",
            "subject": "module",
            "message": "RuntimeError: no db; the module must import without an error (`plainmcp"
            f" run {broken}` shows the whole traceback)",
        }
    ]


def test_timings_appear_in_json_only_when_asked() -> None:
    _, found = report(DEMO, "--timings")
    assert set(found["import"]) == {"total_us", "heaviest"}
    assert found["import"]["heaviest"][0]["module"] == "plainmcp.demo"
    assert found["import"]["total_us"] > 0


def test_schemas_option_comes_before_the_variable(tmp_path: Path) -> None:
    nowhere = {"PLAINMCP_MCP_SCHEMAS": str(tmp_path / "nowhere")}
    done = check(DEMO, "--json", "--host", "generic", "--schemas", str(schemas_dir()), env=nowhere)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    done = check(DEMO, "--json", env=nowhere)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"plainmcp check: $PLAINMCP_MCP_SCHEMAS {tmp_path / 'nowhere'}:"
        f" {tmp_path / 'nowhere' / '2024-11-05' / 'schema.json'}: No such file or directory;"
        " the folder must hold <revision>/schema.json for each MCP revision (the schema/ folder"
        " of a checkout of github.com/modelcontextprotocol/modelcontextprotocol)\n"
    )


def test_more_than_a_mebibyte_written_at_import_is_counted_whole(tmp_path: Path) -> None:
    # check holds the module's stdout itself, past the 1 MiB that `import plainmcp` holds
    server = tmp_path / "loud.py"
    server.write_text(
        "from plainmcp import Server\n\nprint('x' * (2 << 20))\n\napp = Server('loud')\n"
    )
    done = check(str(server), "--json", "--host", "generic", "--no-config")
    found = json.loads(done.stdout)
    assert [p["message"] for p in found["problems"] if p["code"] == "stdout-at-import"] == [
        f"{(2 << 20) + 1} characters written to stdout at import (first line: {'x' * 120!r});"
        " a stdio server's stdout is its protocol stream: print to stderr"
        " (print(..., file=sys.stderr)) or log with logging"
    ]
    assert "plainmcp: more than" not in done.stderr
