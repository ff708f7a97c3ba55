"""Middleware in a stdio server process: Timing writes one line per request to stderr, and
RateLimit refuses the fourth tools/call with an isError result the model reads."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.test_lifespan import COMMANDS, SESSION, lines, replies, run_stdio

CALLS = lines(
    *(
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "greet"}}
        for n in range(10, 13)
    )
)


def test_timing_and_rate_limit_over_stdio(tmp_path: Path) -> None:
    done = run_stdio(COMMANDS["plainmcp run"], tmp_path / "log", SESSION + CALLS)
    assert done.returncode == 0, done.stderr.decode()
    answered = replies(done.stdout)
    texts = {n: answered[n]["result"]["content"][0]["text"] for n in (2, 3, 10, 11)}
    assert texts == {
        2: "Tool 'boom' failed: ValueError: the tool broke",
        3: "hello from lifespan-probe",
        10: "hello from lifespan-probe",
        11: "Rate limit exceeded: try again in 10000 seconds.",
    }
    assert answered[11]["result"]["isError"] is True
    assert answered[12]["result"]["isError"] is True
    logged = re.findall(
        r"method=(\S+)(?: target=(\S+))? duration_ms=\d+(?:\.\d+)? outcome=(\S+)",
        done.stderr.decode(),
    )
    assert sorted(logged) == sorted(
        [
            ("initialize", "", "ok"),
            ("tools/call", "boom", "tool_error"),
            ("tools/call", "greet", "ok"),
            ("tools/call", "greet", "ok"),
            ("tools/call", "greet", "tool_error"),
            ("tools/call", "greet", "tool_error"),
        ]
    )
