"""Every client scenario the runner knows (examples/conformance_client.py --list), at every
revision the suite lists it for, with 0.2.0-alpha.12 and with 0.1.16; scored: a run passes when
every check it wrote is SUCCESS or INFO (a record of traffic): a FAILURE, a WARNING or a SKIPPED
check (the scenario did not happen) fails it, as does a run that wrote none, except the few
SKIPPED checks in EXCUSED, each with why. A client scenario a suite lists that the runner does
not know fails, and so does one the runner knows that neither suite ran. Extension scenarios are
off the spec timeline: they run with --force at EXTENSION_REVISIONS.

Usage: python scripts/conformance_clients.py OUT_DIR (scripts/conformance calls it).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = ROOT / "tests/interop/node_modules"
NODE = str(NODE_DIR / ".bin/node")
PYTHON = str(ROOT / ".venv/bin/python")
RUNNER = "examples/conformance_client.py"
SUITES = {"alpha": "conformance-alpha", "stable": "conformance-stable"}
EXTENSION_REVISIONS = {"sep-2640-client-": ("2025-11-25", "2026-07-28"), "": ("2026-07-28",)}
"""Where an [extension] scenario runs, by name prefix (the first that matches)."""
EXCUSED = {
    ("http-standard-headers", "ClientMcpMethodHeader_initialize"): "the scenario runs only at"
    " 2026-07-28, which has no initialize: the client never sends one there",
    ("http-standard-headers", "ClientMcpMethodHeader_notifications_initialized"): "as above:"
    " 2026-07-28 has no notifications/initialized either",
}
"""(scenario, check name) pairs whose SKIPPED status is not a failure, each with why."""
LISTED = re.compile(r"^\s+- (\S+) \[([^\]]+)\]$")


def client_scenarios(suite: str) -> dict[str, list[str]]:
    """The suite's client scenarios with the revisions its `list` gives each."""
    out = subprocess.run(
        [NODE, str(NODE_DIR / SUITES[suite] / "dist/index.js"), "list"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    section = out.split("Client scenarios", 1)[1].split("Authorization server scenarios", 1)[0]
    return {m[1]: m[2].split(",") for line in section.splitlines() if (m := LISTED.match(line))}


def revisions(suite: str, name: str, listed: list[str]) -> list[tuple[str, bool]]:
    """(revision, forced) pairs to run `name` at; 0.1.16 has no --force and no 2026-07-28: it runs
    an extension scenario without a revision ("")."""
    if listed != ["extension"]:
        return [(v, False) for v in listed]
    if suite == "stable":
        return [("", False)]
    prefix = next(p for p in EXTENSION_REVISIONS if name.startswith(p))
    return [(v, True) for v in EXTENSION_REVISIONS[prefix]]


def run_one(out: Path, suite: str, name: str, version: str, forced: bool) -> str | None:
    """None when every check succeeded, else what went wrong."""
    where = out / suite / (version or "extension") / name.replace("/", "_")
    where.mkdir(parents=True, exist_ok=True)
    command = [
        NODE, str(NODE_DIR / SUITES[suite] / "dist/index.js"), "client",
        "--command", f"{PYTHON} {RUNNER}", "--scenario", name,
        "-o", str(where),
    ] + (["--spec-version", version] if version else [])  # fmt: skip
    command += ["--force"] if forced else []
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=180)
    (where / "suite.log").write_text(done.stdout + done.stderr)
    found = sorted(where.rglob("checks.json"))
    checks = [c for path in found for c in json.loads(path.read_text())]
    bad = [f"{c['status']} {c['id']}: {c.get('errorMessage', '')}" for c in checks
           if c["status"] not in ("SUCCESS", "INFO")
           and not (c["status"] == "SKIPPED" and (name, c["name"]) in EXCUSED)]  # fmt: skip
    if not checks:
        return f"no checks written (exit {done.returncode}; {where / 'suite.log'})"
    if bad or done.returncode != 0:
        return "; ".join(bad) or f"suite exit {done.returncode} ({where / 'suite.log'})"
    return None


def main() -> int:
    out = Path(sys.argv[1])
    known = subprocess.run(
        [PYTHON, RUNNER, "--list"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    listed_by = {suite: client_scenarios(suite) for suite in SUITES}
    runs = [
        (suite, name, version, forced)
        for suite in SUITES
        for name, listed in listed_by[suite].items()
        for version, forced in revisions(suite, name, listed)
    ]
    unknown = sorted({f"{s} {n}" for s, n, _, _ in runs if n not in known})
    runs = [r for r in runs if r[1] in known]
    never = sorted(set(known) - {name for _, name, _, _ in runs})
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda r: (r, run_one(out, *r)), runs))
    failed = [f"{s} {n} at {v}: {why}" for (s, n, v, _), why in results if why is not None]
    for suite in SUITES:
        ran = [r for r in runs if r[0] == suite]
        print(f"conformance: client scenarios, {SUITES[suite]}: {len(ran)} runs of "
              f"{len({r[1] for r in ran})} scenarios")  # fmt: skip
    if never:
        failed.append(f"known to the runner but in no suite's list: {never}")
    if unknown:
        failed.append(f"listed by a suite but unknown to the runner: {unknown}")
    if failed:
        print("conformance: client scenarios FAILED:\n  " + "\n  ".join(failed))
        return 1
    print(f"conformance: client scenarios: all {len(runs)} runs, every check SUCCESS or INFO")
    return 0


if __name__ == "__main__":
    sys.exit(main())
