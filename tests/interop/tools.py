"""Helpers for tests that drive external MCP clients (node 22 + MCP Inspector CLI).

The tools are installed by ``scripts/setup`` into ``tests/interop/node_modules`` from the committed
lockfile. Locally, tests needing them skip when they are missing; under CI (env ``CI`` set) a
missing tool is a failure, so a broken setup can never turn into a green run of skipped tests.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "INTEROP_DIR",
    "NODE_MODULES",
    "ensure_interop_tools",
    "ensure_ts_client",
    "inspector_bin",
    "inspector_cli",
    "inspector_json",
    "interop_tools_problem",
    "node22_bin",
    "requires_interop_tools",
    "run_ts_client",
]

INTEROP_DIR = Path(__file__).resolve().parent
NODE_MODULES = INTEROP_DIR / "node_modules"
_BIN = NODE_MODULES / ".bin"


def node22_bin() -> Path:
    """The node 22 binary shipped by the npm package ``node@22`` (the system node may be older)."""
    return _BIN / "node"


def inspector_bin() -> Path:
    """The ``mcp-inspector`` launcher script of ``@modelcontextprotocol/inspector``."""
    return _BIN / "mcp-inspector"


@functools.cache
def interop_tools_problem() -> str | None:
    """Why the interop tools cannot be used, or None when they are ready."""
    node, inspector = node22_bin(), inspector_bin()
    if not node.exists() or not inspector.exists():
        return f"interop tools not installed in {NODE_MODULES} (run scripts/setup)"
    try:
        version = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{node} does not run: {exc}"
    if not version.startswith("v22."):
        return f"{node} is {version}, expected node 22 (re-run scripts/setup)"
    return None


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def ensure_interop_tools() -> None:
    """Inside a test or fixture: skip when the tools are missing, but fail under CI."""
    problem = interop_tools_problem()
    if problem is None:
        return
    if _in_ci():
        pytest.fail(f"CI: {problem}", pytrace=False)
    pytest.skip(problem)


def requires_interop_tools() -> pytest.MarkDecorator:
    """Mark for tests (``@requires_interop_tools()``) or modules (``pytestmark = ...``).

    Missing tools: a skip mark locally; under CI this fails at once (a collection error when used
    at import time), so CI cannot pass by skipping.
    """
    problem = interop_tools_problem()
    if problem is None:
        return pytest.mark.skipif(False, reason="interop tools installed")
    if _in_ci():
        pytest.fail(f"CI: {problem}", pytrace=False)
    return pytest.mark.skip(reason=problem)


def _tool_env(home: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    # node 22 first: the launcher's shebang is `/usr/bin/env node` and it spawns node children.
    env["PATH"] = os.pathsep.join([str(_BIN), env.get("PATH", "")])
    # The inspector keeps state in $HOME/.mcp-inspector; never touch the real home.
    env["HOME"] = home
    env["NO_UPDATE_NOTIFIER"] = "1"
    env["npm_config_update_notifier"] = "false"
    if extra:
        env.update(extra)
    return env


def inspector_cli(
    args: Sequence[str],
    *,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``mcp-inspector <args>`` (pass ``--cli`` yourself) and capture text stdout/stderr.

    Runs under node 22 with HOME in a throwaway folder and stdin closed. On timeout the whole
    process group (inspector plus the stdio server it spawned) is killed and TimeoutExpired raised.
    Exit codes seen with 2.12.0: 0 ok, 5 tool returned isError or tool not found, 4 server
    unreachable, 1 other errors (e.g. the stdio server exited), 6 --strict schema problems.
    """
    problem = interop_tools_problem()
    if problem is not None:
        raise RuntimeError(problem)
    cmd = [str(node22_bin()), str(inspector_bin().resolve()), *args]
    with tempfile.TemporaryDirectory(prefix="plainmcp-inspector-home-") as home:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_tool_env(home, env),
            cwd=cwd,
            start_new_session=True,
        )
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            stdout, stderr = proc.communicate()
            raise subprocess.TimeoutExpired(cmd, timeout, stdout, stderr) from None
        finally:
            if proc.poll() is None:
                _kill_group(proc)
                proc.wait()
        # The stdio server the inspector spawned shares the session; make sure none lingers.
        _kill_group(proc)
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def _kill_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def inspector_json(
    target: Sequence[str], method_args: Sequence[str], *, timeout: float = 60, **kwargs: Any
) -> tuple[int, dict[str, Any] | None, dict[str, Any] | None]:
    """Run ``--cli <target> <method_args> -q --format json``: (exit code, result, error).

    With ``--format json`` the inspector prints ``{"result": ...}`` on stdout when it got a
    result (also for isError results) and ``{"error": {"code", "message"}}`` on stderr when the
    call failed (``tool_is_error``, ``tool_not_found``, connection errors).
    """
    done = inspector_cli(
        ["--cli", *target, *method_args, "-q", "--format", "json"], timeout=timeout, **kwargs
    )
    return done.returncode, _last_json(done.stdout, "result"), _last_json(done.stderr, "error")


def _last_json(text: str, key: str) -> dict[str, Any] | None:
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and key in obj and isinstance(obj[key], dict):
            value: dict[str, Any] = obj[key]
            return value
    return None


TS_CLIENT = INTEROP_DIR / "ts_client.mjs"
_TS_PACKAGE = NODE_MODULES / "@modelcontextprotocol" / "client" / "package.json"


def ensure_ts_client() -> None:
    """Inside a test or fixture: skip when the TypeScript SDK client is missing (fail under CI)."""
    ensure_interop_tools()  # node 22 (and the Inspector) installed, or skip / fail under CI
    if not _TS_PACKAGE.exists():
        problem = f"@modelcontextprotocol/client is not installed in {NODE_MODULES}"
        if _in_ci():
            pytest.fail(f"CI: {problem}", pytrace=False)
        pytest.skip(problem)


def run_ts_client(job: Mapping[str, Any], *, timeout: float = 120) -> list[dict[str, Any]]:
    """Run ts_client.mjs on `job` (see its header) and return its records, the last one
    `{"kind": "done"}` (asserted: a client that stopped half-way fails here)."""
    done = subprocess.run(
        [str(node22_bin()), str(TS_CLIENT), json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=INTEROP_DIR,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"ts_client.mjs exited {done.returncode}:\n{done.stderr}"
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records and records[-1] == {"kind": "done"}, done.stdout
    return records
