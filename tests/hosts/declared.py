"""What a real host declares when it connects, read from the record of every message it sent.

A host is pointed at fixture_server.py through tests/interop/relay.py (or legacy_relay.py, which
answers `server/discover` with -32601 as a server before 2026-07-28 does), so the record holds
each line the host wrote, "C <line>". `declared` reads from it what the host said of itself:
the revision it asked for, whether it asked `server/discover` first, and its capabilities,
exactly as sent; the host profiles hold the same as data (plainmcp.hosts.profiles, the
`declared*` cells), and test_declared.py pins the two equal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from plainmcp.hosts.profiles.cells import Declared
from tests.hosts.claude_code import FIXTURE, RELAY

LEGACY_RELAY = Path(__file__).resolve().parent / "legacy_relay.py"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


def relayed(record: Path, obj: str = "app", *, legacy: bool = False) -> tuple[str, ...]:
    """The command that serves fixture_server.py:OBJ over stdio through a relay writing
    `record` (legacy: one that refuses `server/discover`)."""
    relay = LEGACY_RELAY if legacy else RELAY
    serve = (sys.executable, "-m", "plainmcp", "run", f"{FIXTURE}:{obj}")
    return (sys.executable, str(relay), str(record), *serve)


def sent(record: Path | list[str]) -> list[dict[str, Any]]:
    """Every message the host sent, in order."""
    lines = record.read_text().splitlines() if isinstance(record, Path) else record
    return [json.loads(line[2:]) for line in lines if line.startswith("C ")]


def _declared_in(message: dict[str, Any], discover: bool) -> Declared:
    params = message.get("params") or {}
    if message["method"] == "initialize":
        return Declared.of(params["protocolVersion"], discover, params["capabilities"])
    meta = params["_meta"]
    return Declared.of(meta[META_VERSION], discover, meta[META_CAPABILITIES])


def declared(record: Path | list[str]) -> Declared:
    """What the host declared first: the `server/discover` it opened with (a 2026-07-28 host),
    else its initialize."""
    messages = [m for m in sent(record) if "method" in m and "id" in m]
    first = messages[0]
    assert first["method"] in ("server/discover", "initialize"), first
    return _declared_in(first, first["method"] == "server/discover")


def fallback(record: Path | list[str]) -> Declared:
    """The initialize a host sent after its `server/discover` was refused."""
    messages = [m for m in sent(record) if "method" in m and "id" in m]
    assert messages[0]["method"] == "server/discover", messages[0]
    initialize = [m for m in messages if m["method"] == "initialize"]
    assert len(initialize) == 1, [m["method"] for m in messages]
    return _declared_in(initialize[0], False)


def stateless_capabilities(record: Path | list[str]) -> list[Any]:
    """The clientCapabilities of each 2026-07-28 request after the first, in order."""
    return [
        m["params"]["_meta"].get(META_CAPABILITIES)
        for m in sent(record)[1:]
        if "id" in m and META_VERSION in ((m.get("params") or {}).get("_meta") or {})
    ]


def methods(record: Path | list[str]) -> list[str]:
    """The methods of the requests the host sent, in order."""
    return [m["method"] for m in sent(record) if "method" in m and "id" in m]
