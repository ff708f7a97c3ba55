"""What every benchmark server returns, built the same way for each library.

Only the standard library is used here, so the ceiling server pays for nothing it does not need.
"""

from __future__ import annotations

import functools
import os
import random
import struct
import sys
import threading
import time
import zlib

IMAGE_BYTES = 4 * 1024 * 1024
"""Size of the big_image payload in raw bytes (4 MiB; about 5.6 MB once base64-encoded)."""


@functools.cache
def png() -> bytes:
    """A PNG signature and IHDR chunk followed by incompressible filler, IMAGE_BYTES long.

    Enough for a MIME sniffer to say image/png; built on first use so it does not count towards
    start-up. The filler comes from a fixed seed, so every server sends the same bytes.
    """
    header = struct.pack(">IIBBBBB", 1024, 1024, 8, 6, 0, 0, 0)
    chunk = b"IHDR" + header
    head = (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", len(header))
        + chunk
        + struct.pack(">I", zlib.crc32(chunk) & 0xFFFFFFFF)
    )
    return head + random.Random(6).randbytes(IMAGE_BYTES - len(head))


def rows(n: int) -> list[dict[str, object]]:
    """n small records: the many_rows payload."""
    return [{"id": i, "name": f"row-{i}", "value": i * 0.5, "ok": i % 2 == 0} for i in range(n)]


LONG_TEXT = 150_000
"""Characters of the continuation scenario's text result."""


@functools.cache
def long(n: int) -> str:
    """n characters of prose-like text: lines of eight words, each line ending in a newline."""
    line = " ".join(f"word{i % 97}" for i in range(8)) + "\n"
    text = "".join(line.replace("word", ("alpha", "beta", "gamma")[k % 3]) for k in range(n // 40))
    return (text * (n // len(text) + 1))[:n]


def http_port(argv: list[str]) -> int | None:
    """`--http PORT` on the command line: the port to serve Streamable HTTP on; else None."""
    if "--http" in argv:
        return int(argv[argv.index("--http") + 1])
    return None


def watchdog() -> None:
    """Exit when the harness that started this process is gone (BENCH_WATCHDOG=1 turns it on).

    The harness stops every server by its pid; this is the net for a harness that crashed.
    """
    if os.environ.get("BENCH_WATCHDOG") != "1":
        return
    parent = os.getppid()
    deadline = time.monotonic() + float(os.environ.get("BENCH_MAX_LIFETIME", "1800"))

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent or time.monotonic() > deadline:
                print("bench watchdog: harness gone, exiting", file=sys.stderr)
                os._exit(3)

    threading.Thread(target=watch, name="bench-watchdog", daemon=True).start()
