"""Relay stdio between a client and a server process, writing every line to a record file:
`python relay.py RECORD COMMAND...`. Lines from the client are written "C <line>", lines from
the server "S <line>", so that a test can validate each message the server wrote."""

from __future__ import annotations

import subprocess
import sys
import threading


def main() -> None:
    record = open(sys.argv[1], "ab")  # noqa: SIM115 - open for the whole run
    lock = threading.Lock()
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin, child.stdout

    def write(prefix: bytes, line: bytes) -> None:
        with lock:
            record.write(prefix + line)
            record.flush()

    def upstream() -> None:
        for line in iter(sys.stdin.buffer.readline, b""):
            write(b"C ", line)
            to_child.write(line)
            to_child.flush()
        to_child.close()

    threading.Thread(target=upstream, daemon=True).start()
    for line in iter(from_child.readline, b""):
        write(b"S ", line)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
