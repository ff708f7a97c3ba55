"""What `plainmcp check` reports: a problem, named by a stable code, about one subject."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

CODES: dict[str, str] = {
    "import-failed": "the module did not import",
    "stdout-at-import": "the module wrote to stdout while it was imported",
    "never-run": "a server file that `python FILE` would not serve",
    "schema-invalid": "not valid against the revision's official MCP schema",
    "schema-ref": "a $ref left in a tool's schema",
    "missing-description": "a tool or parameter without a description",
    "untyped-parameter": "a parameter whose schema has no type (the model sees any)",
    "name-rejected": "a tool name some host rejects",
    "example-invalid": "an example on a tool is not a valid call",
    "call-error": "a sample call failed",
    "over-limit": "a sample result over a host's size limit",
    "first-block-only": "several text blocks in an error where the host reads only the first",
    "image-only": "images or audio without text, for a host that drops them",
    "text-differs": "text that says something else than the structured value",
    "rest-lost": "a cut whose rest the host's model cannot reach",
}
"""Every problem code, with what it means (docs/check.md lists them)."""


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    subject: str
    """What it is about: `tool add`, `tool add parameter a`, `prompt greet`, `module`."""
    message: str
    revisions: tuple[str, ...] = ()
    """The revisions it happens at (empty: all, or none apply)."""
    hosts: tuple[str, ...] = ()
    """The host profiles it happens for (empty: it does not depend on the host)."""

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown problem code {self.code!r}")

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "subject": self.subject}
        out["message"] = self.message
        if self.revisions:
            out["revisions"] = list(self.revisions)
        if self.hosts:
            out["hosts"] = list(self.hosts)
        return out


@dataclass(slots=True)
class _Group:
    revisions: set[str] = field(default_factory=set)
    hosts: set[str] = field(default_factory=set)


def merged(found: Iterable[Problem], revision_order: Iterable[str]) -> list[Problem]:
    """One problem per (code, subject, message), with the revisions and hosts it was found
    at, sorted: the same report for the same server, run after run."""
    order = {v: i for i, v in enumerate(revision_order)}
    groups: dict[tuple[str, str, str], _Group] = {}
    for problem in found:
        group = groups.setdefault((problem.subject, problem.code, problem.message), _Group())
        group.revisions.update(problem.revisions)
        group.hosts.update(problem.hosts)
    return [
        Problem(
            code,
            subject,
            message,
            tuple(sorted(g.revisions, key=lambda v: (order.get(v, len(order)), v))),
            tuple(sorted(g.hosts)),
        )
        for (subject, code, message), g in sorted(groups.items())
    ]
