"""The errors a check reports: one FieldError per bad value, named by its path."""

from __future__ import annotations

from typing import NamedTuple


class FieldError(NamedTuple):
    """One problem with one value; `path` is dotted ("items.0.name"), "" for the whole value.
    (A NamedTuple, not a dataclass: made at every start in a sixth of the time.)"""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class _FieldErrors(Exception):
    """Carries `errors`; str() is one "path: message" line per error."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class ArgumentError(_FieldErrors):
    """Tool arguments failed validation; `errors` names every bad field, so a model can fix all."""

    errors: list[FieldError]


class OutputMismatch(_FieldErrors):
    """A structured value does not conform to the tool's output schema."""

    errors: list[FieldError]
