"""Editing one member of a JSON (or JSONC) document in place, leaving every other byte as it was.

Host configs are files people edit by hand: other servers, settings, comments (VS Code's and
Gemini CLI's files allow them), their own indentation. Loading and dumping would lose all but the
data, so this parses the text into spans and splices the one member that changes. Sans-I/O:
text in, text out; a malformed document raises `SyntaxProblem` with its line and column.

No library was taken for this: json and orjson keep no spans, json5 and commentjson drop
comments on the way back, and json-five (which keeps them) has had no release since 2024.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


class SyntaxProblem(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column
        self.reason = message


class NotAnObject(ValueError):
    """A key on the way to the servers holds something other than an object."""

    def __init__(self, key: str, line: int) -> None:
        super().__init__(f"line {line}: {json.dumps(key)} is not an object")
        self.line = line


@dataclass
class Node:
    start: int
    end: int  # one past the last character


@dataclass
class Member:
    key: str
    key_start: int
    value: Node
    comma: int | None = None  # the index of the comma after the value, if any


@dataclass
class ObjectNode(Node):
    members: list[Member] = field(default_factory=list)

    def find(self, key: str) -> Member | None:
        return next((m for m in reversed(self.members) if m.key == key), None)


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = ("true", "false", "null")
MAX_DEPTH = 100
"""Objects and arrays nested deeper than this are refused, where Python's recursion would
otherwise give out (at about 250): no host's config comes near it."""


class _Parser:
    def __init__(self, text: str, comments: bool, trailing_commas: bool) -> None:
        self.text = text
        self.pos = 0
        self.comments = comments
        self.trailing_commas = trailing_commas
        self.depth = 0

    def fail(self, message: str, at: int | None = None) -> SyntaxProblem:
        at = self.pos if at is None else at
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return SyntaxProblem(message, line, column)

    def skip(self) -> None:
        """Whitespace, and comments where the dialect has them."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n\ufeff":
                self.pos += 1
            elif text.startswith("//", self.pos) or text.startswith("/*", self.pos):
                if not self.comments:
                    raise self.fail("comments are not allowed in this file")
                if text[self.pos + 1] == "/":
                    newline = text.find("\n", self.pos)
                    self.pos = len(text) if newline < 0 else newline
                else:
                    close = text.find("*/", self.pos + 2)
                    if close < 0:
                        raise self.fail("a /* comment is never closed")
                    self.pos = close + 2
            else:
                return

    def value(self) -> Node:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("a value is missing at the end of the file")
        char = self.text[self.pos]
        if char == "{":
            return self.object()
        if char == "[":
            return self.array()
        start = self.pos
        if char == '"':
            self.string()
            return Node(start, self.pos)
        for literal in _LITERALS:
            if self.text.startswith(literal, self.pos):
                self.pos += len(literal)
                return Node(start, self.pos)
        number = _NUMBER.match(self.text, self.pos)
        if number and number.end() > start:
            self.pos = number.end()
            return Node(start, self.pos)
        raise self.fail(f"unexpected {char!r}")

    def string(self) -> str:
        start = self.pos
        self.pos += 1
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\":
                self.pos += 2
            elif char == '"':
                self.pos += 1
                try:
                    decoded: str = json.loads(text[start : self.pos])
                except ValueError:
                    raise self.fail("a malformed string", start) from None
                return decoded
            elif char == "\n":
                raise self.fail("a string runs past the end of its line", start)
            else:
                self.pos += 1
        raise self.fail("a string is never closed", start)

    def items(self, close: str, item: Any) -> None:
        """`item()` for each element up to `close`, checking the commas between them."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"objects and arrays are nested deeper than {MAX_DEPTH} levels here")
        self.pos += 1
        self.skip()
        if self.text.startswith(close, self.pos):
            self.pos += 1
            self.depth -= 1
            return
        while True:
            comma = item()
            self.skip()
            if self.text.startswith(",", self.pos):
                comma(self.pos)
                self.pos += 1
                self.skip()
                if self.text.startswith(close, self.pos):
                    if not self.trailing_commas:
                        raise self.fail(f"a comma before {close!r} is not allowed here")
                    self.pos += 1
                    self.depth -= 1
                    return
            elif self.text.startswith(close, self.pos):
                self.pos += 1
                self.depth -= 1
                return
            elif self.pos >= len(self.text):
                raise self.fail(f"{close!r} is missing at the end of the file")
            else:
                raise self.fail(f"expected ',' or {close!r}")

    def object(self) -> ObjectNode:
        node = ObjectNode(self.pos, self.pos)

        def member() -> Any:
            self.skip()
            if not self.text.startswith('"', self.pos):
                raise self.fail("expected a property name in double quotes")
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':' after the property name")
            self.pos += 1
            found = Member(key, key_start, self.value())
            node.members.append(found)

            def comma(at: int) -> None:
                found.comma = at

            return comma

        self.items("}", member)
        node.end = self.pos
        return node

    def array(self) -> Node:
        start = self.pos

        def element() -> Any:
            self.value()
            return lambda at: None

        self.items("]", element)
        return Node(start, self.pos)


def parse(text: str, *, comments: bool, trailing_commas: bool) -> ObjectNode | None:
    """The top-level object's spans, or None for a document with nothing in it."""
    parser = _Parser(text, comments, trailing_commas)
    parser.skip()
    if parser.pos >= len(text):
        return None
    if text[parser.pos] != "{":
        raise parser.fail("the file must hold a JSON object")
    root = parser.object()
    parser.skip()
    if parser.pos < len(text):
        raise parser.fail("unexpected text after the closing '}'")
    return root


# --- editing ---------------------------------------------------------------------------------


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _indent_at(text: str, at: int) -> str:
    start = _line_start(text, at)
    return text[start : start + len(text[start:at]) - len(text[start:at].lstrip(" \t"))]


def _unit(text: str) -> str:
    """The file's indentation step: that of its first indented line, else two spaces."""
    found = re.search(r"\n([ \t]+)\S", text)
    return found.group(1) if found else "  "


def _render(value: Any, indent: str, unit: str | None, newline: str) -> str:
    """`value` indented by `unit` from `indent`; on one line when `unit` is None."""
    if unit is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", newline + indent)


def _line_no(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


class Editor:
    """One document and the dialect it is written in."""

    def __init__(self, text: str, *, comments: bool, trailing_commas: bool = False) -> None:
        self.text = text
        self.comments = comments
        self.trailing_commas = trailing_commas
        self.root = parse(text, comments=comments, trailing_commas=trailing_commas)
        # A document on one line stays on one line.
        root = self.root
        one_line = (
            root is not None and bool(root.members) and "\n" not in text[root.start : root.end]
        )
        self.unit: str | None = None if one_line else _unit(text)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def _walk(self, path: tuple[str, ...]) -> tuple[ObjectNode | None, tuple[str, ...]]:
        """The deepest object along `path`, and the keys of `path` missing below it."""
        node = self.root
        if node is None:
            return None, path
        for i, key in enumerate(path):
            member = node.find(key)
            if member is None:
                return node, path[i:]
            if not isinstance(member.value, ObjectNode):
                raise NotAnObject(key, _line_no(self.text, member.key_start))
            node = member.value
        return node, ()

    def get(self, path: tuple[str, ...], name: str) -> Any:
        """The value of `name` in the object at `path`, or None."""
        node, missing = self._walk(path)
        if node is None or missing:
            return None
        member = node.find(name)
        return (
            None if member is None else json.loads(self.text[member.value.start : member.value.end])
        )

    def names(self, path: tuple[str, ...]) -> list[str]:
        node, missing = self._walk(path)
        return [] if node is None or missing else [m.key for m in node.members]

    def set(self, path: tuple[str, ...], name: str, value: Any) -> str:
        """The text with `name` in the object at `path` set to `value` (objects made on the
        way), every other byte unchanged."""
        node, missing = self._walk(path)
        nested: Any = value
        for key in reversed((*missing, name)[1:]):
            nested = {key: nested}
        first = (*missing, name)[0]
        if node is None:
            body = _render({first: nested}, "", self.unit or "  ", self.newline) + self.newline
            kept = self.text.rstrip()  # comments only, or nothing
            return self._checked(kept + self.newline + body if kept else body)
        member = node.find(first) if not missing else None
        if member is not None:
            indent = _indent_at(self.text, member.key_start)
            rendered = _render(nested, indent, self.unit, self.newline)
            v = member.value
            return self._checked(self.text[: v.start] + rendered + self.text[v.end :])
        return self._checked(self._insert(node, first, nested))

    def _insert(self, node: ObjectNode, key: str, value: Any) -> str:
        text, nl = self.text, self.newline
        close_indent = _indent_at(text, node.start)
        if node.members and "\n" in text[node.start : node.members[0].key_start]:
            indent = _indent_at(text, node.members[0].key_start)
        else:
            indent = close_indent + (self.unit or "")
        member = json.dumps(key, ensure_ascii=False) + ": " + _render(value, indent, self.unit, nl)
        if not node.members:
            inner = text[node.start + 1 : node.end - 1]
            if not inner.strip():
                block = (
                    "{" + member + "}"
                    if self.unit is None
                    else ("{" + nl + indent + member + nl + close_indent + "}")
                )
                return text[: node.start] + block + text[node.end :]
            at = node.start + 1 + len(inner.rstrip())
            tail = "" if "\n" in text[at : node.end - 1] else nl + close_indent
            return text[:at] + nl + indent + member + tail + text[at:]
        last = node.members[-1]
        if "\n" not in text[node.start : last.key_start]:  # all on one line
            if last.comma is None:
                at = last.value.end
                return text[:at] + ", " + member + text[at:]
            at = last.comma + 1
            return text[:at] + " " + member + text[at:]
        after = last.value.end if last.comma is None else last.comma + 1
        at = self._end_of_line(after)
        if last.comma is None:
            # The comma goes right after the value, the member after a comment on that line.
            head, middle = text[: last.value.end] + ",", text[last.value.end : at]
            return head + middle + nl + indent + member + text[at:]
        # A file that ends its members with a comma gets one after the new member too.
        return text[:at] + nl + indent + member + "," + text[at:]

    def _end_of_line(self, at: int) -> int:
        """Past spaces and a comment that close the line at `at` (its newline), else `at`."""
        text, pos = self.text, at
        while pos < len(text):
            if text[pos] in " \t":
                pos += 1
            elif text.startswith("//", pos):
                newline = text.find("\n", pos)
                pos = len(text) if newline < 0 else newline
            elif text.startswith("/*", pos) and "\n" not in text[pos : text.find("*/", pos)]:
                pos = text.find("*/", pos) + 2
            else:
                break
        if pos < len(text) and text[pos] in "\r\n":
            return pos - 1 if text[pos] == "\n" and text[pos - 1] == "\r" else pos
        return at

    def remove(self, path: tuple[str, ...], name: str) -> str | None:
        """The text without `name` in the object at `path`, or None when it is not there."""
        node, missing = self._walk(path)
        if node is None or missing:
            return None
        member = node.find(name)
        if member is None:
            return None
        text = self.text
        index = node.members.index(member)
        start = member.key_start
        end = member.value.end if member.comma is None else member.comma + 1
        edits: list[tuple[int, int]] = []
        if member.comma is None and index > 0:
            comma = node.members[index - 1].comma
            assert comma is not None
            edits.append((comma, comma + 1))
        line = _line_start(text, start)
        if not text[line:start].strip(" \t"):
            # A member on lines of its own goes with its lines, and a comment closing them.
            close = self._end_of_line(end)
            if close != end or text.startswith(("\n", "\r\n"), end):
                start = line
                end = close + (2 if text.startswith("\r\n", close) else 1)
        edits.append((start, end))
        for cut_start, cut_end in sorted(edits, reverse=True):
            text = text[:cut_start] + text[cut_end:]
        return self._checked(text)

    def _checked(self, text: str) -> str:
        """Our own output, parsed again: a bug here must never reach the user's file."""
        parse(text, comments=self.comments, trailing_commas=self.trailing_commas)
        return text
