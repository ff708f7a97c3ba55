from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.auth.provider import Provider, running_provider


@pytest.fixture
def provider() -> Iterator[Provider]:
    """A fresh authorization server per test: tests that rotate its key stay apart."""
    with running_provider() as started:
        yield started
