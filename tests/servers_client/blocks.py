"""A server for the client and CLI tests: one tool per content type, errors, pagination."""

from __future__ import annotations

import struct
import zlib

import anyio

from plainmcp import (
    Annotations,
    Audio,
    EmbeddedResource,
    Image,
    ResourceLink,
    Server,
    Text,
    ToolError,
    ToolResult,
)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


PNG = (
    b"\x89PNG\r\n\x1a\n"
    + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    + _chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
    + _chunk(b"IEND", b"")
)
WAV = b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + bytes(28) + b"data" + bytes(4)

app = Server(
    "blocks",
    version="1.2.3",
    title="Blocks",
    instructions="Test tools.",
    page_size=2,
    continuation=None,
)


@app.tool
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@app.tool(title="Divide")
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        raise ToolError("Cannot divide by zero")
    return a / b


@app.tool
def echo(text: str, times: int = 1) -> str:
    """Repeat text."""
    return text * times


@app.tool
def image() -> list:
    """A caption and a PNG."""
    return [
        "A red pixel",
        Image(PNG, annotations=Annotations(audience="user", priority=0.5), meta={"k": 1}),
    ]


@app.tool
def audio() -> Audio:
    """A WAV clip."""
    return Audio(WAV)


@app.tool
def resources() -> list:
    """Embedded text and blob resources."""
    return [
        EmbeddedResource(uri="file:///notes.txt", text="hello", mime_type="text/plain"),
        EmbeddedResource(
            uri="file:///data.bin", blob=b"\x00\x01\x02", mime_type="application/octet-stream"
        ),
    ]


@app.tool
def link() -> ResourceLink:
    """A resource link."""
    return ResourceLink(
        uri="https://example.com/report.pdf",
        name="report.pdf",
        title="Report",
        mime_type="application/pdf",
        size=1234,
    )


@app.tool
def everything() -> ToolResult:
    """Structured content, meta and text together."""
    return ToolResult(
        [Text("summary", annotations=Annotations(last_modified="2025-01-02T03:04:05+00:00"))],
        structured={"count": 2, "items": ["a", "b"]},
        meta={"trace": "abc"},
    )


@app.tool
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await anyio.sleep(seconds)
    return f"slept {seconds}"


if __name__ == "__main__":
    app.run()
