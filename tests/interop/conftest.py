"""Shared by the interop tests: the demo server, what each of its tools must return, a local site.

`CALLS` is the single table of expected results: every example tool, called by a real client,
must produce exactly this CallToolResult (as it appears on the wire, revision 2025-11-25).
The media bytes are rebuilt with the demo's own helpers and then checked independently
(`check_png`, `check_wav`), so a broken encoder cannot agree with itself.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import io
import json
import socket
import struct
import sys
import threading
import time
import wave
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Implementation

from plainmcp import demo

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo_server.py"
"""The file clients start; it serves plainmcp.demo, whose helpers rebuild the media below."""
SERVER_COMMAND = [sys.executable, str(DEMO)]

EXACT_CLIENT = Implementation(name="plainmcp-interop-tests", version="1.0.0")
"""The clientInfo the official SDK's Client sends here. Its default, "mcp", selects a host
profile (openai-agents and LangChain send it too: hosts/profiles.py), whose adapted results
tests/hosts checks; these tests check the exact protocol, which any client plainmcp does not
know gets."""


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


# --- what the tools must return ----------------------------------------------------------------


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def ok(*content: dict[str, Any], structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": list(content), "isError": False}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def error(message: str) -> dict[str, Any]:
    return {"content": [text(message)], "isError": True}


def image(png: bytes) -> dict[str, Any]:
    return {"type": "image", "data": b64(png), "mimeType": "image/png"}


def audio(wav: bytes) -> dict[str, Any]:
    return {"type": "audio", "data": b64(wav), "mimeType": "audio/wav"}


NOTES_TEXT = "# Release notes\n\n- 0.1.0: first release.\n"
NOTES = {
    "type": "resource",
    "resource": {
        "uri": "notes://release/notes.md",
        "mimeType": "text/markdown",
        "text": NOTES_TEXT,
    },
}
NOTES_GZ = {
    "type": "resource",
    "resource": {
        "uri": "notes://release/notes.md.gz",
        "mimeType": "application/gzip",
        "blob": b64(gzip.compress(NOTES_TEXT.encode(), mtime=0)),
    },
}


def report(year: int) -> dict[str, Any]:
    return {
        "type": "resource_link",
        "uri": f"https://example.com/reports/{year}.pdf",
        "name": f"report-{year}.pdf",
        "title": f"Annual report {year}",
        "mimeType": "application/pdf",
        "annotations": {"audience": ["user"], "priority": 0.5},
    }


STOCK = [
    {"sku": "A-100", "name": "Widget", "quantity": 12},
    {"sku": "B-200", "name": "Gadget", "quantity": 0},
    {"sku": "C-300", "name": "Doohickey", "quantity": 7},
]
IN_STOCK = [STOCK[0], STOCK[2]]


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class Call:
    id: str
    tool: str
    arguments: dict[str, Any]
    expected: dict[str, Any]
    prefix: bool = False
    """Compare the single text block's text by prefix (for wording the library may refine)."""

    def check(self, result: dict[str, Any] | None) -> None:
        """Assert that `result` (a wire CallToolResult) is the expected one."""
        if self.prefix and result is not None and len(result.get("content", ())) == 1:
            want = self.expected["content"][0]["text"]
            got = result["content"][0].get("text", "")
            assert got.startswith(want), f"{self.id}: {got!r} does not start with {want!r}"
            result = {**result, "content": self.expected["content"]}
        assert result == self.expected, self.id


CALLS = [
    Call("add", "add", {"a": 2, "b": 3}, ok(text("5"), structured={"result": 5})),
    Call(
        "add-negative",
        "add",
        {"a": -7, "b": 10**15},
        ok(text("999999999999993"), structured={"result": 999999999999993}),
    ),
    Call("divide", "divide", {"a": 1, "b": 4}, ok(text("0.25"), structured={"result": 0.25})),
    Call("divide-by-zero", "divide", {"a": 1, "b": 0}, error("Cannot divide by zero")),
    Call(
        "chart",
        "chart",
        {"region": "north"},
        ok(text("Sales chart for north"), image(demo.bar_chart_png([3, 5, 8, 6]))),
    ),
    Call("greet", "greet", {"name": "Ada"}, ok(text("Hello, Ada!"))),
    Call(
        "swatch",
        "swatch",
        {"color": "red"},
        ok(image(demo.png(16, 16, lambda x, y: (220, 50, 47)))),
    ),
    Call("tone", "tone", {}, ok(audio(demo.sine_wav(440, 250)))),
    Call(
        "tone-args",
        "tone",
        {"frequency": 1000, "duration_ms": 20},
        ok(audio(demo.sine_wav(1000, 20))),
    ),
    Call("release-notes", "release_notes", {}, ok(NOTES)),
    Call("release-notes-gz", "release_notes", {"compressed": True}, ok(NOTES_GZ)),
    Call("report-link", "report_link", {"year": 2024}, ok(report(2024))),
    Call(
        "inventory",
        "inventory",
        {},
        ok(text(compact(STOCK)), structured={"result": STOCK}),
    ),
    Call(
        "inventory-in-stock",
        "inventory",
        {"in_stock_only": True},
        ok(text(compact(IN_STOCK)), structured={"result": IN_STOCK}),
    ),
    Call(
        "stats",
        "stats",
        {"numbers": [1, 2.5, 6]},
        ok(
            text('{"count":3,"mean":3.1666666666666665,"minimum":1.0,"maximum":6.0}'),
            structured={"count": 3, "mean": 3.1666666666666665, "minimum": 1.0, "maximum": 6.0},
        ),
    ),
    Call(
        "showcase",
        "showcase",
        {},
        ok(
            text("One of each:"),
            image(demo.png(16, 16, lambda x, y: (38, 139, 210))),
            audio(demo.sine_wav(880, 100)),
            NOTES,
            report(2025),
        ),
    ),
    Call(
        "fetch-bad-scheme",
        "fetch",
        {"url": "ftp://example.com/file.txt"},
        error("Only http and https URLs can be fetched, not 'ftp://example.com/file.txt'"),
    ),
    Call(
        "fetch-invalid-url",
        "fetch",
        {"url": "http://[bad/"},
        error("Not a valid URL: 'http://[bad/' (Invalid IPv6 URL)"),
    ),
    Call(
        "fetch-no-host",
        "fetch",
        {"url": "http://"},
        error("Could not fetch http://: no host given"),
    ),
    Call(
        "add-invalid",
        "add",
        {"a": 2.5, "b": 3},
        error("Invalid arguments for tool 'add':\n- a: Input should be a valid integer, got 2.5"),
    ),
    Call(
        "add-missing",
        "add",
        {"a": 2},
        error("Invalid arguments for tool 'add':\n- b: Field required"),
    ),
    Call(
        "tone-out-of-range",
        "tone",
        {"frequency": 5},
        error(
            "Invalid arguments for tool 'tone':\n"
            "- frequency: Input should be greater than or equal to 20, got 5"
        ),
    ),
]

TOOL_NAMES = [
    "add",
    "divide",
    "chart",
    "fetch",
    "greet",
    "swatch",
    "tone",
    "release_notes",
    "report_link",
    "inventory",
    "stats",
    "showcase",
]

ADD_INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"description": "The first number.", "type": "integer"},
        "b": {"description": "The second number.", "type": "integer"},
    },
    "required": ["a", "b"],
    "additionalProperties": False,
}

# 2025-11-25 carries only object structured values: others are wrapped as {"result": ...}.
OUTPUT_SCHEMAS: dict[str, dict[str, Any] | None] = {
    "add": {
        "type": "object",
        "properties": {"result": {"type": "integer"}},
        "required": ["result"],
    },
    "divide": {
        "type": "object",
        "properties": {"result": {"type": "number"}},
        "required": ["result"],
    },
    "inventory": {
        "type": "object",
        "properties": {
            "result": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string"},
                        "name": {"type": "string"},
                        "quantity": {"type": "integer"},
                    },
                    "required": ["sku", "name", "quantity"],
                },
            }
        },
        "required": ["result"],
    },
    "stats": {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "mean": {"type": "number"},
            "minimum": {"type": "number"},
            "maximum": {"type": "number"},
        },
        "required": ["count", "mean", "minimum", "maximum"],
    },
}
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


# --- independent checks of the media -----------------------------------------------------------


def check_png(data: str) -> tuple[int, int, list[bytes]]:
    """Decode a base64 8-bit RGB PNG (filter 0 rows); returns width, height and the raw rows."""
    raw = base64.b64decode(data, validate=True)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(raw):
        (length,) = struct.unpack(">I", raw[pos : pos + 4])
        kind, body = raw[pos + 4 : pos + 8], raw[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", raw[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body), f"bad CRC in {kind!r}"
        chunks[kind] = body
        pos += 12 + length
    assert list(chunks) == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, color, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, color) == (8, 2)
    pixels = zlib.decompress(chunks[b"IDAT"])
    stride = 1 + 3 * width
    assert len(pixels) == stride * height
    rows = [pixels[i * stride : (i + 1) * stride] for i in range(height)]
    assert all(row[0] == 0 for row in rows)
    return width, height, [row[1:] for row in rows]


def check_wav(data: str) -> tuple[int, int, int, int]:
    """(channels, sample width, rate, frames) of a base64 WAV."""
    with wave.open(io.BytesIO(base64.b64decode(data, validate=True))) as wav:
        return wav.getnchannels(), wav.getsampwidth(), wav.getframerate(), wav.getnframes()


# --- a local web site for the fetch tool -------------------------------------------------------

BIG_PAGE = b"x" * 150_000


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/slow":
            time.sleep(3)
        pages: dict[str, tuple[str, bytes]] = {
            "/hello": ("text/plain; charset=utf-8", "Hello from the test site ✓\n".encode()),
            "/latin1": ("text/html; charset=iso-8859-1", "<p>café</p>".encode("latin-1")),
            "/big": ("text/plain", BIG_PAGE),
            "/slow": ("text/plain", b"too late"),
        }
        if self.path not in pages:
            self.send_error(404, "Not Found")
            return
        kind, body = pages[self.path]
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@dataclass(frozen=True)
class Site:
    base: str
    closed_port: int

    def url(self, path: str) -> str:
        return self.base + path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """A web server on 127.0.0.1 for the fetch tool, plus a port nobody listens on."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}", _free_port())
    finally:
        server.shutdown()
        server.server_close()


def fetch_calls(site: Site) -> list[Call]:
    """The fetch tool against the local site: success, size limit, and each kind of failure."""
    refused = f"http://127.0.0.1:{site.closed_port}/"
    return [
        Call(
            "fetch-hello",
            "fetch",
            {"url": site.url("/hello")},
            ok(text("Hello from the test site ✓\n")),
        ),
        Call("fetch-latin1", "fetch", {"url": site.url("/latin1")}, ok(text("<p>café</p>"))),
        Call(
            "fetch-big",
            "fetch",
            {"url": site.url("/big")},
            ok(text("x" * 30_000 + "\n[truncated: the page is larger than 30,000 bytes]")),
        ),
        Call(
            "fetch-404",
            "fetch",
            {"url": site.url("/missing")},
            error(f"{site.url('/missing')} answered HTTP 404 Not Found"),
        ),
        Call(
            "fetch-refused",
            "fetch",
            {"url": refused},
            error(f"Could not fetch {refused}: Connection refused"),
        ),
        Call(
            "fetch-timeout",
            "fetch",
            {"url": site.url("/slow"), "timeout": 0.5},
            error(f"Timed out after 0.5 s fetching {site.url('/slow')}"),
        ),
    ]
