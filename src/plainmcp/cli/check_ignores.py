"""Which problems `plainmcp check` leaves out: `--ignore CODE[:SUBJECT]`, and a project's own
list in `[tool.plainmcp.check]` of the nearest pyproject.toml."""

from __future__ import annotations

from collections.abc import Sequence

from plainmcp.cli.usage import UsageError
from plainmcp.lint.problems import Problem


def ignores(given: Sequence[str]) -> list[tuple[str, str | None]]:
    """`--ignore CODE` or `--ignore CODE:SUBJECT` as (code, subject or None)."""
    from plainmcp.lint.problems import CODES

    out = []
    for item in given:
        code, sep, subject = item.partition(":")
        if code not in CODES:
            raise UsageError(f"--ignore: no problem code {code!r} (codes: {', '.join(CODES)})")
        out.append((code, subject.strip() if sep else None))
    return out


def config_ignores(target: str) -> list[str]:
    """The `ignore` list of `[tool.plainmcp.check]` in the nearest pyproject.toml above the
    server file: problems a project accepts (names a test suite fixes, say) stay out of every
    run without repeating `--ignore`."""
    import tomllib
    from pathlib import Path

    from plainmcp.cli.target import split_target

    folder = Path(split_target(target)[0]).resolve().parent
    for place in (folder, *folder.parents):
        path = place / "pyproject.toml"
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            problem = f"{path}: not readable TOML ({exc}); fix it or pass --no-config"
            raise UsageError(problem) from None
        table = data.get("tool", {}).get("plainmcp", {}).get("check", {})
        given = table.get("ignore", []) if isinstance(table, dict) else None
        if not isinstance(given, list) or not all(isinstance(x, str) for x in given):
            raise UsageError(
                f"{path}: [tool.plainmcp.check] ignore must be a list of strings"
                " ('CODE' or 'CODE:SUBJECT')"
            )
        return given
    return []


def is_ignored(problem: Problem, rules: Sequence[tuple[str, str | None]]) -> bool:
    """A rule's SUBJECT matches the subject itself and what is inside it (`tool add` covers
    `tool add parameter a` and `tool add call {...}`)."""
    return any(
        code == problem.code
        and (
            subject is None
            or problem.subject in (subject,)
            or problem.subject.startswith(subject + " ")
        )
        for code, subject in rules
    )
