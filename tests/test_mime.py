"""MIME detection from magic numbers, on tiny but real files made here.

The builders (`png_bytes`, `wav_bytes`, ...) are imported by the other result and content tests.
"""

from __future__ import annotations

import io
import struct
import wave
import zlib

import pytest

from plainmcp.model import mime


def png_bytes(width: int = 1, height: int = 1) -> bytes:
    """A real, decodable RGB PNG (all black)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x00\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def wav_bytes(frames: int = 1) -> bytes:
    """A real mono 8 kHz 16-bit WAV made by the stdlib `wave` module."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * frames)
    return buffer.getvalue()


def jpeg_bytes() -> bytes:
    """The markers a JPEG starts and ends with (SOI, APP0/JFIF, EOI)."""
    app0 = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return b"\xff\xd8\xff\xe0" + struct.pack(">H", len(app0) + 2) + app0 + b"\xff\xd9"


def gif_bytes() -> bytes:
    """A 1x1 GIF89a."""
    return (
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff"
        b"!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
    )


def webp_bytes() -> bytes:
    """A RIFF/WEBP container with a VP8L chunk header."""
    payload = b"VP8L" + struct.pack("<I", 5) + b"\x2f\x00\x00\x00\x00" + b"\x00"
    return b"RIFF" + struct.pack("<I", 4 + len(payload)) + b"WEBP" + payload


def mp3_id3_bytes() -> bytes:
    """An ID3v2.4 tag header followed by one MPEG-1 layer III frame header."""
    return b"ID3\x04\x00\x00\x00\x00\x00\x00" + b"\xff\xfb\x90\x64" + b"\x00" * 32


def mp3_frame_bytes() -> bytes:
    """MPEG-1 layer III frame sync with no ID3 tag."""
    return b"\xff\xfb\x90\x64" + b"\x00" * 32


def ogg_bytes() -> bytes:
    return b"OggS\x00\x02" + b"\x00" * 20


def flac_bytes() -> bytes:
    return b"fLaC\x80\x00\x00\x22" + b"\x00" * 34


def pdf_bytes() -> bytes:
    return b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
SVG_WITH_PROLOG = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (png_bytes(), "image/png"),
        (jpeg_bytes(), "image/jpeg"),
        (gif_bytes(), "image/gif"),
        (b"GIF87a\x01\x00\x01\x00", "image/gif"),
        (webp_bytes(), "image/webp"),
        (wav_bytes(), "audio/wav"),
        (mp3_id3_bytes(), "audio/mpeg"),
        (mp3_frame_bytes(), "audio/mpeg"),
        (ogg_bytes(), "audio/ogg"),
        (flac_bytes(), "audio/flac"),
        (pdf_bytes(), "application/pdf"),
        (SVG, "image/svg+xml"),
        (b"  \n" + SVG, "image/svg+xml"),
        (SVG_WITH_PROLOG, "image/svg+xml"),
    ],
    ids=[
        "png",
        "jpeg",
        "gif89a",
        "gif87a",
        "webp",
        "wav",
        "mp3-id3",
        "mp3-frame-sync",
        "ogg",
        "flac",
        "pdf",
        "svg",
        "svg-leading-space",
        "svg-xml-prolog",
    ],
)
def test_sniff_known_formats(data: bytes, expected: str) -> None:
    assert mime.sniff(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello world",
        b'{"a": 1}',
        b"<?xml version='1.0'?><note/>",
        b"RIFF\x00\x00\x00\x00XXXX",  # a RIFF container of no known kind
        b"\xff",  # too short for a frame sync
        b"\xff\xe0",  # frame sync with the reserved layer bits
    ],
    ids=["empty", "text", "json", "xml-not-svg", "unknown-riff", "one-ff", "reserved-layer"],
)
def test_sniff_unknown_is_none(data: bytes) -> None:
    assert mime.sniff(data) is None


def test_builders_are_real_files() -> None:
    with wave.open(io.BytesIO(wav_bytes(3)), "rb") as clip:
        assert (clip.getnchannels(), clip.getframerate(), clip.getnframes()) == (1, 8000, 3)
    png = png_bytes(2, 3)
    assert struct.unpack(">II", png[16:24]) == (2, 3)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("chart.png", "image/png"),
        ("notes.md", "text/markdown"),
        ("data.csv", "text/csv"),
        ("report.pdf", "application/pdf"),
        ("no-extension", None),
    ],
)
def test_from_path(name: str, expected: str | None) -> None:
    assert mime.from_path(name) == expected


@pytest.mark.parametrize(
    ("mime_type", "expected"),
    [
        ("text/plain", True),
        ("text/csv; charset=utf-8", True),
        ("application/json", True),
        ("application/ld+json", True),
        ("image/svg+xml", True),
        ("application/yaml", True),
        ("application/pdf", False),
        ("image/png", False),
        ("application/octet-stream", False),
    ],
)
def test_is_text(mime_type: str, expected: bool) -> None:
    assert mime.is_text(mime_type) is expected
