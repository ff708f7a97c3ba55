"""Elicitation answered on the terminal: the server's message, then one question per field of
the requested schema. Without a terminal nobody can answer, so the command fails (exit 1)
saying so rather than guessing."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from plainmcp.client import CallbackError, Elicitation, ElicitResult

NO_TERMINAL = (
    "the server asked a question ({message!r}) and stdin is not a terminal, so nobody can"
    " answer it; run the command in a terminal, or pass the value as a tool argument"
)


class Cancelled(Exception):
    """End of input: the user dismissed the question."""


def choices(schema: dict[str, Any]) -> list[Any] | None:
    """The allowed values of a field (enum, or oneOf/anyOf of consts), None: any."""
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    for key in ("oneOf", "anyOf"):
        options = schema.get(key)
        if isinstance(options, list) and all(isinstance(o, dict) and "const" in o for o in options):
            return [o["const"] for o in options]
    return None


def convert(schema: dict[str, Any], text: str) -> Any:
    """The typed value of one answer; ValueError (with what is wanted) when it does not fit."""
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        items = items if isinstance(items, dict) else {}
        return [convert(items, part.strip()) for part in text.split(",") if part.strip()]
    allowed = choices(schema)
    if kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true"):
            return True
        if lowered in ("n", "no", "false"):
            return False
        raise ValueError("answer y or n")
    if kind == "integer":
        try:
            value: Any = int(text)
        except ValueError:
            raise ValueError("a whole number, e.g. 3") from None
    elif kind == "number":
        try:
            value = float(text)
        except ValueError:
            raise ValueError("a number, e.g. 2.5") from None
    else:
        value = text
    if allowed is not None and value not in allowed:
        raise ValueError("one of " + ", ".join(str(a) for a in allowed))
    return value


def _label(name: str, schema: dict[str, Any], required: bool) -> str:
    label = str(schema.get("title") or name)
    facts: list[str] = []
    allowed = choices(schema if schema.get("type") != "array" else schema.get("items") or {})
    if allowed is not None:
        facts.append("/".join(str(a) for a in allowed))
    elif schema.get("type") == "boolean":
        facts.append("y/n")
    if schema.get("type") == "array":
        facts.append("comma-separated")
    if "default" in schema:
        facts.append(f"default {schema['default']}")
    elif not required:
        facts.append("optional")
    return label + (f" ({', '.join(facts)})" if facts else "") + ": "


class TerminalAsker:
    """The `elicit=` callback of a command; `refused` holds the message once it could not ask."""

    def __init__(
        self,
        stdin: IO[str] | None = None,
        stderr: IO[str] | None = None,
    ) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stderr = stderr if stderr is not None else sys.stderr
        self.refused: str | None = None
        self.on_refuse: Callable[[], None] | None = None
        """Stops the command (its cancel scope) when a question cannot be asked."""

    async def __call__(self, request: Elicitation) -> ElicitResult:
        import anyio

        if not self.stdin.isatty():
            self.refused = NO_TERMINAL.format(message=request.message)
            if self.on_refuse is None:
                raise CallbackError(self.refused)
            # End the call rather than answer: the server is told it was cancelled.
            self.on_refuse()
            await anyio.sleep_forever()
        try:
            return await anyio.to_thread.run_sync(self._ask, request)
        except Cancelled:
            return ElicitResult("cancel")

    def _line(self, prompt: str) -> str:
        self.stderr.write(prompt)
        self.stderr.flush()
        line = self.stdin.readline()
        if not line:
            self.stderr.write("\n")
            raise Cancelled
        return line.rstrip("\r\n").strip()

    def _ask(self, request: Elicitation) -> ElicitResult:
        self.stderr.write(f"{request.message}\n")
        if request.mode == "url":
            self.stderr.write(f"open {request.url}\n")
            answer = self._line("done? (y/n): ").lower()
            return ElicitResult("accept" if answer in ("y", "yes") else "decline")
        schema = request.requested_schema or {}
        properties = schema.get("properties")
        required = set(schema.get("required") or [])
        if not isinstance(properties, dict) or not properties:
            answer = self._line("accept? (y/n): ").lower()
            return ElicitResult("accept" if answer in ("y", "yes") else "decline", {})
        content: dict[str, Any] = {}
        for name, field in properties.items():
            field = field if isinstance(field, dict) else {}
            while True:
                text = self._line(_label(name, field, name in required))
                if not text:
                    if "default" in field:
                        content[name] = field["default"]
                        break
                    if name not in required:
                        break
                    self.stderr.write("  an answer is required\n")
                    continue
                try:
                    content[name] = convert(field, text)
                    break
                except ValueError as exc:
                    self.stderr.write(f"  {exc}\n")
        return ElicitResult("accept", content)
