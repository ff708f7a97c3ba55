"""What input and output checks share: the JSON bytes pydantic validates, pydantic's errors as
FieldErrors, and `jsonschema` for hand-written schemas (imported on demand). pydantic itself is
never imported here: its errors only reach this module once it is loaded."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from plainmcp.schema.errors import FieldError
from plainmcp.wire import json as wire_json

if TYPE_CHECKING:
    from pydantic import ValidationError


def json_repr(value: Any, limit: int = 80) -> str:
    """How the model sent the value (JSON), not how Python would print it."""
    try:
        text = wire_json.dumps(value).decode()
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # integers beyond 64 bits, or what JSON cannot hold
        return wire_json.dumps(value)


def field_errors(exc: ValidationError) -> list[FieldError]:
    errors: list[FieldError] = []
    for err in exc.errors(include_url=False):
        path = ".".join(str(part) for part in err["loc"])
        kind = err["type"]
        if kind == "missing":
            message = "Field required"
        elif kind == "extra_forbidden":
            message = "Unexpected argument"
        else:
            message = err["msg"]
            if ", got " not in message:
                message += f", got {json_repr(err.get('input'))}"
        errors.append(FieldError(path, message))
    return errors


def jsonschema_check(schema: dict[str, Any], what: str) -> Callable[[Any], list[FieldError]] | None:
    """A Draft 2020-12 check of values against `schema`, when `jsonschema` is installed.

    Without it there is no check: pydantic cannot validate arbitrary JSON Schema, and a
    home-made validator would disagree with clients on the corner cases. Raises ValueError when
    `jsonschema` says the schema itself is invalid.
    """
    try:
        import jsonschema  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return None
    validator_cls = jsonschema.Draft202012Validator
    try:
        validator_cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(f"invalid {what} schema: {exc.message}") from exc
    validator = validator_cls(schema)

    def check(value: Any) -> list[FieldError]:
        return [
            FieldError(".".join(str(p) for p in err.absolute_path), err.message)
            for err in sorted(
                validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
            )
        ]

    return check
