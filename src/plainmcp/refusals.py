"""Expected refusals in the log: one WARNING line each, without a traceback.

A ToolError, a ResourceError (what `safe_join` raises) or a missing client capability is a
function saying no on purpose; a traceback would make it look like a bug and bury the real ones,
which keep theirs (logged at ERROR).
"""

from __future__ import annotations

import logging

log = logging.getLogger("plainmcp")


def log_refusal(what: str, exc: BaseException) -> None:
    """Log `what` (e.g. "tool 'divide'") refusing with `exc`, on one line whatever its message."""
    reason = str(exc).replace("\r", "\\r").replace("\n", "\\n")
    log.warning("%s refused (%s): %s", what, type(exc).__name__, reason)
