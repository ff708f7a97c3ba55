"""The e2e test server: one tool per content type and per failure mode, served on stdio."""

from __future__ import annotations

import os
import sys

import anyio

from plainmcp import (
    Annotations,
    Audio,
    EmbeddedResource,
    File,
    Image,
    ResourceLink,
    Server,
    ToolError,
)

print("noise printed at import time")  # must end up on stderr, never on the protocol stream

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
WAV = b"RIFF" + (36).to_bytes(4, "little") + b"WAVEfmt " + bytes(24) + b"data" + bytes(4)

app = Server("e2e", version="1.0.0", title="E2E", instructions="Test server.")


@app.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool
def text() -> str:
    return "plain text"


@app.tool
def image() -> Image:
    return Image(PNG)


@app.tool
def audio() -> Audio:
    return Audio(WAV)


@app.tool
def resources() -> list:  # type: ignore[type-arg]
    return [
        EmbeddedResource(uri="file:///notes.txt", text="notes", mime_type="text/plain"),
        File(b"\x00\x01\x02", mime_type="application/octet-stream"),
    ]


@app.tool
def link() -> ResourceLink:
    return ResourceLink(uri="https://example.com/data.csv", name="data.csv", mime_type="text/csv")


@app.tool
def mixed() -> list:  # type: ignore[type-arg]
    return [
        "A caption",
        Image(PNG, annotations=Annotations(audience="user", priority=0.5)),
        {"key": "value"},
    ]


@app.tool
def items() -> list[int]:
    return [1, 2, 3]


@app.tool
def raises() -> str:
    raise RuntimeError("kaboom")


@app.tool
def refuses() -> str:
    raise ToolError("Cannot divide by zero")


@app.tool
def garbage() -> object:
    return object()


@app.tool
async def hang() -> str:
    await anyio.sleep(3600)
    return "never"


@app.tool
async def slow(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@app.tool
def sync_slow(seconds: float) -> str:
    import time

    time.sleep(seconds)
    return f"slept {seconds}"


@app.tool
def prints() -> str:
    print("printed by a tool")
    sys.stdout.write("written to sys.stdout\n")
    return "printed"


@app.tool
def fd_write() -> str:
    os.write(1, b"written to fd 1 directly\n")
    return "wrote"


@app.tool
def size(data: str) -> int:
    return len(data)


if __name__ == "__main__":
    app.run()
