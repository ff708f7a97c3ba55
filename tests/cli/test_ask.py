"""ask.py: each answer typed on the terminal becomes the value the requested schema wants, or
says what it wants instead."""

from __future__ import annotations

import io
from typing import Any

import anyio
import pytest

from plainmcp.cli.ask import TerminalAsker, convert
from plainmcp.client import CallbackError, Elicitation, ElicitResult


@pytest.mark.parametrize(
    ("schema", "text", "value"),
    [
        ({"type": "string"}, "Ada", "Ada"),
        ({"type": "integer"}, "36", 36),
        ({"type": "number"}, "2.5", 2.5),
        ({"type": "boolean"}, "y", True),
        ({"type": "boolean"}, "No", False),
        ({"type": "string", "enum": ["red", "blue"]}, "blue", "blue"),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b"}]}, "b", "b"),
        ({"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}, "x, y", ["x", "y"]),
    ],
)
def test_an_answer_becomes_the_schemas_value(schema: dict[str, Any], text: str, value: Any) -> None:
    assert convert(schema, text) == value


@pytest.mark.parametrize(
    ("schema", "text", "wanted"),
    [
        ({"type": "integer"}, "3.5", "a whole number, e.g. 3"),
        ({"type": "number"}, "many", "a number, e.g. 2.5"),
        ({"type": "boolean"}, "maybe", "answer y or n"),
        ({"type": "string", "enum": ["red", "blue"]}, "green", "one of red, blue"),
    ],
)
def test_a_wrong_answer_says_what_is_wanted(schema: dict[str, Any], text: str, wanted: str) -> None:
    with pytest.raises(ValueError, match=f"^{wanted}$"):
        convert(schema, text)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def ask(stdin: io.StringIO, request: Elicitation) -> tuple[ElicitResult, str]:
    stderr = io.StringIO()
    asker = TerminalAsker(stdin, stderr)
    result = anyio.run(asker, request)
    return result, stderr.getvalue()


def test_optional_fields_may_be_left_empty_and_url_mode_asks_whether_done() -> None:
    schema = {
        "type": "object",
        "properties": {"nick": {"type": "string"}, "ok": {"type": "boolean"}},
        "required": ["ok"],
    }
    result, shown = ask(Tty("\n\ny\n"), Elicitation("Settings?", requested_schema=schema))
    assert result == ElicitResult("accept", {"ok": True})
    # (a terminal echoes each Enter; a StringIO does not)
    assert shown == "Settings?\nnick (optional): ok (y/n):   an answer is required\nok (y/n): "

    request = Elicitation("Sign in", mode="url", url="https://example.com/login")
    result, shown = ask(Tty("y\n"), request)
    assert result == ElicitResult("accept")
    assert shown == "Sign in\nopen https://example.com/login\ndone? (y/n): "


def test_without_a_terminal_the_question_is_refused() -> None:
    asker = TerminalAsker(io.StringIO("Ada\n"), io.StringIO())
    with pytest.raises(CallbackError, match="stdin is not a terminal"):
        anyio.run(asker, Elicitation("Name?"))
    assert asker.refused is not None
