"""MIME types from magic numbers, so a block never claims a type its bytes contradict."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# (offset, signature, mime type), checked in order; RIFF and ftyp containers are refined below.
_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"BM", "image/bmp"),
    (0, b"II*\x00", "image/tiff"),
    (0, b"MM\x00*", "image/tiff"),
    (0, b"\x00\x00\x01\x00", "image/x-icon"),
    (0, b"%PDF-", "application/pdf"),
    (0, b"fLaC", "audio/flac"),
    (0, b"OggS", "audio/ogg"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"#!AMR", "audio/amr"),
    (0, b"PK\x03\x04", "application/zip"),
    (0, b"\x1f\x8b", "application/gzip"),
)

_RIFF_KINDS = {b"WAVE": "audio/wav", b"WEBP": "image/webp", b"AVI ": "video/x-msvideo"}
_FTYP_BRANDS = {
    b"M4A ": "audio/mp4",
    b"M4B ": "audio/mp4",
    b"avif": "image/avif",
    b"avis": "image/avif",
    b"heic": "image/heic",
    b"heix": "image/heic",
    b"mif1": "image/heif",
}


def sniff(data: bytes) -> str | None:
    """The MIME type the bytes declare by their magic number, or None when they declare none."""
    if data[:4] == b"RIFF" and len(data) >= 12:
        return _RIFF_KINDS.get(data[8:12])
    if data[4:8] == b"ftyp" and len(data) >= 12:
        return _FTYP_BRANDS.get(data[8:12], "video/mp4")
    for offset, signature, mime in _SIGNATURES:
        if data.startswith(signature, offset):
            return mime
    # MPEG audio frame sync without an ID3 tag: 11 set bits, layer III/II/I, not "reserved".
    if len(data) >= 2 and data[0] == 0xFF and (data[1] & 0xE0) == 0xE0 and (data[1] & 0x06):
        return "audio/mpeg"
    head = data[:256].lstrip()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in data[:1024]):
        return "image/svg+xml"
    return None


def from_path(path: str | Path) -> str | None:
    """The MIME type a file name suggests (a fallback for formats without magic numbers)."""
    import mimetypes  # with urllib.parse and ipaddress: for file names only, not at import

    mime, _ = mimetypes.guess_type(str(path), strict=False)
    return mime


def is_text(mime: str) -> bool:
    """Whether contents of this type are carried as text rather than base64."""
    base = mime.split(";", 1)[0].strip().lower()
    return (
        base.startswith("text/")
        or base in _TEXT_APPLICATION_TYPES
        or base.endswith(("+json", "+xml"))
    )


_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "image/svg+xml",
    }
)
