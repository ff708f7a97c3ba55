"""A server whose two tools give results too large for one message: 150,000 characters of text
and 10,000 structured rows. The continuation (read_more) serves the rest.

Run over stdio (`python parts_server.py`) or HTTP (`plainmcp run parts_server.py --http`).
"""

from __future__ import annotations

from dataclasses import dataclass

from plainmcp import Server

app = Server("plainmcp-parts", version="0.1.0")


def long_text() -> str:
    """150,000 characters: numbered lines in paragraphs of ten, each line ending in a space
    (a rebuild that lost whitespace at a cut would show)."""
    lines = (f"Line {n:06d}: the quick brown fox jumps over the lazy dog. \n" for n in range(3000))
    return "".join(line + ("\n" if n % 10 == 9 else "") for n, line in enumerate(lines))[:150_000]


@dataclass
class Row:
    id: int
    name: str
    score: float


def rows() -> list[Row]:
    return [Row(i, f"row {i}", i / 7) for i in range(10_000)]


@app.tool
def log() -> str:
    """The whole log."""
    return long_text()


@app.tool
def table() -> list[Row]:
    """Every row of the table."""
    return rows()


if __name__ == "__main__":
    app.run()
