"""How `plainmcp check` imports the server: in this process with stdout held (what the module
prints at import is reported, not mixed into the report), its source read for `never-run`, and
once more in a fresh interpreter for what the import costs."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from typing import TYPE_CHECKING, Any

from plainmcp.cli.target import check_file, load_target, split_target
from plainmcp.cli.usage import UsageError
from plainmcp.lint.problems import Problem

if TYPE_CHECKING:
    from plainmcp.lint.imports import ImportCost
    from plainmcp.server import Server


def import_guarded(target: str) -> tuple[Server | None, str, list[Problem]]:
    """The server, what the module wrote to stdout while it was imported, and the problems
    (a failed import is one). Its stdout is held meanwhile, so nothing mixes into the report."""
    from plainmcp.server import Server
    from plainmcp.transports.stdout import HeldStdout

    held = HeldStdout(sys.stdout, limit=sys.maxsize)  # all of it is counted, then dropped
    sys.stdout = held
    problems: list[Problem] = []
    obj: Any = None
    name = ""
    try:
        name, obj = load_target(target)
    except UsageError:
        raise
    except (Exception, SystemExit) as exc:
        last = traceback.format_exception_only(exc)[-1].strip()
        file = split_target(target)[0]
        problems.append(
            Problem(
                "import-failed",
                "module",
                f"{last}; the module must import without an error (`plainmcp run {file}` shows"
                " the whole traceback)",
            )
        )
    finally:
        captured = io.StringIO()
        held.decide(captured)
        if sys.stdout is held:
            sys.stdout = held.original
    written = captured.getvalue()
    if written:
        first = written.strip().splitlines()[0] if written.strip() else repr(written)
        problems.append(
            Problem(
                "stdout-at-import",
                "module",
                f"{len(written)} characters written to stdout at import (first line:"
                f" {first[:120]!r}); a stdio server's stdout is its protocol stream: print to"
                " stderr (print(..., file=sys.stderr)) or log with logging",
            )
        )
    server = None if obj is None else (obj if isinstance(obj, Server) else obj.server)
    if server is not None:
        problems.extend(_never_run(target, name, isinstance(obj, Server)))
    return server, written, problems


def _never_run(target: str, name: str, is_server: bool) -> list[Problem]:
    """`never-run` when `python FILE` would not serve what the file defines (read, not run)."""
    from plainmcp.lint.running import never_run_problem

    file = split_target(target)[0]
    try:
        source = check_file(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []  # it imported, so it is there: nothing more to say about it
    serve = f"{name}.run()" if is_server else f"import uvicorn; uvicorn.run({name})"
    found = never_run_problem(source, file, name, serve)
    return [] if found is None else [found]


_CHILD = """\
import sys, time
sys.path.insert(0, {folder!r})
sys.argv = [{file!r}]
import runpy
print({start!r}, file=sys.stderr, flush=True)
began = time.perf_counter_ns()
runpy.run_path({file!r}, run_name="__plainmcp_check__")
print({total!r} + str((time.perf_counter_ns() - began) // 1000), file=sys.stderr, flush=True)
"""


def import_cost(file: str, timeout: float) -> ImportCost | None:
    """What importing `file` costs in a fresh interpreter (`python -X importtime`); None when
    the child fails or takes longer than `timeout`."""
    from plainmcp.lint.imports import START, TOTAL, import_cost

    path = check_file(file)
    code = _CHILD.format(folder=str(path.parent), file=str(path), start=START, total=TOTAL)
    try:
        child = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    except subprocess.TimeoutExpired:
        return None
    return import_cost(child.stderr)
