"""The opt-in pytest plugin (`pytest_plugins = ["plainmcp.pytest_plugin"]` in a test module or
the root conftest.py, or `pytest -p plainmcp.pytest_plugin`): every `async def` test runs on
anyio's runner (asyncio unless the test's module or conftest overrides `anyio_backend`), without
the `@pytest.mark.anyio` each would need otherwise. anyio's own plugin does the running; this marks
the tests before it looks, and picks the backend."""

from __future__ import annotations

import inspect
from collections.abc import Generator
from typing import Any

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(
    collector: pytest.Collector, name: str, obj: object
) -> Generator[Any]:
    # A wrapper runs before every plain implementation, anyio's (tryfirst) included.
    if (
        isinstance(collector, pytest.Module | pytest.Class)
        and collector.istestfunction(obj, name)
        and inspect.iscoroutinefunction(obj)
        and not _marked(collector, obj)
    ):
        pytest.mark.anyio(obj)
    return (yield)


def _marked(collector: pytest.Collector, obj: object) -> bool:
    """Marked already, for anyio or another async runner (pytest-asyncio's `asyncio`)."""
    own = {mark.name for mark in getattr(obj, "pytestmark", ())}
    return bool(own & {"anyio", "asyncio"}) or any(
        collector.get_closest_marker(name) is not None for name in ("anyio", "asyncio")
    )


class _Backend:
    @pytest.fixture
    def anyio_backend(self) -> str:
        """asyncio, not every installed backend (anyio's default runs each test per backend)."""
        return "asyncio"


def pytest_configure(config: pytest.Config) -> None:
    # Registered now, after every plugin (anyio's entry point loads after `-p`): of two plugin
    # fixtures of one name, the later wins; a conftest's or module's wins over both.
    if not config.pluginmanager.has_plugin("plainmcp.anyio_backend"):
        config.pluginmanager.register(_Backend(), "plainmcp.anyio_backend")
