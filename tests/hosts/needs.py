"""A tool nobody here wrote (an npm host, a PyPI framework) is missing: skip, or fail under CI.

scripts/setup installs every such tool, pinned; under CI (env `CI` set) a missing one is a
failure, so a broken setup cannot pass as a run of skipped tests (as tests/interop does).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def cli_problem(
    cli: Path, name: str, expected: str, version_of: Callable[[str], str] = str.strip
) -> str | None:
    """Why the pinned CLI `cli` (`name`, for the message) cannot be run here, or None:
    missing, not starting, or not at version `expected` (`version_of` reads it from the output
    of `cli --version`)."""
    if not cli.exists():
        return f"{name} is not installed in {cli.parent} (run scripts/setup)"
    try:
        out = subprocess.run(
            [str(cli), "--version"], capture_output=True, text=True, timeout=60, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{cli} does not run: {exc}"
    found = version_of(out)
    if found != expected:
        return f"{cli} is {found!r}, expected {expected!r} (re-run scripts/setup)"
    return None


def require(problem: str | None) -> None:
    """Inside a test or fixture: go on when `problem` is None, else skip (fail under CI)."""
    if problem is None:
        return
    if in_ci():
        pytest.fail(f"CI: {problem}", pytrace=False)
    pytest.skip(problem)
