"""Usage errors: a command that could not be carried out as given (exit code 2)."""

from __future__ import annotations

EXIT_USAGE = 2


class UsageError(Exception):
    """A mistake on the command line: printed without a traceback, exit code 2."""
