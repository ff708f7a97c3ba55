"""Resource URIs and RFC 6570 level-1 URI templates (`files://{name}`): parsing and matching.

A variable matches one URI segment (never across "/"), is percent-decoded once, and is refused
when the decoded value could walk a path ("..", "/", "\\", NUL), so a function that joins it onto
a directory cannot be led outside it. No I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["UriTemplate", "check_uri", "parse_uri", "template_variables"]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = "+#./;?&=,!@|"
_SEGMENT = "([^/]+)"


@dataclass(frozen=True, slots=True)
class UriTemplate:
    """A parsed URI (template): its variables in order, and the regex that matches it."""

    text: str
    variables: tuple[str, ...]
    pattern: re.Pattern[str]

    def match(self, uri: str) -> list[str] | None:
        """The variables' values in `uri`, in order and decoded; None when `uri` does not match
        or a value is unsafe (see the module docstring)."""
        found = self.pattern.fullmatch(uri)
        if found is None:
            return None
        values = []
        for raw in found.groups():
            value = _safe_value(raw)
            if value is None:
                return None
            values.append(value)
        return values


def check_uri(uri: str, what: str = "uri") -> None:
    """ValueError unless `uri` is a non-empty string with a scheme and no whitespace."""
    if not isinstance(uri, str) or not uri:
        raise ValueError(f"a resource needs a {what} (a non-empty string)")
    if not _SCHEME.match(uri):
        raise ValueError(f"{what} {uri!r} has no scheme; use e.g. 'file:///…' or 'app://…'")
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in uri):
        raise ValueError(f"{what} {uri!r} contains whitespace or control characters")


def template_variables(uri: str) -> tuple[str, ...]:
    """The variable names of a URI template (empty for a plain URI); ValueError if malformed."""
    return _parse(uri).variables


def parse_uri(uri: str) -> UriTemplate:
    """A resource's URI or URI template, checked (ValueError saying what is wrong)."""
    parsed = _parse(uri)
    what = "uri template" if parsed.variables else "uri"
    check_uri(_EXPRESSION.sub("x", uri), what)
    return parsed


def _parse(template: str) -> UriTemplate:
    """Variable names and the matching regex of a level-1 template; ValueError otherwise."""
    names: list[str] = []
    pattern: list[str] = []
    pos = 0
    for match in _EXPRESSION.finditer(template):
        literal = template[pos : match.start()]
        if "{" in literal or "}" in literal:
            raise ValueError(f"unbalanced braces in resource template {template!r}")
        if not literal and names:
            raise ValueError(
                f"resource template {template!r}: variables {{{names[-1]}}} and"
                f" {{{match.group(1)}}} need literal text between them to be told apart"
            )
        expression = match.group(1)
        if expression and expression[0] in _OPERATORS:
            raise ValueError(
                f"resource template {template!r}: {{{expression}}} uses operator"
                f" {expression[0]!r}; only level-1 simple expansion {{name}} is supported"
            )
        if not _VARNAME.fullmatch(expression):
            raise ValueError(
                f"resource template {template!r}: {{{expression}}} is not a plain variable"
                " name (lists, prefixes ':n' and explode '*' are not supported)"
            )
        if expression in names:
            raise ValueError(f"resource template {template!r} repeats variable {expression!r}")
        names.append(expression)
        pattern.append(re.escape(literal))
        pattern.append(_SEGMENT)
        pos = match.end()
    tail = template[pos:]
    if "{" in tail or "}" in tail:
        raise ValueError(f"unbalanced braces in resource template {template!r}")
    pattern.append(re.escape(tail))
    return UriTemplate(template, tuple(names), re.compile("".join(pattern)))


def _safe_value(raw: str) -> str | None:
    """A matched variable, percent-decoded once; None when it could walk a path."""
    try:
        value = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    if value in (".", "..") or any(c in value for c in "/\\\x00"):
        return None
    return value
