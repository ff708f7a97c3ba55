"""In-process tools/call driver for instruction counts: feeds N request lines to a Connection.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python bench/calls.py TOOL N

Instructions per call are (count at N=2000 - count at N=0) / 2000. TOOL is one of the tools
below; `--2026` sends the 2026-07-28 envelope instead of a handshake. No transport, no pipes:
what is left is plainmcp's own work per call (and, for `def` tools, the hand-off to a thread).
"""

from __future__ import annotations

import asyncio
import sys

import anyio

from plainmcp import Server

app = Server("calls")


@app.tool
def add(a: int, b: int) -> int:
    return a + b


@app.tool
async def add_async(a: int, b: int) -> int:
    return a + b


ENVELOPE = (
    ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"},'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"b","version":"1"}}}'
)


async def main(tool: str, n: int, stateless: bool) -> None:
    done = asyncio.Event()
    expected = n + (0 if stateless else 1)
    count = 0

    async def send(data: bytes) -> None:
        nonlocal count
        count += 1
        if count == expected:
            done.set()

    meta = ENVELOPE if stateless else ""
    async with anyio.create_task_group() as tg:
        conn = app.connect(send)
        conn.bind(tg)
        if not stateless:
            conn.receive_nowait(INITIALIZE)
        for i in range(1, n + 1):
            line = (
                f'{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"{tool}",'
                f'"arguments":{{"a":{i},"b":3}}{meta}}}}}'
            )
            conn.receive_nowait(line.encode())
            if i % 64 == 0:
                await asyncio.sleep(0)
        if expected:
            await done.wait()
        conn.close()
        tg.cancel_scope.cancel()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    asyncio.run(main(args[0], int(args[1]), "--2026" in sys.argv))
