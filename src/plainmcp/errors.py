"""What a user function's failure becomes: what the client is sent and what the log says.

One policy for tools, resources, prompts and completers, applied in one place
(`invoke.invoke`):

- A refusal is an exception raised on purpose: ToolError, PromptError, ResourceError (what
  `safe_join` raises) or a missing client capability. It is logged as one WARNING line without
  a traceback (a traceback would make it look like a bug and bury the real ones), and its
  message is sent, even under `mask_errors`.
- A missing client capability in a stateless (2026-07-28) request is re-raised: the server
  answers it with -32021, naming the capability.
- Anything else is a bug: logged at ERROR with its traceback. The client is told its type and
  message, or under `mask_errors` only an error id that finds the log record.

Each kind says the form its failures take by subclassing `Failures`: a JSON-RPC error (the
default), or for a tool an isError result, which travels as a ToolError.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, ClassVar

from plainmcp.context import ClientCapabilityError
from plainmcp.wire.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, RpcError

__all__ = [
    "Failures",
    "ResourceError",
    "field_lines",
    "log_failure",
    "log_refusal",
    "log_timeout",
]

log = logging.getLogger("plainmcp")


class ResourceError(RpcError):
    """Raise it in a resource function to fail the read with a message the client sees.

    Reads are not tool calls, so a failure is a JSON-RPC error, not a result; the default code is
    internal error (-32603), INVALID_PARAMS (-32602) says the client asked for something invalid.
    Raised in a tool or a prompt, it is a refusal too (`safe_join` raises it).
    """

    def __init__(self, message: str, *, code: int = INTERNAL_ERROR, data: Any = None) -> None:
        super().__init__(code, message, data)


def log_refusal(what: str, exc: BaseException) -> None:
    """Log `what` (e.g. "tool 'divide'") refusing with `exc`, on one line whatever its message."""
    reason = str(exc).replace("\r", "\\r").replace("\n", "\\n")
    log.warning("%s refused (%s): %s", what, type(exc).__name__, reason)


def log_failure(what: str, exc: BaseException, mask: bool) -> str | None:
    """Log an unexpected failure with its traceback; under `mask`, the id the client is given
    instead of the details (None otherwise)."""
    if not mask:
        log.error("%s failed", what, exc_info=exc)
        return None
    import secrets  # only when a failure is masked: not at import

    error_id = secrets.token_hex(6)
    log.error("%s failed (error id %s)", what, error_id, exc_info=exc)
    return error_id


def log_timeout(what: str, seconds: float) -> None:
    log.warning("%s timed out after %g s", what, seconds)


def field_lines(errors: Sequence[Any], whole: str = "(arguments)") -> str:
    """One "- field: problem" line per FieldError (`whole` names the value itself)."""
    return "\n".join(f"- {e.path or whole}: {e.message}" for e in errors)


class Failures:
    """The failures of one kind of function, as the client receives them.

    The defaults are JSON-RPC errors that name the function ("Prompt 'p' failed: ..."); a kind
    overrides what differs. Each method returns the exception to raise.
    """

    noun: ClassVar[str] = "function"
    """What a message calls the function: "tool" gives "Tool 'add' failed: ..."."""
    refusals: ClassVar[tuple[type[Exception], ...]] = (ClientCapabilityError, ResourceError)
    """Exceptions raised on purpose (see the module docstring)."""
    answers: ClassVar[tuple[type[Exception], ...]] = ()
    """Exceptions that are not failures but answers the kind gives itself (a resource read's
    FileNotFoundError means not found): passed on untouched, not logged."""

    def label(self, name: str) -> str:
        """How the log names the function: "tool 'add'"."""
        return f"{self.noun} {name!r}"

    def error(self, message: str, code: int = INTERNAL_ERROR) -> Exception:
        """The form of this kind's failures."""
        return RpcError(code, message)

    def invalid(self, name: str, errors: Sequence[Any]) -> Exception:
        """Arguments that failed validation, every bad field named (the model can fix all)."""
        return self.error(
            f"Invalid arguments for {self.noun} '{name}':\n{field_lines(errors)}", INVALID_PARAMS
        )

    def refused(self, name: str, exc: Exception) -> Exception:
        """A refusal (already logged): its message is sent, after its type."""
        return self.error(f"{self.noun.capitalize()} '{name}' failed: {type(exc).__name__}: {exc}")

    def failed(self, name: str, exc: Exception, error_id: str | None) -> Exception:
        """An unexpected failure (already logged): the details, or only the id when masked."""
        if error_id is not None:
            return self.error(
                f"{self.noun.capitalize()} '{name}' failed unexpectedly (error id {error_id});"
                " the details are in the server log."
            )
        return self.error(f"{self.noun.capitalize()} '{name}' failed: {type(exc).__name__}: {exc}")

    def timed_out(self, name: str, seconds: float) -> Exception:
        return self.error(
            f"{self.noun.capitalize()} '{name}' timed out after {seconds:g} seconds and was"
            " stopped."
        )

    def unexpected(self, name: str, exc: Exception, mask: bool) -> Exception:
        """Log an unexpected failure and return what the client is sent for it."""
        return self.failed(name, exc, log_failure(self.label(name), exc, mask))
