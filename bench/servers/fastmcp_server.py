"""Benchmark fixture: FastMCP (PyPI fastmcp 4.x).

stdio: python fastmcp_server.py
HTTP:  python fastmcp_server.py --http PORT   (streamable HTTP at /mcp, JSON responses)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fastmcp import FastMCP
from fastmcp.utilities.types import Image
from fixtures import http_port, png, rows, watchdog

mcp = FastMCP("bench-fastmcp")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
async def add_async(a: int, b: int) -> int:
    """Add two integers (a coroutine: no worker thread)."""
    return a + b


@mcp.tool
def echo_text(text: str) -> str:
    """Return the text unchanged."""
    return text


@mcp.tool
def big_image() -> Image:
    """A 4 MiB PNG."""
    return Image(data=png(), format="png")


@mcp.tool
def many_rows(n: int) -> list[dict]:
    """n small records as structured output."""
    return rows(n)


if __name__ == "__main__":
    watchdog()
    port = http_port(sys.argv)
    if port is None:
        mcp.run(show_banner=False)
    else:
        mcp.run("http", host="127.0.0.1", port=port, json_response=True, show_banner=False)
