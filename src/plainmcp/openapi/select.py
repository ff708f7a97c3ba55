"""Which operations become tools: nothing unless chosen (an API's internal and admin operations
are never exposed by accident, fastmcp#548). A rule is an operationId, `tag:NAME`,
`METHOD /path/pattern` (fnmatch, `*` any text), `*` (everything, said explicitly) or a callable
taking the Operation."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from typing import TypeAlias

from plainmcp.openapi.document import Operation

Rule: TypeAlias = str | Callable[[Operation], bool]
ALL = "*"
"""include=ALL (or "*"): every operation of the document, as a decision written down."""


def matches(rule: Rule, operation: Operation) -> bool:
    if callable(rule):
        return bool(rule(operation))
    if rule == ALL:
        return True
    if rule.startswith("tag:"):
        return rule[4:] in operation.tags
    method, _, pattern = rule.partition(" ")
    if pattern and (method == "*" or (method.isalpha() and method.isupper())):
        return (method in ("*", operation.method)) and fnmatchcase(operation.path, pattern)
    return rule == operation.operation_id


def chosen(
    operations: Iterable[Operation], include: Rule | Iterable[Rule], exclude: Rule | Iterable[Rule]
) -> list[Operation]:
    """The operations some `include` rule matches and no `exclude` rule does, in order."""
    include, exclude = rules(include, "include"), rules(exclude, "exclude")
    return [
        op
        for op in operations
        if any(matches(r, op) for r in include) and not any(matches(r, op) for r in exclude)
    ]


def rules(given: Rule | Iterable[Rule], what: str) -> list[Rule]:
    """One rule or many, as a list; TypeError for anything that is not a rule."""
    if isinstance(given, str) or callable(given):
        return [given]
    out = list(given)
    for rule in out:
        if not (isinstance(rule, str) or callable(rule)):
            raise TypeError(f"{what}= takes operationIds, 'tag:NAME', 'METHOD /path' or callables")
    return out
