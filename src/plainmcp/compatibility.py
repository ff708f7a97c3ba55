"""docs/compatibility.md: the revision table (wire.revisions) and, below it, the extensions a
Server offers at each revision: what it announces there (`capabilities.extensions`, which each
extension's own `since`/`offered_in` and `capability()` decide, and the core capabilities),
never a hand-written list.

The page is generated from the everything server (examples/everything_server.py), the fixture
that enables every feature plainmcp has:
`python -m plainmcp.compatibility examples/everything_server.py > docs/compatibility.md`
(tests/test_compatibility.py fails when the file is stale). Any other server file prints that
server's page.
"""

from __future__ import annotations

import json
import runpy
import sys
from typing import TYPE_CHECKING

from plainmcp.wire.revisions import REVISIONS, compatibility_markdown

if TYPE_CHECKING:
    from plainmcp.server import Server

__all__ = ["CORE_CAPABILITIES", "extensions_markdown", "load_server", "page"]

CORE_CAPABILITIES: tuple[tuple[str, str], ...] = (
    ("tasks", "core `tasks` capability (2025-11-25: `tasks/*`, `execution.taskSupport`)"),
)
"""Core capabilities listed beside the extensions, each with its row's label: features that
are a capability in one revision and an extension in another (2026-07-28 moved tasks to
`io.modelcontextprotocol/tasks`). A cell says whether the Server announces it there."""


def _mark(flag: bool) -> str:
    return "yes" if flag else "–"


def extensions_markdown(server: Server) -> str:
    """The page's extensions section for `server`: at each revision, which core capabilities of
    CORE_CAPABILITIES and which of its extensions it announces (the extensions' own `since` or
    `offered_in` decide), then each extension's first revision and settings as announced."""
    revs = list(REVISIONS.values())
    offered = [server.offers.capabilities(rev) for rev in revs]
    entries = [caps.get("extensions") or {} for caps in offered]
    extensions = server.core.extensions
    rows = [
        f"| {label} | " + " | ".join(_mark(name in caps) for caps in offered) + " |"
        for name, label in CORE_CAPABILITIES
    ]
    rows += [
        f"| extension `{ext.id}` | " + " | ".join(_mark(ext.id in e) for e in entries) + " |"
        for ext in extensions
    ]
    head = "| | " + " | ".join(r.version for r in revs) + " |"
    rule = "|---|" + "---|" * len(revs)
    out = [head, rule, *rows]
    if not extensions:
        return "\n".join([*out, "", "The server is given no extensions."])
    out += ["", "| extension | offered from | settings (`capabilities.extensions[id]`) |"]
    out += ["|---|---|---|"]
    for ext in extensions:
        at = [(r.version, e[ext.id]) for r, e in zip(revs, entries, strict=True) if ext.id in e]
        first, settings = (at[0][0], at[-1][1]) if at else ("–", dict(ext.capability()))
        out.append(f"| `{ext.id}` | {first} | `{json.dumps(settings, sort_keys=True)}` |")
    return "\n".join(out)


def page(server: Server) -> str:
    """docs/compatibility.md for `server`: the revision table, then its extensions."""
    return compatibility_markdown(extensions=extensions_markdown(server))


def load_server(path: str) -> Server:
    """The one Server a file defines at module level (run as a module, not as __main__)."""
    from plainmcp.server import Server

    found = {id(v): v for v in runpy.run_path(path).values() if isinstance(v, Server)}
    if len(found) != 1:
        raise SystemExit(f"{path} must define exactly one plainmcp.Server, not {len(found)}")
    return next(iter(found.values()))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m plainmcp.compatibility SERVER.py")
    sys.stdout.write(page(load_server(sys.argv[1])))
