"""The demo server (`plainmcp demo`): the seeds' tools, plus one tool per kind of content.

It ships inside the package, so `plainmcp demo` works from an installed wheel; serve it with
`python -m plainmcp.demo` or `plainmcp run examples/demo_server.py` (a two-line file importing
this one), or try a tool: `plainmcp call examples/demo_server.py add a=2 b=3`.

Every tool but `fetch` is deterministic: the same arguments always give the same bytes, and
the chart and media are drawn in code (no Pillow, no data files).
"""

from __future__ import annotations

import gzip
import io
import math
import struct
import urllib.error
import urllib.request
import wave
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, Field

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

app = Server(
    "plainmcp-demo",
    version="0.1.0",
    instructions=(
        "Demo tools: arithmetic (add, divide), a sales chart, a web fetcher, and one tool for each"
        " kind of MCP content (text, image, audio, embedded resource, resource link, structured)."
    ),  # No result here reaches the payload limits: no continuation tool (read_more) in the list.
    continuation=None,
)

READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


# --- the seeds' tools ------------------------------------------------------------------------


@app.tool(annotations=READ_ONLY, examples=[{"a": 2, "b": 3}])
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@app.tool(annotations=READ_ONLY)
def divide(a: float, b: float) -> float:
    """Divide a by b.

    Args:
        a: The dividend.
        b: The divisor; must not be zero.
    """
    if b == 0:
        raise ToolError("Cannot divide by zero")
    return a / b


SALES = {"north": [3, 5, 8, 6], "south": [7, 4, 6, 9], "east": [2, 6, 4, 8], "west": [5, 5, 7, 3]}


@app.tool(annotations=READ_ONLY)
async def chart(region: Literal["north", "south", "east", "west"]) -> list:
    """Draw the quarterly sales of a region as a bar chart.

    Args:
        region: The sales region.
    """
    return ["Sales chart for " + region, Image(bar_chart_png(SALES[region]))]


MAX_FETCH_BYTES = 30_000


@app.tool(annotations={"readOnlyHint": True, "openWorldHint": True})
def fetch(url: str, timeout: Annotated[float, Field(gt=0, le=30)] = 10) -> str:
    """Fetch a web page and return its text (at most 30 kB).

    Args:
        url: An http:// or https:// URL.
        timeout: Seconds to wait for the server.
    """
    scheme = url.partition(":")[0].lower()
    if scheme not in ("http", "https"):
        raise ToolError(f"Only http and https URLs can be fetched, not {url!r}")
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "plainmcp-demo"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body: bytes = response.read(MAX_FETCH_BYTES + 1)
            charset = response.headers.get_content_charset() or "utf-8"
    except ValueError as exc:  # e.g. no host, or a malformed address
        raise ToolError(f"Not a valid URL: {url!r} ({exc})") from None
    except urllib.error.HTTPError as exc:
        raise ToolError(f"{url} answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, TimeoutError):
            raise ToolError(f"Timed out after {timeout:g} s fetching {url}") from None
        detail = getattr(reason, "strerror", None) or reason
        raise ToolError(f"Could not fetch {url}: {detail}") from None
    try:
        text = body[:MAX_FETCH_BYTES].decode(charset, errors="replace")
    except LookupError:  # an unknown charset name
        text = body[:MAX_FETCH_BYTES].decode("utf-8", errors="replace")
    if len(body) > MAX_FETCH_BYTES:
        text += f"\n[truncated: the page is larger than {MAX_FETCH_BYTES:,} bytes]"
    return text


# --- one tool per kind of content --------------------------------------------------------------


@app.tool(annotations=READ_ONLY)
def greet(name: str) -> str:
    """Say hello (a text result).

    Args:
        name: Who to greet.
    """
    return f"Hello, {name}!"


COLORS = {"red": (220, 50, 47), "green": (133, 153, 0), "blue": (38, 139, 210)}


@app.tool(annotations=READ_ONLY)
def swatch(color: Literal["red", "green", "blue"]) -> Image:
    """A 16x16 PNG filled with one colour (an image result).

    Args:
        color: The colour to paint.
    """
    return Image(png(16, 16, lambda x, y: COLORS[color]))


@app.tool(annotations=READ_ONLY)
def tone(
    frequency: Annotated[int, Field(ge=20, le=4000)] = 440,
    duration_ms: Annotated[int, Field(ge=10, le=2000)] = 250,
) -> Audio:
    """A sine tone as a WAV file (an audio result).

    Args:
        frequency: Pitch in hertz.
        duration_ms: Length in milliseconds.
    """
    return Audio(sine_wav(frequency, duration_ms))


NOTES = "# Release notes\n\n- 0.1.0: first release.\n"


@app.tool(annotations=READ_ONLY)
def release_notes(compressed: bool = False) -> EmbeddedResource:
    """The release notes as an embedded resource: markdown text, or gzip bytes (a blob).

    Args:
        compressed: Send them gzip-compressed.
    """
    if compressed:
        data = gzip.compress(NOTES.encode(), mtime=0)
        return File(data, mime_type="application/gzip", uri="notes://release/notes.md.gz")
    return EmbeddedResource(uri="notes://release/notes.md", text=NOTES, mime_type="text/markdown")


@app.tool(annotations=READ_ONLY)
def report_link(year: Annotated[int, Field(ge=2000, le=2100)]) -> ResourceLink:
    """A link to the annual report of a year, for the client to fetch (a resource link).

    Args:
        year: The report's year.
    """
    return ResourceLink(
        uri=f"https://example.com/reports/{year}.pdf",
        name=f"report-{year}.pdf",
        title=f"Annual report {year}",
        mime_type="application/pdf",
        annotations=Annotations(audience="user", priority=0.5),
    )


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    quantity: int


STOCK = [Item("A-100", "Widget", 12), Item("B-200", "Gadget", 0), Item("C-300", "Doohickey", 7)]


@app.tool(annotations=READ_ONLY)
def inventory(in_stock_only: bool = False) -> list[Item]:
    """The items in stock (structured output: a list of objects).

    Args:
        in_stock_only: Leave out items with quantity 0.
    """
    return [item for item in STOCK if item.quantity > 0 or not in_stock_only]


class Stats(BaseModel):
    count: int
    mean: float
    minimum: float
    maximum: float


@app.tool(annotations=READ_ONLY, examples=[{"numbers": [1, 2, 3.5]}])
def stats(numbers: Annotated[list[float], Field(min_length=1)]) -> Stats:
    """Summary statistics of some numbers (structured output: a pydantic model).

    Args:
        numbers: The numbers to summarise.
    """
    return Stats(
        count=len(numbers),
        mean=sum(numbers) / len(numbers),
        minimum=min(numbers),
        maximum=max(numbers),
    )


@app.tool(annotations=READ_ONLY)
def showcase() -> list:
    """Text, an image, audio, an embedded resource and a resource link in one result."""
    return [
        "One of each:",
        swatch("blue"),
        tone(880, 100),
        release_notes(),
        report_link(2025),
    ]


# --- media made in code (no Pillow, no files) ---------------------------------------------------


def png(width: int, height: int, pixel: Callable[[int, int], tuple[int, int, int]]) -> bytes:
    """An RGB PNG whose pixel (x, y) has the colour `pixel(x, y)`."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def bar_chart_png(values: list[int], bar: int = 24, gap: int = 8, scale: int = 10) -> bytes:
    """A bar chart on white: one blue bar per value (`scale` pixels per unit) on a grey axis."""
    width = gap + len(values) * (bar + gap)
    base = gap + max(values) * scale  # the axis row; bars stand on it
    height = base + gap

    def pixel(x: int, y: int) -> tuple[int, int, int]:
        if y == base:
            return (128, 128, 128)
        slot, offset = divmod(x - gap, bar + gap)
        if x >= gap and offset < bar and base - values[slot] * scale <= y < base:
            return (38, 139, 210)
        return (255, 255, 255)

    return png(width, height, pixel)


def sine_wav(frequency: int, duration_ms: int, rate: int = 8000) -> bytes:
    """A mono 16-bit PCM WAV of a sine tone."""
    count = rate * duration_ms // 1000
    samples = (round(12000 * math.sin(2 * math.pi * frequency * i / rate)) for i in range(count))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"".join(struct.pack("<h", s) for s in samples))
    return buffer.getvalue()


if __name__ == "__main__":
    app.run()
