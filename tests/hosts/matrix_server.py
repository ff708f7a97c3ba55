"""The server of the host matrix (tests/hosts/test_matrix.py), at plainmcp's default limits:
one tool per promise plainmcp makes about what reaches the model.

- `log`: 150,000 characters with letters of one, two and three UTF-8 bytes;
- `table`: 10,000 rows with an output schema; `table_plain`: the same value without one;
- `both` / `both_typed`: a text that says more than the value beside it, without and with an
  output schema;
- `fails`: an isError result of two text blocks;
- `media`: an image, an audio clip, a resource link and an embedded resource after one caption.

`python matrix_server.py` serves it over stdio, `python matrix_server.py PORT` over HTTP; the
official SDK's and FastMCP's servers of the same tools are matrix_sdk.py and matrix_fastmcp.py.
Everything the model should end up with is a constant here, shared with the checks.
"""

from __future__ import annotations

import base64
import sys
from dataclasses import asdict, dataclass

from plainmcp import Audio, EmbeddedResource, Image, ResourceLink, Server, ToolResult

NAME = "mx"
"""The server's name in every host's config (short: some hosts prefix it to each tool name)."""


def long_text() -> str:
    """150,000 characters of numbered lines in paragraphs of ten, every line ending in a space;
    é, ô, ß take two UTF-8 bytes and — 日本 three, so a cut by bytes and one by characters
    fall in different places."""
    line = "Line {:06d}: naïve café, Straße, côte — 日本の本 and the lazy dog. \n"
    lines = (line.format(n) for n in range(3000))
    return "".join(text + ("\n" if n % 10 == 9 else "") for n, text in enumerate(lines))[:150_000]


@dataclass
class Row:
    id: int
    name: str
    score: float


def rows() -> list[Row]:
    return [Row(i, f"row {i} é", i / 7) for i in range(10_000)]


LONG = long_text()
ROWS = [asdict(row) for row in rows()]
BOTH_TEXT = "TEXT-SAYS-SEVEN files were found, two of them today"
BOTH_VALUE = {"count": 2}
ERRORS = ("FIRST-PROBLEM: the disk is full", "SECOND-PROBLEM: the backup failed too")
CAPTION = "Four attachments follow."
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC"
)
WAV = (
    b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00@\x1f\x00\x00"
    b"\x01\x00\x08\x00data\x00\x00\x00\x00"
)
LINK_URI = "fixture://reports/q3.txt"
LINK_NAME = "q3.txt"
EMBEDDED_URI = "fixture://notes/today.txt"
EMBEDDED_TEXT = "EMBEDDED-NOTE: call the plumber at nine"

app = Server("matrix", version="1.0.0")


@app.tool(name="log")
def log_tool() -> str:
    """The whole log."""
    return LONG


@app.tool
def table() -> list[Row]:
    """Every row of the table."""
    return rows()


@app.tool
def table_plain() -> ToolResult:
    """Every row of the table, as a value without an output schema."""
    return ToolResult(structured=ROWS)


@app.tool
def both() -> ToolResult:
    """A text that says more than the value beside it."""
    return ToolResult(BOTH_TEXT, structured=BOTH_VALUE)


@app.tool(
    output_schema={
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    }
)
def both_typed() -> ToolResult:
    """The same, with an output schema."""
    return ToolResult(BOTH_TEXT, structured=BOTH_VALUE)


@app.tool
def fails() -> ToolResult:
    """A failure in two text blocks."""
    return ToolResult(list(ERRORS), is_error=True)


@app.tool
def media() -> ToolResult:
    """An image, a recording, a link and a note."""
    return ToolResult(
        [
            CAPTION,
            Image(PNG, mime_type="image/png"),
            Audio(WAV, mime_type="audio/wav"),
            ResourceLink(uri=LINK_URI, name=LINK_NAME, mime_type="text/plain"),
            EmbeddedResource(uri=EMBEDDED_URI, text=EMBEDDED_TEXT, mime_type="text/plain"),
        ]
    )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        app.run("http", port=int(sys.argv[1]))
    else:
        app.run()
