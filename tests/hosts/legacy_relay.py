"""Relay stdio between a host and a plainmcp server as a server of 2025-11-25 and before would
answer: `python legacy_relay.py RECORD COMMAND...`. A `server/discover` is answered here with
-32601 (what a server without 2026-07-28 answers) and never reaches the server, so a host that
speaks 2026-07-28 falls back to its `initialize` handshake, whose params a test then reads. Every
line is written to RECORD as tests/interop/relay.py writes it ("C <line>" from the host, "S
<line>" to it)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

NOT_FOUND = {"code": -32601, "message": "Method not found: server/discover"}


def main() -> None:
    record = open(sys.argv[1], "ab")  # noqa: SIM115 - open for the whole run
    lock = threading.Lock()
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin, child.stdout

    def write(prefix: bytes, line: bytes, out: object = None) -> None:
        with lock:
            record.write(prefix + line)
            record.flush()
            if out is not None:
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()

    def upstream() -> None:
        for line in iter(sys.stdin.buffer.readline, b""):
            write(b"C ", line)
            message = json.loads(line)
            if message.get("method") == "server/discover":
                reply = {"jsonrpc": "2.0", "id": message["id"], "error": NOT_FOUND}
                write(b"S ", json.dumps(reply).encode() + b"\n", out=True)
                continue
            to_child.write(line)
            to_child.flush()
        to_child.close()

    threading.Thread(target=upstream, daemon=True).start()
    for line in iter(from_child.readline, b""):
        write(b"S ", line, out=True)
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
