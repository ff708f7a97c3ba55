"""The host matrix: every host and framework driven here (drivers.py), each with a scripted model
that follows only what it is shown, against plainmcp's matrix server (matrix_server.py): the
150,000-character text and the 10,000 rows are rebuilt exactly with and without an output
schema, a text that says more than its value reaches the model with the value, an error is
recognisable as one, and every kind of block reaches the model or is described.

One run per host and transport answers every check (matrix.py); the test names the host, and a
failure lists each broken promise with its reason.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hosts import matrix, needs
from tests.hosts import matrix_server as mx
from tests.hosts.claude_code import ClaudeCode
from tests.hosts.codex_cli import CodexCli
from tests.hosts.continue_cli import ContinueCli
from tests.hosts.copilot_cli import CopilotCli
from tests.hosts.drivers import Driver, Target, run_id
from tests.hosts.gemini_cli import GeminiCli
from tests.hosts.langchain_agent import LangChain
from tests.hosts.openai_agents_agent import OpenAiAgents
from tests.hosts.opencode_cli import KILO, OPENCODE, OpenCodeDriver
from tests.hosts.pydantic_ai_agent import PydanticAi
from tests.hosts.qwen_code import QwenCode
from tests.http_server import http_server

SERVER = Path(mx.__file__).resolve()

DRIVERS: tuple[Driver, ...] = (
    ClaudeCode(),
    CodexCli(),
    CopilotCli(),
    GeminiCli(),
    PydanticAi(),
    OpenAiAgents(),
    LangChain("session"),
    LangChain("per-call"),
    OpenCodeDriver(OPENCODE),
    OpenCodeDriver(KILO),
    QwenCode(),
    ContinueCli(),
)
"""Every host and framework of the matrix."""

OPEN: dict[str, dict[str, str]] = {}
"""What is still broken, per run: nothing. Exact both ways: a promise that breaks fails the
test, and so does one that holds while listed here."""

RUNS = [
    pytest.param(driver, transport, id=run_id(driver, transport))
    for driver in DRIVERS
    for transport in driver.transports
]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with http_server(SERVER, script=True) as server:
        yield server.url


def target(transport: str, request: pytest.FixtureRequest) -> Target:
    if transport == "http":
        return Target(mx.NAME, url=request.getfixturevalue("http_url"))
    return Target(mx.NAME, argv=(sys.executable, str(SERVER)))


@pytest.mark.parametrize(("driver", "transport"), RUNS)
def test_every_promise_holds_on_every_host(
    driver: Driver, transport: str, request: pytest.FixtureRequest
) -> None:
    needs.require(driver.problem())
    seen = driver.run(
        target(transport, request), matrix.script(lambda t: driver.tool_name(mx.NAME, t))
    )
    broken = {name: why for name, why in matrix.check(seen).items() if why is not None}
    assert broken == OPEN.get(run_id(driver, transport), {})
