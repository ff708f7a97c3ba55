"""What `plainmcp check` found, and how it is printed: JSON for CI (stable, sorted by the
caller) or plain lines for a terminal."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plainmcp.lint.imports import ImportCost
    from plainmcp.lint.problems import Problem


@dataclass(frozen=True, slots=True)
class Sample:
    tool: str
    arguments: dict[str, Any]
    origin: str
    """`--call`, or `example N` for the N-th example declared on the tool."""

    @property
    def subject(self) -> str:
        args = json.dumps(self.arguments, ensure_ascii=False, separators=(",", ":"))
        return f"tool {self.tool} call {args}"


@dataclass(slots=True)
class Report:
    target: str
    server: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    revisions: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    samples: list[Sample] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ignored: int = 0
    """Problems found and left out by `--ignore`."""
    cost: ImportCost | None = None
    validation_not_run: str | None = None
    """Why the official schemas were not validated against (None: they were)."""

    def as_json(self, timings: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "target": self.target,
            "server": self.server,
            "counts": self.counts,
            "revisions": list(self.revisions),
            "hosts": list(self.hosts),
            "samples": [
                {"tool": s.tool, "arguments": s.arguments, "from": s.origin} for s in self.samples
            ],
            "problems": [p.as_json() for p in self.problems],
            "ignored": self.ignored,
            "ok": not self.problems,
            "schema_validation": (
                {"run": True}
                if self.validation_not_run is None
                else {"run": False, "why": self.validation_not_run}
            ),
        }
        if timings and self.cost is not None:
            out["import"] = {
                "total_us": self.cost.total_us,
                "heaviest": [{"module": m, "cumulative_us": us} for m, us in self.cost.heaviest],
            }
        return out


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _span(values: Sequence[str], every: Sequence[str]) -> str:
    return "every revision" if list(values) == list(every) else ", ".join(values)


def human(report: Report) -> Iterator[str]:
    """The report as plain lines for a terminal."""
    counts = report.counts
    yield (
        f"plainmcp check {report.target}: server {report.server!r},"
        f" {_plural(counts.get('tools', 0), 'tool')},"
        f" {_plural(counts.get('prompts', 0), 'prompt')},"
        f" {_plural(counts.get('resources', 0), 'resource')},"
        f" {_plural(counts.get('resourceTemplates', 0), 'resource template')}"
    )
    yield (
        f"checked at {_plural(len(report.revisions), 'revision')} ({', '.join(report.revisions)})"
        f" for {_plural(len(report.hosts), 'host profile')} ({', '.join(report.hosts)}),"
        f" {_plural(len(report.samples), 'sample call')}"
    )
    if report.cost is not None:
        heavy = ", ".join(f"{m} {us / 1e6:.2f} s" for m, us in report.cost.heaviest)
        yield f"import took {report.cost.total_us / 1e6:.2f} s" + (
            f"; heaviest: {heavy}" if heavy else ""
        )
    if report.validation_not_run is not None:
        yield f"schema validation: not run: {report.validation_not_run}"
    left_out = f" ({report.ignored} ignored)" if report.ignored else ""
    if not report.problems:
        yield f"no problems found{left_out}"
        return
    yield ""
    yield f"{_plural(len(report.problems), 'problem')}{left_out}:"
    for problem in report.problems:
        yield f"{problem.code}: {problem.subject}: {problem.message}"
        where = []
        if problem.revisions:
            where.append(_span(problem.revisions, report.revisions))
        if problem.hosts:
            where.append(f"hosts {', '.join(problem.hosts)}")
        if where:
            yield f"    at {'; '.join(where)}"
