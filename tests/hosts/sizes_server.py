"""The server the Chat Completions hosts' own tests (test_chat_hosts.py) are pointed at: results
of a chosen size in characters or in UTF-8 bytes, two text blocks, an image, one listed
resource, and a
log of who the client said it was (fixture_server.ClientLog), with no guard of plainmcp's in
the way.

`python sizes_server.py` serves it over stdio.
"""

from __future__ import annotations

import os

from plainmcp import Image, PayloadLimits, Server, ToolResult
from tests.hosts.fixture_server import LOG_ENV, ClientLog, sized_text
from tests.hosts.matrix_server import PNG

app = Server(
    "plainmcp-hosts-sizes",
    version="0.1.0",
    payload_limits=PayloadLimits(text_block=None, text_result=None, structured=None, offload=False),
)
if os.environ.get(LOG_ENV):
    app.add_middleware(ClientLog())

NOTES_URI = "fixture://notes"
NOTES = "NOTES-RESOURCE-TEXT: the plumber comes at nine"
TEXTS = ("FIRST-BLOCK of two", "SECOND-BLOCK of two")
WIDE_LINE = "é" * 49 + "\n"
"""50 characters, 99 UTF-8 bytes."""


def utf8_text(size: int) -> str:
    """A text of exactly `size` UTF-8 bytes, about half as many characters: lines of 49 é,
    padded with a."""
    lines = WIDE_LINE * (size // 99)
    return lines + "a" * (size - len(lines.encode()))


def cjk_text(chars: int) -> str:
    """`chars` characters of three UTF-8 bytes each (a newline after every 99)."""
    return (("日" * 99 + "\n") * (chars // 100 + 1))[:chars]


@app.tool
def sized(chars: int) -> str:
    """A text of exactly `chars` characters, one byte each."""
    return sized_text(chars)


@app.tool
def utf8(size: int) -> str:
    """A text of exactly `size` UTF-8 bytes, mostly two-byte letters."""
    return utf8_text(size)


@app.tool
def cjk(chars: int) -> str:
    """A text of exactly `chars` characters, three UTF-8 bytes each but the newlines."""
    return cjk_text(chars)


@app.tool
def two_texts() -> ToolResult:
    """Two text blocks."""
    return ToolResult(list(TEXTS))


@app.tool
def picture() -> ToolResult:
    """A caption and a one-pixel PNG."""
    return ToolResult(["A PICTURE follows.", Image(PNG, mime_type="image/png")])


@app.resource(NOTES_URI, mime_type="text/plain")
def notes() -> str:
    """A listed resource."""
    return NOTES


if __name__ == "__main__":
    app.run()
