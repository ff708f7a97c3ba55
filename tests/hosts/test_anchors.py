"""The anchors: the host matrix (test_matrix.py) run against the same server written on the
official Python SDK (matrix_sdk.py, `mcp` 2.3.0) and on FastMCP (matrix_fastmcp.py, 4.2.3), with
every driver of the matrix, so docs/hosts.md compares what reaches the model from each library
on each host (comparison.py renders it from ANCHORS and test_matrix.OPEN).

Neither library cuts a result, so each run is the seven first calls and nothing more. A driver
that opens a new session per call (LangChain's get_tools()) is left out: without refs a fresh
session per call gets the same results as one session, at a server start per call (about 5 s
each here), so it is run against plainmcp only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hosts import matrix, needs
from tests.hosts import matrix_server as mx
from tests.hosts.drivers import Driver, Target, run_id
from tests.hosts.test_matrix import DRIVERS
from tests.http_server import http_server

HERE = Path(__file__).resolve().parent
SERVERS = {"sdk": HERE / "matrix_sdk.py", "fastmcp": HERE / "matrix_fastmcp.py"}
"""The anchors, by the key of ANCHORS."""

ANCHORS: dict[str, dict[str, dict[str, str]]] = {
    "sdk": {
        "claude-code-stdio": {
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
            "text rebuilt": "1,338 of 150,000 characters rebuilt, the first difference at 0",
        },
        "claude-code-http": {
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
            "text rebuilt": "1,338 of 150,000 characters rebuilt, the first difference at 0",
        },
        "pydantic-ai-stdio": {
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
        },
        "openai-agents-stdio": {
            "error recognisable": "shown as a success",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
        },
        "langchain-mcp-adapters-session-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its text lost",
            "image": "neither shown nor described",
            "link": "its URI lost",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
        },
        "codex-cli-stdio": {
            "audio": "neither shown, saved nor described",
            "error recognisable": "shown as a success",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
            "text rebuilt": "9,838 of 150,000 characters rebuilt, the first difference at 4,911",
        },
        "copilot-cli-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "image": "neither shown nor described",
            "link": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text rebuilt": "865 of 150,000 characters rebuilt, the first difference at 0",
        },
        "gemini-cli-stdio": {
            "embedded resource": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
            "text rebuilt": "235 of 150,000 characters rebuilt, the first difference at 0",
        },
        "opencode-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "link": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
            "text rebuilt": "42,355 of 150,000 characters rebuilt, the first difference at 41,985",
        },
        "kilo-cli-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "link": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
            "text rebuilt": "42,351 of 150,000 characters rebuilt, the first difference at 41,985",
        },
        "qwen-code-stdio": {
            "embedded resource": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text rebuilt": "2,459 of 150,000 characters rebuilt, the first difference at 0",
        },
        "continue-cli-stdio": {
            "error recognisable": "shown as a success",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
        },
    },
    "fastmcp": {
        "claude-code-stdio": {
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
            "text rebuilt": "1,338 of 150,000 characters rebuilt, the first difference at 0",
        },
        "claude-code-http": {
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
            "text rebuilt": "1,338 of 150,000 characters rebuilt, the first difference at 0",
        },
        "pydantic-ai-stdio": {
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
        },
        "openai-agents-stdio": {
            "error recognisable": "shown as a success",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
        },
        "langchain-mcp-adapters-session-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its text lost",
            "image": "neither shown nor described",
            "link": "its URI lost",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
        },
        "codex-cli-stdio": {
            "audio": "neither shown, saved nor described",
            "error recognisable": "shown as a success",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the text lost",
            "text and value (output schema)": "the text lost",
            "text rebuilt": "9,838 of 150,000 characters rebuilt, the first difference at 4,911",
        },
        "copilot-cli-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "image": "neither shown nor described",
            "link": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text rebuilt": "865 of 150,000 characters rebuilt, the first difference at 0",
        },
        "gemini-cli-stdio": {
            "embedded resource": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
            "text rebuilt": "235 of 150,000 characters rebuilt, the first difference at 0",
        },
        "opencode-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "link": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
            "text rebuilt": "42,355 of 150,000 characters rebuilt, the first difference at 41,985",
        },
        "kilo-cli-stdio": {
            "audio": "neither shown, saved nor described",
            "embedded resource": "its URI lost",
            "error recognisable": "shown as a success",
            "link": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
            "text rebuilt": "42,351 of 150,000 characters rebuilt, the first difference at 41,985",
        },
        "qwen-code-stdio": {
            "embedded resource": "its URI lost",
            "rows rebuilt (no output schema)": "no rows shown as JSON",
            "rows rebuilt (output schema)": "no rows shown as JSON",
            "text rebuilt": "2,459 of 150,000 characters rebuilt, the first difference at 0",
        },
        "continue-cli-stdio": {
            "error recognisable": "shown as a success",
            "text and value (no output schema)": "the value lost",
            "text and value (output schema)": "the value lost",
        },
    },
}
"""What breaks on each anchor, per run (every run is listed, a run where all holds as {}).
Exact both ways, as test_matrix.OPEN: these pin the libraries and hosts as they are."""


def anchored(driver: Driver) -> bool:
    """Whether the anchors are run with `driver` (not with a session per call)."""
    return not getattr(driver, "per_call_sessions", False)


RUNS = [
    pytest.param(anchor, driver, transport, id=f"{anchor}-{run_id(driver, transport)}")
    for anchor in SERVERS
    for driver in DRIVERS
    if anchored(driver)
    for transport in driver.transports
    if transport == "stdio" or driver.key == "claude-code"
]
"""Every driver over stdio, and Claude Code over HTTP too (the matrix runs the other CLIs over
HTTP against plainmcp as well; the libraries' HTTP answers are the same)."""


@pytest.fixture(scope="module")
def http_urls() -> Iterator[dict[str, str]]:
    """Each anchor over HTTP, started once for the module."""
    with (
        http_server(SERVERS["sdk"], script=True) as sdk,
        http_server(SERVERS["fastmcp"], script=True) as fast,
    ):
        yield {"sdk": sdk.url, "fastmcp": fast.url}


def test_every_run_is_pinned() -> None:
    """ANCHORS names exactly the runs there are, so none passes by being left out."""
    ran = {(p.values[0], run_id(p.values[1], p.values[2])) for p in RUNS}  # type: ignore[arg-type]
    assert {(anchor, run) for anchor, runs in ANCHORS.items() for run in runs} == ran


@pytest.mark.parametrize(("anchor", "driver", "transport"), RUNS)
def test_what_each_anchor_loses_on_each_host(
    anchor: str, driver: Driver, transport: str, request: pytest.FixtureRequest
) -> None:
    needs.require(driver.problem())
    if transport == "http":
        target = Target(mx.NAME, url=request.getfixturevalue("http_urls")[anchor])
    else:
        target = Target(mx.NAME, argv=(sys.executable, str(SERVERS[anchor])))
    seen = driver.run(target, matrix.script(lambda t: driver.tool_name(mx.NAME, t)))
    broken = {name: why for name, why in matrix.check(seen).items() if why is not None}
    assert broken == ANCHORS[anchor][run_id(driver, transport)]
