"""The model's errors: what building a block or a result refuses, where it is built."""

from __future__ import annotations


class ContentError(ValueError):
    """A content block could not be built from what was given."""
