"""A tool nobody here wrote (an npm host, a PyPI framework) is missing: skip, or fail under CI.

scripts/setup installs every such tool, pinned; under CI (env `CI` set) a missing one is a
failure, so a broken setup cannot pass as a run of skipped tests (as tests/interop does).
"""

from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require(problem: str | None) -> None:
    """Inside a test or fixture: go on when `problem` is None, else skip (fail under CI)."""
    if problem is None:
        return
    if in_ci():
        pytest.fail(f"CI: {problem}", pytrace=False)
    pytest.skip(problem)
