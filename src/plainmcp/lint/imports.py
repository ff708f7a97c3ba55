"""What importing a server module costs, read from `python -X importtime` (sans I/O: the
command runs the subprocess, this reads its stderr)."""

from __future__ import annotations

from dataclasses import dataclass

START = "plainmcp-check: import starts"
"""Written to stderr right before the module is run: what Python imported for itself before
it is not the module's cost."""
TOTAL = "plainmcp-check: import took us "
"""Written to stderr after it, with the microseconds the whole import took."""


@dataclass(frozen=True, slots=True)
class ImportCost:
    total_us: int
    heaviest: tuple[tuple[str, int], ...]
    """The costliest modules the server module imported itself (top level), cumulative
    microseconds, costliest first."""


def import_cost(stderr: str, count: int = 5, floor_us: int = 1000) -> ImportCost | None:
    """The cost written by the child (START, importtime lines, TOTAL): the `count` costliest
    modules of at least `floor_us`. None when the child did not get as far as TOTAL (the module
    failed or the child was stopped)."""
    started = False
    top: dict[str, int] = {}
    for line in stderr.splitlines():
        if line == START:
            started = True
        elif line.startswith(TOTAL):
            total = int(line.removeprefix(TOTAL))
            kept = [item for item in top.items() if item[1] >= floor_us]
            ranked = sorted(kept, key=lambda item: (-item[1], item[0]))
            return ImportCost(total, tuple(ranked[:count]))
        elif started and line.startswith("import time:"):
            parts = line.removeprefix("import time:").split("|")
            if len(parts) != 3 or not parts[1].strip().isdigit():
                continue
            name = parts[2][1:]  # one space after the bar; deeper imports are indented more
            if not name.startswith(" "):
                top[name.strip()] = top.get(name.strip(), 0) + int(parts[1])
    return None
