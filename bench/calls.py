"""In-process tools/call driver for instruction counts: feeds N request lines to a Connection.

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python bench/calls.py TOOL N

Instructions per call are (count at N=2000 - count at N=0) / 2000. TOOL is one of the tools
below; `--2026` sends the 2026-07-28 envelope instead of a handshake. No transport, no pipes:
what is left is plainmcp's own work per call (and, for `def` tools, the hand-off to a thread).

The features of issue 18, each on its own so its cost can be told from the plain call:
`--middleware=noop` (one middleware that passes both hooks through), `--middleware=timing`
(the built-in Timing, its lines written to /dev/null), `--telemetry` (Telemetry() with no
OpenTelemetry SDK set up), `--client=NAME` (the handshake's clientInfo name: a host profile).
Without them the script uses nothing newer than Server, tool, connect, bind and receive_nowait,
so it also counts older checkouts (PYTHONPATH=old/src); `add_inline` (`inline=True`: the
function on the event loop) is registered only where the checkout has the option.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

import anyio

from plainmcp import Server


def option(name: str) -> str | None:
    """The value of --name=VALUE (or "" for a bare --name) on the command line, else None."""
    for arg in sys.argv[1:]:
        if arg == f"--{name}":
            return ""
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return None


def server() -> Server:
    kind = option("middleware")
    if option("telemetry") is not None:
        from plainmcp import Telemetry

        made = Server("calls", telemetry=Telemetry())
    else:
        made = Server("calls")
    if kind == "noop":
        from plainmcp.middleware import Middleware

        class Noop(Middleware):
            async def on_request(self, request: Any, call_next: Any) -> Any:
                return await call_next(request)

            async def on_call(self, call: Any, call_next: Any) -> Any:
                return await call_next(call)

        made.add_middleware(Noop())
    elif kind == "timing":
        import logging
        import os

        from plainmcp.middleware import Timing

        # Its line formatted and written, to /dev/null: the middleware's cost, not a terminal's.
        logging.basicConfig(level=logging.INFO, stream=open(os.devnull, "w"))  # noqa: SIM115
        made.add_middleware(Timing())
    elif kind is not None:
        raise SystemExit(f"--middleware takes noop or timing, not {kind!r}")
    return made


app = server()


@app.tool
def add(a: int, b: int) -> int:
    return a + b


@app.tool
async def add_async(a: int, b: int) -> int:
    return a + b


def add_inline(a: int, b: int) -> int:
    return a + b


with contextlib.suppress(TypeError):  # a checkout from before inline=True: nothing to count
    app.tool(inline=True)(add_inline)


ENVELOPE = (
    ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"},'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
CLIENT = option("client") or "b"
INITIALIZE = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    f'"capabilities":{{}},"clientInfo":{{"name":"{CLIENT}","version":"1"}}}}}}'
).encode()


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
